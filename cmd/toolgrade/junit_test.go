package main

import (
	"context"
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestRunWritesJUnitAndReportRebuildsIt: `run --junit FILE` against the
// fake Ollama writes the JUnit report of the run, and `report DIR --format junit`
// writes the same bytes from the run directory alone.
func TestRunWritesJUnitAndReportRebuildsIt(t *testing.T) {
	t.Parallel()
	_, url := fakeOllama(t, nil)
	tmp := t.TempDir()
	dir, fromRun, fromReport := filepath.Join(tmp, "run"), filepath.Join(tmp, "run.xml"), filepath.Join(tmp, "report.xml")
	r := runCLI(t, context.Background(), "run", docsSuite(t), "--out", dir, "--ollama", url, "--repeat", "2", "--parallel", "2", "--junit", fromRun)
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	got, err := os.ReadFile(fromRun)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Errors   int `xml:"errors,attr"`
		Suites   []struct {
			Name     string `xml:"name,attr"`
			Tests    int    `xml:"tests,attr"`
			Failures int    `xml:"failures,attr"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(got, &doc); err != nil {
		t.Fatalf("%v\n%s", err, got)
	}
	// The demo: scripted-good passes every case, scripted-weak fails 14 of 25.
	if doc.Tests != 50 || doc.Failures != 14 || doc.Errors != 0 || len(doc.Suites) != 2 ||
		doc.Suites[0].Name != "scripted-good" || doc.Suites[0].Failures != 0 || doc.Suites[1].Name != "scripted-weak" || doc.Suites[1].Failures != 14 {
		t.Errorf("run's JUnit: %+v", doc)
	}
	if !strings.Contains(string(got), `<property name="run.status" value="complete">`) {
		t.Errorf("run's JUnit does not say the run is complete:\n%s", got)
	}
	rep := runCLI(t, context.Background(), "report", dir, "--format", "junit", "-o", fromReport)
	if rep.err != nil {
		t.Fatalf("%v\n%s", rep.err, rep.stderr)
	}
	again, err := os.ReadFile(fromReport)
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != string(got) {
		t.Errorf("report --format junit differs from run --junit:\n%s\n---\n%s", again, got)
	}
	if rep.stdout != "" {
		t.Errorf("report --format junit -o FILE printed:\n%s", rep.stdout)
	}
}

// TestAnInterruptedRunStillWritesJUnit: CI reads the JUnit file whatever
// stopped the run; the file says the run is partial. A resume, with no
// --junit of its own, rewrites the same file once the run is whole.
func TestAnInterruptedRunStillWritesJUnit(t *testing.T) {
	t.Parallel()
	_, url := fakeOllama(t, slowDemo(t))
	tmp := t.TempDir()
	dir, path := filepath.Join(tmp, "run"), filepath.Join(tmp, "junit.xml")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr syncBuffer
	errc := make(chan error, 1)
	go func() {
		errc <- run(ctx, []string{"run", docsSuite(t), "--out", dir, "--ollama", url, "--junit", path}, strings.NewReader(""), &stdout, &stderr)
	}()
	waitFor(t, "3 trials", func() bool { return countLines(dir) >= 3 })
	cancel()
	if err := <-errc; err == nil {
		t.Fatal("no error after cancellation")
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no JUnit file after an interrupt: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(string(got), `<property name="run.status" value="interrupted">`) || !strings.Contains(string(got), `<testcase name=`) {
		t.Errorf("the JUnit file of an interrupted run:\n%s", got)
	}
	r := runCLI(t, context.Background(), "run", "--resume", dir, "--ollama", url)
	if r.code != exitOK {
		t.Fatalf("resume: exit %d: %v\n%s", r.code, r.err, r.stderr)
	}
	if !regexp.MustCompile(`toolgrade: resuming .*: \d+ of the 50 trials of 25 cases × 2 models × 1 repeat ran before; \d+ to run\n`).MatchString(r.stderr) {
		t.Errorf("the resume does not say what ran before:\n%s", r.stderr)
	}
	again := runCLI(t, context.Background(), "run", "--resume", dir, "--ollama", url)
	if want := "all 50 trials of 25 cases × 2 models × 1 repeat already ran; nothing to run"; !strings.Contains(again.stderr, want) || strings.Contains(again.stderr, "pass 0/0") {
		t.Errorf("resuming a finished run:\n%s\nwant it to say %q", again.stderr, want)
	}
	got, err = os.ReadFile(path)
	if err != nil || !strings.Contains(string(got), `<property name="run.status" value="complete">`) {
		t.Errorf("the JUnit file after the resume (%v):\n%s", err, got)
	}
}
