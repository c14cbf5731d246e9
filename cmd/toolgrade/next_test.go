package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestARunEndsWithWhereAndWhatNext: the run's last lines name its report
// and the commands that come next, and each of them runs as printed.
func TestARunEndsWithWhereAndWhatNext(t *testing.T) {
	t.Parallel()
	_, url := fakeOllama(t, nil)
	dir := filepath.Join(t.TempDir(), "run")
	r := runCLI(t, context.Background(), "run", docsSuite(t), "--out", dir, "--ollama", url)
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	i := strings.Index(r.stderr, "toolgrade: report: ")
	if i < 0 {
		t.Fatalf("no report line:\n%s", r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stderr[i:]), "\n")
	if want := "toolgrade: report: " + filepath.Join(dir, "report.html") + " (beside it: report.md, summary.json, trials.jsonl)"; lines[0] != want {
		t.Errorf("got  %s\nwant %s", lines[0], want)
	}
	var cmds []string
	for _, l := range lines[1:] {
		cmd, why, ok := strings.Cut(strings.TrimSpace(l), "   # ")
		if !ok || why == "" {
			t.Errorf("not a command and why: %q", l)
			continue
		}
		cmds = append(cmds, strings.TrimSpace(cmd))
	}
	want := []string{
		"toolgrade show " + dir + " --outcome fail",
		"toolgrade compare " + dir + " --models scripted-good,scripted-weak",
		"toolgrade report " + dir + " --format markdown",
	}
	if strings.Join(cmds, "\n") != strings.Join(want, "\n") {
		t.Fatalf("next:\n%s\nwant:\n%s", strings.Join(cmds, "\n"), strings.Join(want, "\n"))
	}
	for _, c := range cmds {
		args, err := shellSplit(c)
		if err != nil {
			t.Fatal(err)
		}
		if r := runCLI(t, context.Background(), args[1:]...); r.err != nil {
			t.Errorf("%s: %v\n%s", c, r.err, r.stderr)
		}
	}
}

// shellSplit splits a printed command as a shell would, with sh itself.
func shellSplit(cmd string) ([]string, error) {
	out, err := exec.Command("sh", "-c", "set -- "+cmd+`; for a in "$@"; do printf '%s\0' "$a"; done`).Output()
	if err != nil {
		return nil, err
	}
	return strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00"), nil
}

// TestAModelOfTheSuiteNotPulledSaysWhereItIsWritten: a misspelled name in
// the suite's models: is reported at its place in the suite, with the name
// meant; one given with --models is the flag's, with no place.
func TestAModelOfTheSuiteNotPulledSaysWhereItIsWritten(t *testing.T) {
	t.Parallel()
	_, url := fakeOllama(t, nil)
	text := "name: typo\nservers: " + serversFile(t, "docs") + "\nmodels:\n  - scripted-good\n  - scripted-goood\ncases:\n  - {id: a, ask: hi, expect: {no_tool: true}}\n"
	suite := filepath.Join(t.TempDir(), "typo.yaml")
	if err := os.WriteFile(suite, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, context.Background(), "run", suite, "--ollama", url, "--out", filepath.Join(t.TempDir(), "r"))
	want := suite + `:5:5: models: model "scripted-goood" is not pulled on Ollama at `
	if r.err == nil || !strings.Contains(r.err.Error(), want) || !strings.Contains(r.err.Error(), `did you mean "scripted-good"?`) {
		t.Errorf("err %v\nwant it to hold %s", r.err, want)
	}
	r = runCLI(t, context.Background(), "run", suite, "--ollama", url, "--models", "scripted-goood", "--out", filepath.Join(t.TempDir(), "r"))
	if r.err == nil || strings.Contains(r.err.Error(), suite) {
		t.Errorf("--models: err %v", r.err)
	}
}
