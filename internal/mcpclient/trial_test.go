package mcpclient

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/mcpclient/refservers"
	"github.com/toolgrade/toolgrade/internal/serversfile"
)

// perTrialFS connects the real filesystem server as a per-trial server,
// its trial directories made under parent, from a template holding
// seed.txt.
func perTrialFS(t *testing.T, parent string) *Catalog {
	t.Helper()
	return perTrialFSIn(t, parent)
}

// perTrialFSB is perTrialFS for a benchmark, its trial directories in the
// system's temporary folder.
func perTrialFSB(b *testing.B) *Catalog { return perTrialFSIn(b, "") }

func perTrialFSIn(t testing.TB, parent string) *Catalog {
	t.Helper()
	script := refservers.Script(t, "../..", refservers.Filesystem)
	dir := t.TempDir()
	tmpl := filepath.Join(dir, "tmpl")
	if err := os.MkdirAll(tmpl, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmpl, "seed.txt"), []byte("seeded"), 0o644); err != nil {
		t.Fatal(err)
	}
	src, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"fs": map[string]any{"command": "node", "args": []string{script, "${trialDir}"}, "perTrial": true, "trialTemplate": "tmpl"},
	}})
	cfg, err := serversfile.Parse(context.Background(), src, filepath.Join(dir, "servers.json"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := Connect(context.Background(), cfg, &Options{RequireAll: true, TrialDirs: parent})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestTrialsDoNotShareState: two trials of a per-trial server each get a
// fresh process in a directory of their own, started from the template;
// what one writes the other never sees; Close removes the directory unless
// kept, and closing the catalog removes the listing instance's.
func TestTrialsDoNotShareState(t *testing.T) {
	parent := t.TempDir()
	c := perTrialFS(t, parent)
	if !c.PerTrial() {
		t.Fatal("PerTrial() = false")
	}
	ctx := context.Background()
	a, err := c.StartTrial(ctx, "m/case/0")
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.StartTrial(ctx, "m/case/1")
	if err != nil {
		t.Fatal(err)
	}
	if a.Dir == b.Dir || !strings.HasPrefix(a.Dir, parent) {
		t.Fatalf("trial dirs %q and %q under %q", a.Dir, b.Dir, parent)
	}
	w := c.Call(WithTrial(ctx, a), "write_file", json.RawMessage(`{"path":"notes.txt","content":"buy milk"}`), "1")
	if w.IsError {
		t.Fatalf("write in trial a: %+v", w)
	}
	if got, err := os.ReadFile(filepath.Join(a.Dir, "notes.txt")); err != nil || string(got) != "buy milk" {
		t.Fatalf("trial a's file: %q, %v", got, err)
	}
	r := c.Call(WithTrial(ctx, b), "read_text_file", json.RawMessage(`{"path":"notes.txt"}`), "2")
	if !r.IsError {
		t.Errorf("trial b read trial a's note: %q", r.Result)
	}
	seed := c.Call(WithTrial(ctx, b), "read_text_file", json.RawMessage(`{"path":"seed.txt"}`), "3")
	if seed.IsError || !strings.HasPrefix(seed.Result, "seeded") {
		t.Errorf("trial b's template file: %+v", seed)
	}
	// Another catalog (a variant's servers file) keeps to its own servers,
	// whatever trial the context carries.
	other := perTrialFS(t, t.TempDir())
	defer other.Close()
	if x := other.Call(WithTrial(ctx, a), "write_file", json.RawMessage(`{"path":"other.txt","content":"x"}`), "5"); x.IsError {
		t.Fatalf("write on the other catalog: %+v", x)
	}
	if _, err := os.Stat(filepath.Join(a.Dir, "other.txt")); err == nil {
		t.Error("another catalog's call reached trial a's server")
	}
	if kept, err := a.Close(false); err != nil || kept != "" {
		t.Errorf("Close(false) = %q, %v", kept, err)
	}
	if _, err := os.Stat(a.Dir); !os.IsNotExist(err) {
		t.Errorf("trial a's directory is still there: %v", err)
	}
	kept, err := b.Close(true)
	if err != nil || kept != b.Dir {
		t.Errorf("Close(true) = %q, %v", kept, err)
	}
	if _, err := os.Stat(kept); err != nil {
		t.Errorf("kept directory: %v", err)
	}
	after := c.Call(WithTrial(ctx, a), "read_text_file", json.RawMessage(`{"path":"seed.txt"}`), "4")
	if !after.IsError || after.ErrorKind != "server_failure" {
		t.Errorf("a call on a closed trial: %+v", after)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	left, _ := filepath.Glob(filepath.Join(parent, "*"))
	if len(left) != 1 || left[0] != kept {
		t.Errorf("left behind: %q, want only the kept %q", left, kept)
	}
}

// TestTrialWithOtherToolsFails: an instance that lists other tools than
// the catalog's fails the trial's start, leaving nothing behind.
func TestTrialWithOtherToolsFails(t *testing.T) {
	parent := t.TempDir()
	c := perTrialFS(t, parent)
	defer c.Close()
	// Another server's tools stand for what this one lists now.
	c.conns[0].listed = c.conns[0].listed[1:]
	_, err := c.StartTrial(context.Background(), "x")
	if err == nil || !strings.Contains(err.Error(), "catalog hash differs") {
		t.Fatalf("err = %v", err)
	}
	left, _ := filepath.Glob(filepath.Join(parent, "toolgrade-trial-x-*"))
	if len(left) != 0 {
		t.Errorf("left behind: %q", left)
	}
}

// BenchmarkStartTrial measures what a per-trial server costs each trial:
// starting the real filesystem server in a new directory from a template,
// listing and comparing its tools, then ending it and removing the
// directory.
func BenchmarkStartTrial(b *testing.B) {
	c := perTrialFSB(b)
	defer c.Close()
	ctx := context.Background()
	for b.Loop() {
		tr, err := c.StartTrial(ctx, "bench")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := tr.Close(false); err != nil {
			b.Fatal(err)
		}
	}
}
