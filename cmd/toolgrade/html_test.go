package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/store"
)

// overviewStatus returns the run status embedded in a report.html page, ""
// for a complete run.
func overviewStatus(t *testing.T, page string) string {
	t.Helper()
	i := strings.Index(page, `<script type="application/json" id="overview">`)
	if i < 0 {
		t.Fatalf("no overview block in the page:\n%.400s", page)
	}
	m := regexp.MustCompile(`"status":"([a-z]+)"`).FindStringSubmatch(page[i:min(len(page), i+400)])
	if m == nil {
		return ""
	}
	return m[1]
}

func TestInterruptedRunWritesAPartialHTMLReport(t *testing.T) {
	t.Parallel()
	_, url := fakeOllama(t, slowDemo(t))
	dir := filepath.Join(t.TempDir(), "run")
	cmd, _, stderr := child(t, "run", docsSuite(t), "--out", dir, "--ollama", url)
	waitTrials(t, dir, 5)
	cmd.Process.Signal(os.Interrupt)
	cmd.Wait()
	b, err := os.ReadFile(filepath.Join(dir, record.HTMLFile))
	if err != nil {
		t.Fatalf("an interrupted run left no %s: %v\n%s", record.HTMLFile, err, stderr)
	}
	if got := overviewStatus(t, string(b)); got != store.StatusInterrupted {
		t.Errorf("the page's status is %q, want %q (marked partial)", got, store.StatusInterrupted)
	}
}

func TestReportWritesHTML(t *testing.T) {
	t.Parallel()
	_, url := fakeOllama(t, nil)
	dir := filepath.Join(t.TempDir(), "run")
	if r := runCLI(t, context.Background(), "run", docsSuite(t), "--out", dir, "--ollama", url); r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	page, err := os.ReadFile(filepath.Join(dir, record.HTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	if got := overviewStatus(t, string(page)); got != "" {
		t.Errorf("a complete run's page says %q", got)
	}
	out := filepath.Join(t.TempDir(), "r.html")
	r := runCLI(t, context.Background(), "report", dir, "--format", "html", "-o", out)
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	again, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != string(page) {
		t.Error("report --format html writes another page than run did")
	}
	if r.stdout != "" {
		t.Errorf("report --format html -o FILE printed:\n%s", r.stdout)
	}
	r = runCLI(t, context.Background(), "report", dir, "--format", "html")
	if r.err != nil || r.stdout != string(page) {
		t.Errorf("report --format html printed %d bytes (err %v), want the page alone", len(r.stdout), r.err)
	}
}

// TestCompareWritesHTML: `compare --format html -o FILE` writes one
// self-contained page of the paired comparison, and nothing to stdout.
func TestCompareWritesHTML(t *testing.T) {
	t.Parallel()
	_, url := fakeOllama(t, nil)
	dir := filepath.Join(t.TempDir(), "run")
	if r := runCLI(t, context.Background(), "run", docsSuite(t), "--out", dir, "--ollama", url); r.code != exitOK {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	out := filepath.Join(t.TempDir(), "cmp.html")
	r := runCLI(t, context.Background(), "compare", dir, "--models", "scripted-good,scripted-weak", "--format", "html", "-o", out)
	if r.err != nil || r.stdout != "" {
		t.Fatalf("compare --format html: %v\nstdout:\n%s\nstderr:\n%s", r.err, r.stdout, r.stderr)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<!DOCTYPE html>", "scripted-good", "scripted-weak", `"mode":"models"`} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	// The SVG namespace is a name, not a request.
	if rest := strings.ReplaceAll(string(page), "http://www.w3.org/2000/svg", ""); strings.Contains(rest, "http://") || strings.Contains(rest, "https://") {
		t.Error("the page refers to the network")
	}
	if r := runCLI(t, context.Background(), "compare", dir, "--models", "scripted-good,scripted-weak", "--format", "pdf"); r.code != exitUsage {
		t.Errorf("--format pdf: exit %d", r.code)
	}
}
