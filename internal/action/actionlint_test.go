package action

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The example workflows docs/ci.md shows; they use the action as users do.
var examples = []string{"docs/workflows/toolgrade.yml", "docs/workflows/toolgrade-sharded.yml"}

const uses = "uses: toolgrade/toolgrade@main"

// project is a repository actionlint can read: action.yml and its script at
// the root, and workflows that use the action as `./`, so actionlint checks
// the inputs they give against action.yml.
func project(t *testing.T, workflows map[string]string) (dir string, files []string) {
	t.Helper()
	dir = t.TempDir()
	wf := filepath.Join(dir, ".github", "workflows")
	if err := os.MkdirAll(wf, 0o755); err != nil {
		t.Fatal(err)
	}
	// actionlint takes the directory holding .git as the project whose
	// local actions (uses: ./) it reads.
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	meta, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "action.yml"), meta, 0o644)
	for name, text := range workflows {
		f := filepath.Join(wf, name)
		os.WriteFile(f, []byte(strings.ReplaceAll(text, uses, "uses: ./")), 0o644)
		files = append(files, f)
	}
	return dir, files
}

// actionlint runs `go tool actionlint` (go.mod's tool) on files.
func actionlint(t *testing.T, files []string) (string, error) {
	t.Helper()
	cmd := exec.Command("go", append([]string{"tool", "actionlint", "-no-color"}, files...)...)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// compositeAsWorkflow is action.yml's steps as a reusable workflow's job,
// with the action's inputs as the workflow's: actionlint checks workflows,
// not actions, and so checks the steps' expressions, the inputs they name
// and the actions they call.
func compositeAsWorkflow(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var action struct {
		Inputs map[string]struct {
			Required bool `yaml:"required"`
		} `yaml:"inputs"`
		Runs struct {
			Using string `yaml:"using"`
			Steps []any  `yaml:"steps"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(b, &action); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	if action.Runs.Using != "composite" || len(action.Runs.Steps) == 0 {
		t.Fatalf("action.yml: runs.using %q with %d steps", action.Runs.Using, len(action.Runs.Steps))
	}
	inputs := map[string]any{}
	for name, in := range action.Inputs {
		inputs[name] = map[string]any{"type": "string", "required": in.Required}
	}
	wf := map[string]any{
		"on":   map[string]any{"workflow_call": map[string]any{"inputs": inputs}},
		"jobs": map[string]any{"action": map[string]any{"runs-on": "ubuntu-latest", "steps": action.Runs.Steps}},
	}
	out, err := yaml.Marshal(wf)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func TestActionlint(t *testing.T) {
	workflows := map[string]string{"composite.yml": compositeAsWorkflow(t)}
	ci, err := os.ReadFile(filepath.Join(root, "docs", "ci.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, ex := range examples {
		b, err := os.ReadFile(filepath.Join(root, ex))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), uses) {
			t.Errorf("%s does not use the action (%s)", ex, uses)
		}
		if !strings.Contains(string(ci), "```yaml\n"+string(b)+"```\n") {
			t.Errorf("docs/ci.md does not show %s as it is", ex)
		}
		workflows[filepath.Base(ex)] = string(b)
	}
	_, files := project(t, workflows)
	if out, err := actionlint(t, files); err != nil {
		t.Errorf("actionlint: %v\n%s", err, out)
	}
}

// TestActionlintReadsTheAction: a workflow that gives the action an input
// it does not have is an error, so the lint above does read action.yml.
func TestActionlintReadsTheAction(t *testing.T) {
	bad := "on: push\njobs:\n  t:\n    runs-on: ubuntu-latest\n    steps:\n      - " + uses + "\n        with: {suit: cases/docs.yaml}\n"
	_, files := project(t, map[string]string{"bad.yml": bad})
	out, err := actionlint(t, files)
	if err == nil || !strings.Contains(out, `input "suit" is not defined`) {
		t.Errorf("actionlint passed a workflow with a wrong input: %v\n%s", err, out)
	}
}

// TestShellcheck checks the action's script; actionlint runs shellcheck on
// action.yml's run lines too when it is on PATH.
func TestShellcheck(t *testing.T) {
	if _, err := exec.LookPath("shellcheck"); err != nil {
		t.Fatal("shellcheck is not installed (make sysdeps, or apt-get install shellcheck)")
	}
	if out, err := exec.Command("shellcheck", script).CombinedOutput(); err != nil {
		t.Errorf("shellcheck %s: %v\n%s", script, err, out)
	}
}
