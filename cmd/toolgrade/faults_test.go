package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/internal/record"
)

// syncBuffer is a buffer that one goroutine writes while another reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor polls cond; the deadline only guards against a deadlock.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func countLines(dir string) int {
	b, _ := os.ReadFile(filepath.Join(dir, record.TrialsFile))
	return bytes.Count(b, []byte("\n"))
}

// restartable is a fake Ollama on a fixed loopback port that can be killed
// (listener and connections closed) and started again on the same port.
type restartable struct {
	t    *testing.T
	addr string
	h    http.Handler
	mu   sync.Mutex
	srv  *http.Server
	done chan struct{}
}

func newRestartable(t *testing.T, s *fakeollama.Script) *restartable {
	r := &restartable{t: t, addr: "127.0.0.1:0", h: fakeollama.New(s, &fakeollama.Options{Latency: -1})}
	r.start()
	t.Cleanup(r.stop)
	return r
}

func (r *restartable) start() {
	ln, err := net.Listen("tcp", r.addr)
	if err != nil {
		r.t.Fatal(err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.addr = ln.Addr().String()
	r.srv = &http.Server{Handler: r.h}
	r.done = make(chan struct{})
	go func(srv *http.Server, done chan struct{}) {
		srv.Serve(ln)
		close(done)
	}(r.srv, r.done)
}

func (r *restartable) stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.srv != nil {
		r.srv.Close()
		<-r.done
		r.srv = nil
	}
}

func TestOllamaRestartedMidRunLosesNoTrial(t *testing.T) {
	t.Parallel()
	ol := newRestartable(t, slowDemo(t))
	url := "http://" + ol.addr
	dir := filepath.Join(t.TempDir(), "run")
	var stdout, stderr syncBuffer
	errc := make(chan error, 1)
	go func() {
		errc <- run(context.Background(), []string{"run", docsSuite(t), "--out", dir, "--ollama", url, "--parallel", "2"},
			strings.NewReader(""), &stdout, &stderr)
	}()
	waitFor(t, "5 trials", func() bool { return countLines(dir) >= 5 })
	ol.stop()
	waitFor(t, "the run to wait for Ollama", func() bool {
		return strings.Contains(stderr.String(), "toolgrade: Ollama at "+url+" unreachable; waiting (")
	})
	ol.start()
	if err := <-errc; err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	keys := readTrialKeys(t, dir)
	if len(keys) != 2*25 {
		t.Errorf("%d distinct trials, want 50", len(keys))
	}
	if err := readTrials(dir, os.Stderr, func(tr *record.Trial) {
		if tr.Score.Outcome == record.OutcomeInfraError {
			t.Errorf("%s/%s left as infra_error: %s", tr.Model, tr.CaseID, tr.Transcript.Failure.Message)
		}
	}); err != nil {
		t.Fatal(err)
	}
	if n := countLines(dir); n != 50 {
		t.Errorf("%d lines, want 50: a trial was written twice", n)
	}
	if meta, _ := record.ReadRun(dir); meta.Status != "complete" {
		t.Errorf("status %q", meta.Status)
	}
}

func TestAnOllamaThatStaysDownInterruptsTheRunWithExit3(t *testing.T) {
	t.Parallel()
	ol := newRestartable(t, slowDemo(t))
	url := "http://" + ol.addr
	dir := filepath.Join(t.TempDir(), "run")
	var stdout, stderr syncBuffer
	errc := make(chan error, 1)
	go func() {
		errc <- run(context.Background(), []string{"run", docsSuite(t), "--out", dir, "--ollama", url, "--wait-ollama", "2s"},
			strings.NewReader(""), &stdout, &stderr)
	}()
	waitFor(t, "3 trials", func() bool { return countLines(dir) >= 3 })
	ol.stop()
	err := <-errc
	if code := exitCode(err, false); code != exitInfra || !strings.Contains(err.Error(), "Ollama stayed unreachable for 2s") {
		t.Fatalf("exit %d: %v\n%s", code, err, stderr.String())
	}
	meta, _ := record.ReadRun(dir)
	if meta.Status != "interrupted" || !strings.Contains(meta.Error, "unreachable") {
		t.Errorf("status %q, error %q", meta.Status, meta.Error)
	}
	readTrials(dir, os.Stderr, func(tr *record.Trial) {
		if tr.Score.Outcome == record.OutcomeInfraError {
			t.Errorf("%s/%s written as infra_error", tr.Model, tr.CaseID)
		}
	})
	if !strings.Contains(stderr.String(), "--resume "+dir) {
		t.Errorf("stderr does not say how to resume:\n%s", stderr.String())
	}
}

// silentOllama accepts connections and never answers, as a hung server.
func silentOllama(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		for _, c := range conns {
			c.Close()
		}
	})
	return "http://" + ln.Addr().String()
}

func TestAHungOllamaTimesOutAtStartUp(t *testing.T) {
	t.Parallel()
	url := silentOllama(t)
	for _, args := range [][]string{
		{"run", docsSuite(t), "--out", filepath.Join(t.TempDir(), "run"), "--ollama", url, "--ollama-timeout", "200ms"},
		{"ask", "--servers", serversFile(t, "docs"), "--model", "scripted-good", "--ollama", url, "--ollama-timeout", "200ms", "Hi?"},
	} {
		r := runCLI(t, context.Background(), args...)
		if r.code != exitInfra || !strings.Contains(r.err.Error(), "Ollama at "+url+" did not answer its version request within 200ms") {
			t.Errorf("%s: exit %d: %v", args[0], r.code, r.err)
		}
	}
}

func TestAStalledStreamIsAnInfraError(t *testing.T) {
	t.Parallel()
	s, err := fakeollama.DemoScript()
	if err != nil {
		t.Fatal(err)
	}
	stall := fakeollama.Rule{User: &fakeollama.Matcher{Equals: "Can I bring my dog?"}, Fault: fakeollama.FaultStall,
		Reply: fakeollama.Reply{Content: "Let me see whether dogs are welcome.", Chunks: 4}}
	s.Rules = append([]fakeollama.Rule{stall}, s.Rules...)
	_, url := fakeOllama(t, s)
	dir := filepath.Join(t.TempDir(), "run")
	r := runCLI(t, context.Background(), "run", docsSuite(t), "--out", dir, "--ollama", url, "--models", "scripted-good",
		"--ollama-idle-timeout", "200ms", "--retries", "1")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	var dog *record.Trial
	readTrials(dir, os.Stderr, func(tr *record.Trial) {
		if tr.CaseID == "dog" {
			dog = tr
		}
	})
	if dog == nil || dog.Score.Outcome != record.OutcomeInfraError || dog.Attempts != 2 ||
		dog.Transcript.Failure == nil || dog.Transcript.Failure.Message != "no response from Ollama for 200ms" {
		t.Fatalf("dog: %+v", dog)
	}
}

func TestASecondWriterIsRefusedNamingThePID(t *testing.T) {
	t.Parallel()
	_, url := fakeOllama(t, slowDemo(t))
	suite := docsSuite(t)
	dir := filepath.Join(t.TempDir(), "run")
	cmd, _, _ := child(t, "run", suite, "--out", dir, "--ollama", url)
	waitTrials(t, dir, 3)
	r := runCLI(t, context.Background(), "run", "--resume", dir, "--ollama", url)
	want := fmt.Sprintf("run directory %s is in use by process %d", dir, cmd.Process.Pid)
	if r.code != exitUsage || r.err == nil || !strings.Contains(r.err.Error(), want) {
		t.Errorf("resume beside a running run: exit %d: %v; want %q", r.code, r.err, want)
	}
	r = runCLI(t, context.Background(), "run", suite, "--out", dir, "--ollama", url)
	if r.code != exitUsage || r.err == nil || !strings.Contains(r.err.Error(), "in use by process") && !strings.Contains(r.err.Error(), "already holds a run") {
		t.Errorf("fresh run beside a running run: exit %d: %v", r.code, r.err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the first run: %v", err)
	}
	for k, n := range readTrialKeys(t, dir) {
		if n != 1 {
			t.Errorf("%v written %d times", k, n)
		}
	}
	if n := countLines(dir); n != 50 {
		t.Errorf("%d lines, want 50", n)
	}
}

func TestAFreshRunIntoANonEmptyDirectoryIsRefused(t *testing.T) {
	t.Parallel()
	srv, url := fakeOllama(t, nil)
	dir := t.TempDir()
	old := []byte(`{"model":"old","case":"x","repeat":0}` + "\n")
	os.WriteFile(filepath.Join(dir, record.TrialsFile), old, 0o644)
	r := runCLI(t, context.Background(), "run", docsSuite(t), "--out", dir, "--ollama", url)
	if r.code != exitUsage || !strings.Contains(r.err.Error(), "is not empty (trials.jsonl)") {
		t.Errorf("exit %d: %v", r.code, r.err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, record.TrialsFile)); !bytes.Equal(b, old) {
		t.Errorf("the old trials changed:\n%s", b)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests to Ollama before the refusal", n)
	}
}

func TestResumeRerunsAnInfraErrorTrialAndTheReportCountsItOnce(t *testing.T) {
	t.Parallel()
	s, err := fakeollama.DemoScript()
	if err != nil {
		t.Fatal(err)
	}
	broken := fakeollama.Rule{User: &fakeollama.Matcher{Equals: "Can I bring my dog?"}, Fault: fakeollama.FaultHTTP500}
	s.Rules = append([]fakeollama.Rule{broken}, s.Rules...)
	_, brokenURL := fakeOllama(t, s)
	_, url := fakeOllama(t, nil)
	suite := docsSuite(t)
	dir := filepath.Join(t.TempDir(), "run")
	if r := runCLI(t, context.Background(), "run", suite, "--out", dir, "--ollama", brokenURL, "--models", "scripted-good"); r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	summary := func() (trials, infra int) {
		r := runCLI(t, context.Background(), "report", dir, "--json")
		var sum struct {
			Models []struct {
				Trials int `json:"trials"`
				Infra  int `json:"infra_errors"`
			} `json:"models"`
		}
		if r.err != nil || json.Unmarshal([]byte(r.stdout), &sum) != nil || len(sum.Models) != 1 {
			t.Fatalf("report: %v\n%s", r.err, r.stdout)
		}
		return sum.Models[0].Trials, sum.Models[0].Infra
	}
	if n, infra := summary(); n != 25 || infra != 1 {
		t.Fatalf("first run: %d trials, %d infra errors", n, infra)
	}
	// --retry-infra=false keeps the old rule: an infra_error trial is done.
	if r := runCLI(t, context.Background(), "run", "--resume", dir, "--ollama", url, "--retry-infra=false"); r.err != nil || countLines(dir) != 25 {
		t.Fatalf("resume without retry-infra: %v, %d lines", r.err, countLines(dir))
	}
	if r := runCLI(t, context.Background(), "run", "--resume", dir, "--ollama", url); r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	if n := countLines(dir); n != 26 {
		t.Errorf("%d lines after resuming, want 26 (the rerun appended)", n)
	}
	if n, infra := summary(); n != 25 || infra != 0 {
		t.Errorf("after resume: %d trials, %d infra errors; want 25 and 0", n, infra)
	}
}

func TestADiskFullRunSaysSoAndEndsFailed(t *testing.T) {
	t.Parallel()
	_, url := fakeOllama(t, nil)
	dir := filepath.Join(t.TempDir(), "run")
	if r := runCLI(t, context.Background(), "run", docsSuite(t), "--out", dir, "--ollama", url, "--models", "scripted-good"); r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	// /dev/full takes opens and refuses writes with ENOSPC, as a full disk
	// does (a read-only chmod does not stop root).
	// summary.json is written through a temporary file renamed over it, so
	// the temporary file is the one that meets the full disk.
	for _, f := range []string{record.TrialsFile, record.SummaryFile + ".tmp"} {
		p := filepath.Join(dir, f)
		os.Remove(p)
		if err := os.Symlink("/dev/full", p); err != nil {
			t.Skip(err)
		}
	}
	r := runCLI(t, context.Background(), "run", "--resume", dir, "--ollama", url)
	if r.err == nil || r.code != exitFailed || !strings.HasPrefix(r.err.Error(), "writing trials: ") ||
		!strings.Contains(r.err.Error(), "no space left on device") {
		t.Fatalf("exit %d: %v\n%s", r.code, r.err, r.stderr)
	}
	meta, err := record.ReadRun(dir)
	if err != nil || meta.Status != "failed" || meta.Error != r.err.Error() {
		t.Errorf("run.json: %v, %+v", err, meta)
	}
	if !strings.Contains(r.stderr, "toolgrade: warning: ") || !strings.Contains(r.stderr, record.SummaryFile) {
		t.Errorf("the summary's failure is not a warning:\n%s", r.stderr)
	}
	for _, tmp := range []string{record.RunFile + ".tmp", record.SummaryFile + ".tmp"} {
		if _, err := os.Lstat(filepath.Join(dir, tmp)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: %v", tmp, err)
		}
	}
}

func TestPrintErrorSkipsTheCancellationOfCtrlC(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	printError(&b, context.Canceled, true)
	printError(&b, fmt.Errorf("x: %w", context.Canceled), true)
	if b.Len() != 0 {
		t.Errorf("printed %q", b.String())
	}
	printError(&b, errors.New("disk full"), true)
	printError(&b, context.Canceled, false)
	if b.String() != "toolgrade: disk full\ntoolgrade: context canceled\n" {
		t.Errorf("printed %q", b.String())
	}
}
