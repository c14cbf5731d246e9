package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/store"
)

// docsSuite copies cases/docs.yaml into a temporary folder with its servers
// file pointing at this test binary as `toolgrade fake-mcp docs`.
func docsSuite(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../cases/docs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(b), "servers: servers/docs.json", "servers: "+serversFile(t, "docs"), 1)
	if text == string(b) {
		t.Fatal("cases/docs.yaml no longer names servers/docs.json")
	}
	p := filepath.Join(t.TempDir(), "docs.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func readTrialKeys(t *testing.T, dir string) map[record.TrialKey]int {
	t.Helper()
	keys := map[record.TrialKey]int{}
	if err := readTrials(dir, os.Stderr, func(tr *record.Trial) { keys[tr.Key()]++ }); err != nil {
		t.Fatal(err)
	}
	return keys
}

func TestRunWritesTheRunAndReportRebuildsIt(t *testing.T) {
	t.Parallel()
	_, url := fakeOllama(t, nil)
	dir := filepath.Join(t.TempDir(), "run")
	r := runCLI(t, context.Background(), "run", docsSuite(t), "--out", dir, "--ollama", url, "--repeat", "2", "--parallel", "3")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	for _, w := range []string{"scripted-good", "scripted-weak", "100% [", "Failures of scripted-weak:", "invalid_args (2)",
		"pass@2", "pass^2", "Wilson"} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("report lacks %q:\n%s", w, r.stdout)
		}
	}
	meta, err := record.ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if meta.Status != "complete" || meta.Repeat != 2 || meta.BaseSeed != 42 || len(meta.Models) != 2 ||
		meta.Models[0].Digest == "" || meta.Models[0].Load == 0 || meta.CatalogHash == "" || meta.Ollama.Version != "0.17.4" || meta.End.IsZero() ||
		meta.Harness != version() {
		t.Errorf("run.json: %+v", meta)
	}
	// Every case's hash, as the suite computes it, so a comparison can tell
	// a case edited under the same id.
	if len(meta.Cases) != 25 || len(meta.Cases["dog"]) != 64 || meta.Cases["dog"] == meta.Cases["greeting"] || len(meta.Cases["greeting"]) != 64 {
		t.Errorf("run.json cases: %v", meta.Cases)
	}
	keys := readTrialKeys(t, dir)
	if len(keys) != 2*2*25 {
		t.Errorf("%d distinct trials", len(keys))
	}
	saved, err := os.ReadFile(filepath.Join(dir, record.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	// The report comes back from the files alone, byte for byte.
	rep := runCLI(t, context.Background(), "report", dir, "--json")
	if rep.err != nil || rep.stdout != string(saved) {
		t.Errorf("report --json differs from summary.json (err %v):\n%s\n---\n%s", rep.err, rep.stdout, saved)
	}
	table := runCLI(t, context.Background(), "report", dir)
	if table.err != nil || table.stdout != r.stdout {
		t.Errorf("report's table differs from run's (err %v):\n%s\n---\n%s", table.err, table.stdout, r.stdout)
	}
}

func TestRunRejectsBadSuitesBeforeAnyModel(t *testing.T) {
	t.Parallel()
	fake, url := fakeOllama(t, nil)
	dir := t.TempDir()
	servers := serversFile(t, "docs")
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(text), 0o644)
		return p
	}
	broken := write("broken.yaml", "name: x\nservers: "+servers+"\ncases:\n  - id: a\n    ask: hi\n    expct: {no_tool: true}\n")
	typo := write("typo.yaml", "name: x\nservers: "+servers+"\nmodels: [scripted-good]\ncases:\n  - id: a\n    ask: hi\n    expect: {tool: serch}\n")
	badArg := write("badarg.yaml", "name: x\nservers: "+servers+"\nmodels: [scripted-good]\ncases:\n  - id: a\n    ask: hi\n    expect: {tool: search, args: {top_k: five}}\n")
	for _, tc := range []struct {
		file string
		want []string
	}{
		{broken, []string{broken + ":6:5", "expct"}},
		{typo, []string{typo + ":7:", `did you mean "search"`}},
		{badArg, []string{badArg + ":7:", "top_k"}},
	} {
		r := runCLI(t, context.Background(), "run", tc.file, "--out", filepath.Join(dir, "out"), "--ollama", url)
		if r.code != exitUsage {
			t.Errorf("%s: code %d err %v", tc.file, r.code, r.err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(r.err.Error(), w) {
				t.Errorf("error %q lacks %q", r.err, w)
			}
		}
	}
	for _, req := range fake.Requests() {
		if req.Chat != nil {
			t.Errorf("a chat request was sent for a bad suite: %s", req.Body)
		}
	}
}

// child starts this test binary as `toolgrade ARGS...`.
func child(t *testing.T, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, args...)
	cmd.Env = append(os.Environ(), mainEnv+"=1", "GORACE="+raceQuickExit())
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return cmd, &out, &errb
}

func waitTrials(t *testing.T, dir string, n int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		b, _ := os.ReadFile(filepath.Join(dir, record.TrialsFile))
		if bytes.Count(b, []byte("\n")) >= n {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("fewer than %d trials written in time", n)
}

// slowDemo is the demo script with 15ms before each answer, so a run lasts
// long enough to be killed in the middle.
func slowDemo(t *testing.T) *fakeollama.Script {
	s, err := fakeollama.DemoScript()
	if err != nil {
		t.Fatal(err)
	}
	s.Latency = 15 * time.Millisecond
	return s
}

func TestResumeAfterAKilledRunRepeatsNoTrial(t *testing.T) {
	t.Parallel()
	_, url := fakeOllama(t, slowDemo(t))
	suite := docsSuite(t)
	dir := filepath.Join(t.TempDir(), "run")
	cmd, _, stderr := child(t, "run", suite, "--out", dir, "--ollama", url, "--repeat", "2", "--parallel", "2")
	waitTrials(t, dir, 7)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	before := readTrialKeys(t, dir)
	if len(before) >= 100 {
		t.Fatalf("the run finished before it was killed (%d trials)\n%s", len(before), stderr)
	}
	meta, _ := record.ReadRun(dir)
	if meta.Status != "running" {
		t.Errorf("a killed run says %q", meta.Status)
	}

	r := runCLI(t, context.Background(), "run", "--resume", dir, "--ollama", url)
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	after := readTrialKeys(t, dir)
	if len(after) != 100 {
		t.Errorf("%d distinct trials after resuming, want 100", len(after))
	}
	for k, n := range after {
		if n != 1 {
			t.Errorf("trial %+v appears %d times", k, n)
		}
	}
	if meta, _ := record.ReadRun(dir); meta.Status != "complete" {
		t.Errorf("status after resume %q", meta.Status)
	}
}

func TestInterruptStopsCleanlyWith130(t *testing.T) {
	t.Parallel()
	_, url := fakeOllama(t, slowDemo(t))
	dir := filepath.Join(t.TempDir(), "run")
	cmd, stdout, stderr := child(t, "run", docsSuite(t), "--out", dir, "--ollama", url)
	waitTrials(t, dir, 5)
	cmd.Process.Signal(os.Interrupt)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted {
		t.Fatalf("exit %v, want %d\n%s", err, exitInterrupted, stderr)
	}
	meta, _ := record.ReadRun(dir)
	if meta.Status != "interrupted" {
		t.Errorf("status %q", meta.Status)
	}
	if !strings.Contains(stdout.String(), "partial results") || !strings.Contains(stdout.String(), "scripted-good") {
		t.Errorf("no partial report:\n%s", stdout)
	}
	if !strings.Contains(stderr.String(), "--resume "+dir) {
		t.Errorf("stderr does not say how to resume:\n%s", stderr)
	}
	if strings.Contains(stderr.String(), "context canceled") {
		t.Errorf("a stray cancellation error after the interrupt's message:\n%s", stderr)
	}
	// The models run interleaved: the trials written are both models'.
	var sum struct{ Models []struct{ Trials int } }
	b, _ := os.ReadFile(filepath.Join(dir, record.SummaryFile))
	err = json.Unmarshal(b, &sum)
	trials := 0
	for _, m := range sum.Models {
		trials += m.Trials
	}
	if err != nil || len(sum.Models) == 0 || trials < 5 {
		t.Errorf("summary.json after interrupt: %s", b)
	}
}

// TestFilesSuiteOnTheRealFilesystemServer runs the shipped files suite as
// is: the real @modelcontextprotocol/server-filesystem over stdio.
func TestFilesSuiteOnTheRealFilesystemServer(t *testing.T) {
	t.Parallel()
	filesystemServer(t) // fails with a hint when `make deps` has not run
	_, url := fakeOllama(t, nil)
	dir := filepath.Join(t.TempDir(), "run")
	r := runCLI(t, context.Background(), "run", "../../cases/files.yaml", "--out", dir, "--ollama", url)
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	weak := map[string]string{
		"database-port":   record.OutcomeEmptyAnswer, // read_file is not offered, so Ollama swallows the call
		"database-host":   record.OutcomeNoCall,
		"list-directory":  record.OutcomeCallFailed, // "/" is outside the allowed directory: denied
		"find-conf-files": record.OutcomeInvalidArgs,
		"file-size":       record.OutcomeWrongTool,
		"off-topic":       record.OutcomeUnexpectedCall,
	}
	n := 0
	err := readTrials(dir, os.Stderr, func(tr *record.Trial) {
		n++
		want := record.OutcomePass
		if tr.Model == "scripted-weak" {
			want = weak[tr.CaseID]
		}
		if tr.Score.Outcome != want {
			t.Errorf("%s/%s: %s (%s), want %s", tr.Model, tr.CaseID, tr.Score.Outcome, tr.Score.Detail, want)
		}
		if tr.Model == "scripted-good" && tr.CaseID == "database-port" {
			ex := tr.Transcript.Executions()
			if len(ex) != 1 || !strings.Contains(ex[0].Result, "db_port=5432") || !strings.Contains(tr.Transcript.Answer, "5432") {
				t.Errorf("database-port: %+v answer %q", ex, tr.Transcript.Answer)
			}
		}
	})
	if err != nil || n != 12 {
		t.Errorf("%d trials, err %v", n, err)
	}
}

// readTrials reads dir's trials through the store, one trial per key (its
// last line), reporting bad lines on warn.
func readTrials(dir string, warn io.Writer, fn func(*record.Trial)) error {
	warnings, err := store.ReadTrials(dir, fn)
	store.Warn(warn, warnings)
	return err
}

// TestReportRefusesANewerFormat: run.json or a trials line written by a newer
// major format is refused (exit 2) with the file, the line and what to do.
func TestReportRefusesANewerFormat(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, record.RunFile), []byte(`{"format":"2.0","status":"complete"}`), 0o644)
	r := runCLI(t, context.Background(), "report", dir)
	if r.code != exitUsage || !strings.Contains(r.err.Error(), record.RunFile+": written by a newer toolgrade (format 2.0); this one reads format 1: upgrade toolgrade") {
		t.Errorf("run.json: exit %d: %v", r.code, r.err)
	}
	os.WriteFile(filepath.Join(dir, record.RunFile), []byte(`{"format":"1.1","status":"complete"}`), 0o644)
	os.WriteFile(filepath.Join(dir, record.TrialsFile), []byte(`{"model":"m","case":"a","repeat":0}`+"\n"+`{"format":"3.0","model":"m","case":"b","repeat":0}`+"\n"), 0o644)
	r = runCLI(t, context.Background(), "report", dir, "--json")
	if r.code != exitUsage || !strings.Contains(r.err.Error(), record.TrialsFile+":2: written by a newer toolgrade (format 3.0)") {
		t.Errorf("trials.jsonl: exit %d: %v", r.code, r.err)
	}
}
