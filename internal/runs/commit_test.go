package runs

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/toolgrade/toolgrade/internal/record"
)

func TestSuiteCommit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git on PATH")
	}
	ctx := context.Background()
	noEnv := func(string) string { return "" }
	dir := t.TempDir()
	suite := filepath.Join(dir, "suite.yaml")
	if c := SuiteCommit(ctx, suite, noEnv); c != nil {
		t.Fatalf("no repository, no CI: got %+v, want nil", c)
	}
	sha := "0123456789abcdef0123456789abcdef01234567"
	env := func(k string) string { return map[string]string{"CI_COMMIT_SHA": sha, "GITHUB_SHA": "not-a-sha"}[k] }
	if c := SuiteCommit(ctx, suite, env); c == nil || c.SHA != sha || c.Source != "CI_COMMIT_SHA" || c.Dirty {
		t.Fatalf("from CI: got %+v, want %s from CI_COMMIT_SHA (GITHUB_SHA is no hash)", c, sha)
	}
	gitRun := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	gitRun("init", "-q")
	if err := os.WriteFile(suite, []byte("name: s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitRun("add", ".")
	gitRun("commit", "-q", "-m", "one")
	c := SuiteCommit(ctx, suite, env)
	if c == nil || c.Source != "git" || c.Dirty || len(c.SHA) != 40 || c.SHA == sha {
		t.Fatalf("clean repository: got %+v, want git's HEAD, not dirty (git wins over CI)", c)
	}
	if err := os.WriteFile(suite, []byte("name: edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := SuiteCommit(ctx, suite, env)
	if d == nil || !d.Dirty || d.SHA != c.SHA || d.Short() != c.SHA[:12]+"+dirty" {
		t.Fatalf("edited suite: got %+v, want %s dirty", d, c.SHA)
	}
}

// TestRunJSONCommit: the commit survives run.json, and a run.json from before
// it reads with none.
func TestRunJSONCommit(t *testing.T) {
	dir := t.TempDir()
	want := &record.RunCommit{SHA: "0123456789abcdef0123456789abcdef01234567", Dirty: true, Source: "git"}
	if err := record.WriteRun(dir, &record.Run{Status: "complete", Commit: want}); err != nil {
		t.Fatal(err)
	}
	r, err := record.ReadRun(dir)
	if err != nil || r.Commit == nil || *r.Commit != *want {
		t.Fatalf("read back %+v (%v), want %+v", r.Commit, err, want)
	}
	old := `{"format":"1","suite":{"name":"s"},"status":"complete","start":"2025-01-01T00:00:00Z"}`
	if err := os.WriteFile(filepath.Join(dir, record.RunFile), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	if r, err := record.ReadRun(dir); err != nil || r.Commit != nil || r.Commit.Short() != "" {
		t.Fatalf("an old run.json: %+v, %v; want no commit", r, err)
	}
}
