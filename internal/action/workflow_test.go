package action

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// step is a workflow step, as much of it as these tests read.
type step struct {
	Uses string            `yaml:"uses"`
	With map[string]string `yaml:"with"`
}

type workflow struct {
	Jobs map[string]struct {
		Strategy struct {
			Matrix struct {
				Shard []string `yaml:"shard"`
			} `yaml:"matrix"`
		} `yaml:"strategy"`
		Steps []step `yaml:"steps"`
	} `yaml:"jobs"`
}

// actionInputs are the action's inputs as the step runs them: the
// workflow's with, then action.yml's defaults (those without an expression),
// then the test's overrides, each as INPUT_NAME.
func actionInputs(t *testing.T, job string, wf workflow, sub func(string) string, over map[string]string) map[string]string {
	t.Helper()
	var meta struct {
		Inputs map[string]struct {
			Default string `yaml:"default"`
		} `yaml:"inputs"`
	}
	b, _ := os.ReadFile(filepath.Join(root, "action.yml"))
	if err := yaml.Unmarshal(b, &meta); err != nil {
		t.Fatal(err)
	}
	in := map[string]string{}
	for name, i := range meta.Inputs {
		if !strings.Contains(i.Default, "${{") {
			in[name] = i.Default
		}
	}
	found := false
	for _, s := range wf.Jobs[job].Steps {
		if s.Uses == "toolgrade/toolgrade@main" {
			found = true
			for k, v := range s.With {
				in[k] = sub(v)
			}
		}
	}
	if !found {
		t.Fatalf("job %s does not use the action", job)
	}
	for k, v := range over {
		in[k] = v
	}
	return in
}

// runAction runs the action's steps as action.yml does, with its if:s, and
// returns the run step's output and exit code.
func runAction(t *testing.T, r *runner, in map[string]string) (string, int) {
	t.Helper()
	var env []string
	for k, v := range in {
		env = append(env, "INPUT_"+strings.ToUpper(strings.ReplaceAll(k, "-", "_"))+"="+v)
	}
	steps := []string{}
	if in["merge"] == "" {
		steps = append(steps, "wait")
		if in["pull"] == "true" {
			steps = append(steps, "pull")
		}
	}
	if in["baseline"] != "" {
		steps = append(steps, "baseline")
	}
	for _, s := range steps {
		if out, code := r.step(s, env...); code != 0 {
			t.Fatalf("%s: exit %d\n%s", s, code, out)
		}
	}
	return r.step("run", append(env, "INPUT_BASELINE_DIR="+r.output("baseline-dir"))...)
}

// TestShardedWorkflow runs docs/ci.md's sharded workflow through the action:
// four shards against the fake Ollama, their artifacts where
// download-artifact puts them, and the merge job, whose gate fails on the
// demo's weak model (exit 4). No artifact from the default branch yet: the
// merge compares nothing.
func TestShardedWorkflow(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "docs/workflows/toolgrade-sharded.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf workflow
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatal(err)
	}
	url := fakeOllama(t, "127.0.0.1:0")
	ws := workspace(t)
	shards := wf.Jobs["shard"].Strategy.Matrix.Shard
	if len(shards) != 4 {
		t.Fatalf("matrix shards %q", shards)
	}
	for _, i := range shards {
		r := newRunner(t)
		r.env = append(r.env, "GITHUB_WORKSPACE="+ws)
		sub := strings.NewReplacer("${{ matrix.shard }}", i, "qwen3:8b,llama3.2:3b", "scripted-good,scripted-weak").Replace
		in := actionInputs(t, "shard", wf, sub, map[string]string{"ollama": url})
		if out, code := runAction(t, r, in); code != 0 {
			t.Fatalf("shard %s: exit %d\n%s", i, code, out)
		}
		// download-artifact: the artifact artifact-name holds the run
		// directory's files, and lands in path/<its name>.
		dst := filepath.Join(ws, "shards", in["artifact-name"])
		os.MkdirAll(filepath.Dir(dst), 0o755)
		if out, err := exec.Command("cp", "-R", r.output("run-dir"), dst).CombinedOutput(); err != nil {
			t.Fatalf("cp: %v\n%s", err, out)
		}
	}

	r := newRunner(t)
	r.env = append(r.env, "GITHUB_WORKSPACE="+ws)
	withFakeGH(t, r, `{"artifacts": []}`, "")
	in := actionInputs(t, "merge", wf, func(s string) string { return s }, map[string]string{"default-branch": "main"})
	out, code := runAction(t, r, in)
	if code != 4 || !strings.Contains(out, "::error title=toolgrade gate::gate failed: scripted-weak pass") {
		t.Fatalf("merge: exit %d, want the gate's 4\n%s", code, out)
	}
	merged := filepath.Join(ws, "toolgrade-run")
	if r.output("run-dir") != merged || r.output("report") != merged+"/report.html" {
		t.Errorf("outputs run-dir %q report %q", r.output("run-dir"), r.output("report"))
	}
	trials, err := os.ReadFile(filepath.Join(merged, "trials.jsonl"))
	if err != nil || bytes.Count(trials, []byte("\n")) != 2*25*3 {
		t.Errorf("the merged run: %d trials (%v), want %d", bytes.Count(trials, []byte("\n")), err, 2*25*3)
	}
}

// TestOneJobWorkflow runs docs/ci.md's first workflow through the action,
// its baseline the artifact of the default branch's last run (fake gh),
// against the fake Ollama: the demo's weak model fails the gate (exit 4).
func TestOneJobWorkflow(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "docs/workflows/toolgrade.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf workflow
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatal(err)
	}
	url := fakeOllama(t, "127.0.0.1:0")
	ws := workspace(t)
	sub := strings.NewReplacer("qwen3:8b,llama3.2:3b", "scripted-good,scripted-weak").Replace
	over := map[string]string{"ollama": url, "default-branch": "main"}

	// The default branch's run, then a pull request's with it as baseline.
	main := newRunner(t)
	main.env = append(main.env, "GITHUB_WORKSPACE="+ws)
	in := actionInputs(t, "toolgrade", wf, sub, over)
	in["baseline"] = ""
	if _, code := runAction(t, main, in); code != 4 {
		t.Fatalf("the default branch's run: exit %d, want 4", code)
	}
	r := newRunner(t)
	pr := workspace(t)
	r.env = append(r.env, "GITHUB_WORKSPACE="+pr)
	withFakeGH(t, r, artifacts, main.output("run-dir"))
	out, code := runAction(t, r, actionInputs(t, "toolgrade", wf, sub, over))
	if code != 4 || !strings.Contains(out, "::error title=toolgrade gate::gate failed: scripted-weak pass") {
		t.Fatalf("exit %d, want the gate's 4\n%s", code, out)
	}
	if !strings.Contains(r.stepSummary(), ":white_check_mark: held: scripted-weak regressions 0 <= 0") {
		t.Errorf("the step summary has no regressions against the baseline:\n%s", r.stepSummary())
	}
}

// workspace is a checkout of a repository holding the suites (cases/).
func workspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	if err := os.Symlink(filepath.Join(root, "cases"), filepath.Join(ws, "cases")); err != nil {
		t.Fatal(err)
	}
	return ws
}

// withFakeGH puts fakeGH first on r's PATH, the artifacts API answering
// api (JSON), an artifact download copying dir; it returns gh's log.
func withFakeGH(t *testing.T, r *runner, api, dir string) string {
	t.Helper()
	ghDir := t.TempDir()
	os.WriteFile(filepath.Join(ghDir, "gh"), []byte(fakeGH), 0o755)
	os.WriteFile(filepath.Join(ghDir, "artifacts.json"), []byte(api), 0o644)
	log := filepath.Join(ghDir, "log")
	r.env = append(r.env, "PATH="+ghDir+string(os.PathListSeparator)+binDir+string(os.PathListSeparator)+os.Getenv("PATH"),
		"FAKE_GH_LOG="+log, "FAKE_GH_API="+filepath.Join(ghDir, "artifacts.json"), "FAKE_GH_ARTIFACT="+dir)
	return log
}
