package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/record"
)

func TestReportFormats(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := recordedRun(t)
	terminal := runCLI(t, ctx, "report", dir)
	if terminal.err != nil || !strings.Contains(terminal.stdout, "Wilson") {
		t.Fatalf("report: %v\n%s%s", terminal.err, terminal.stdout, terminal.stderr)
	}
	if r := runCLI(t, ctx, "report", dir, "--format", "terminal"); r.stdout != terminal.stdout {
		t.Errorf("--format terminal differs from the default:\n%s", r.stdout)
	}
	asJSON := runCLI(t, ctx, "report", dir, "--json")
	if r := runCLI(t, ctx, "report", dir, "--format", "json"); r.err != nil || r.stdout != asJSON.stdout || !strings.HasPrefix(r.stdout, "{\n  \"format\": \""+record.Format) {
		t.Errorf("--format json differs from --json (%v):\n%s", r.err, r.stdout)
	}
	md := runCLI(t, ctx, "report", dir, "--format", "markdown")
	if md.err != nil || !strings.HasPrefix(md.stdout, "## toolgrade report: docs\n") || !strings.Contains(md.stdout, "| scripted-weak | 50 | 44% [26–63] |") {
		t.Errorf("--format markdown (%v):\n%s", md.err, md.stdout)
	}
	if strings.Contains(md.stdout, "Partial results") {
		t.Errorf("a complete run marked partial:\n%s", md.stdout)
	}

	// -o writes the file, replacing what was there, and nothing to stdout.
	out := filepath.Join(t.TempDir(), "report.md")
	if err := os.WriteFile(out, []byte("old report, longer than nothing\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, ctx, "report", dir, "--format", "markdown", "-o", out)
	b, _ := os.ReadFile(out)
	if r.err != nil || r.stdout != "" || string(b) != md.stdout {
		t.Errorf("-o (%v): stdout %q, file:\n%s", r.err, r.stdout, b)
	}
	if fi, err := os.Stat(out); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("-o file mode: %v %v", fi.Mode(), err)
	}
	// A report that fails leaves the file as it was and no temporary file:
	// here a run whose trials a newer toolgrade wrote.
	newer := recordedRun(t)
	if err := os.WriteFile(filepath.Join(newer, record.TrialsFile), []byte(`{"format":"9.0","model":"m","case":"c"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, ctx, "report", newer, "--format", "markdown", "-o", out)
	if r.code != exitUsage || !strings.Contains(r.err.Error(), "written by a newer toolgrade") {
		t.Errorf("a report of newer trials: exit %d, %v", r.code, r.err)
	}
	if b2, _ := os.ReadFile(out); string(b2) != md.stdout {
		t.Errorf("a failed report replaced -o's file:\n%s", b2)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(out), "*")); len(left) != 1 {
		t.Errorf("files beside -o: %v", left)
	}

	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--format", "pdf"}, `--format "pdf": want one of terminal, json, markdown, junit, html`},
		{[]string{"--json", "--format", "markdown"}, "--json is --format json; it cannot go with --format markdown"},
	} {
		r := runCLI(t, ctx, append([]string{"report", dir}, tt.args...)...)
		if r.code != exitUsage || r.err == nil || !strings.Contains(r.err.Error(), tt.want) {
			t.Errorf("%v: exit %d, %v; want %q", tt.args, r.code, r.err, tt.want)
		}
	}
}

// TestRunWritesMarkdownAndAppendsTheStepSummary: every run leaves report.md
// in its directory, the same as `report --format markdown`, and appends it
// to GITHUB_STEP_SUMMARY's file: two runs, two reports, after what the job
// wrote before.
func TestRunWritesMarkdownAndAppendsTheStepSummary(t *testing.T) {
	_, url := fakeOllama(t, nil)
	summary := filepath.Join(t.TempDir(), "step_summary.md")
	if err := os.WriteFile(summary, []byte("an earlier step's summary\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GITHUB_STEP_SUMMARY", summary)
	suite := docsSuite(t)
	want := "an earlier step's summary\n"
	for i := range 2 {
		dir := filepath.Join(t.TempDir(), "run")
		r := runCLI(t, context.Background(), "run", suite, "--out", dir, "--ollama", url)
		if r.err != nil {
			t.Fatalf("run %d: %v\n%s", i, r.err, r.stderr)
		}
		md, err := os.ReadFile(filepath.Join(dir, record.MarkdownFile))
		if err != nil {
			t.Fatal(err)
		}
		rebuilt := runCLI(t, context.Background(), "report", dir, "--format", "markdown")
		if string(md) != rebuilt.stdout || !strings.Contains(string(md), "Run `"+dir+"`") || strings.Contains(string(md), "Partial") {
			t.Errorf("run %d: report.md differs from report --format markdown:\n%s\n---\n%s", i, md, rebuilt.stdout)
		}
		want += string(md)
	}
	got, _ := os.ReadFile(summary)
	if string(got) != want {
		t.Errorf("step summary:\n%s\nwant\n%s", got, want)
	}

	// A step summary that cannot be written warns; the run still succeeds.
	t.Setenv("GITHUB_STEP_SUMMARY", filepath.Join(t.TempDir(), "no", "such", "dir", "summary.md"))
	dir := filepath.Join(t.TempDir(), "run")
	r := runCLI(t, context.Background(), "run", suite, "--out", dir, "--ollama", url)
	if r.err != nil || !strings.Contains(r.stderr, "warning: GITHUB_STEP_SUMMARY: open ") {
		t.Errorf("unwritable step summary: %v\n%s", r.err, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, record.MarkdownFile)); err != nil {
		t.Error(err)
	}
}

// TestInterruptedRunWritesAPartialMarkdownReport: Ctrl-C still leaves
// report.md and the step summary, both saying the results are partial.
func TestInterruptedRunWritesAPartialMarkdownReport(t *testing.T) {
	_, url := fakeOllama(t, slowDemo(t))
	summary := filepath.Join(t.TempDir(), "step_summary.md")
	t.Setenv("GITHUB_STEP_SUMMARY", summary) // the child inherits it
	dir := filepath.Join(t.TempDir(), "run")
	cmd, _, stderr := child(t, "run", docsSuite(t), "--out", dir, "--ollama", url)
	waitTrials(t, dir, 5)
	cmd.Process.Signal(os.Interrupt)
	var ee *exec.ExitError
	if err := cmd.Wait(); !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted {
		t.Fatalf("exit %v, want %d\n%s", err, exitInterrupted, stderr)
	}
	md, err := os.ReadFile(filepath.Join(dir, record.MarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "> Partial results: the run is interrupted") || !strings.Contains(string(md), "| scripted-good |") {
		t.Errorf("report.md after Ctrl-C:\n%s", md)
	}
	if got, _ := os.ReadFile(summary); string(got) != string(md) {
		t.Errorf("step summary after Ctrl-C:\n%s\nwant report.md:\n%s", got, md)
	}
}
