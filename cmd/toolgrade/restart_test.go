package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/internal/mcpclient"
	"github.com/toolgrade/toolgrade/internal/record"
)

// TestRunCountsServerRestarts: a stdio server that crashes mid-run is
// restarted for the next trial, and run.json, summary.json and the report
// say how often.
func TestRunCountsServerRestarts(t *testing.T) {
	t.Parallel()
	script, err := fakeollama.ParseScript([]byte(`
models:
  - {name: scripted-good}
rules:
  - tool_result: {regex: "."}
    reply: {content: done}
  - user: {contains: crash}
    reply: {tool_calls: [{name: crash, arguments: {}}]}
  - user: {contains: echo}
    reply: {tool_calls: [{name: echo, arguments: {text: hi}}]}
`), "script.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, url := fakeOllama(t, script)
	dir := t.TempDir()
	suite := filepath.Join(dir, "suite.yaml")
	if err := os.WriteFile(suite, []byte(`name: crashes
servers: `+serversFile(t, "faulty")+`
models: [scripted-good]
cases:
  - id: a-crash
    ask: "Please crash."
    expect: {tool: crash}
  - id: b-echo
    ask: "Please echo hi."
    expect: {tool: echo, args: {text: hi}}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "run")
	r := runCLI(t, context.Background(), "run", suite, "--out", out, "--ollama", url, "--parallel", "1")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	meta, err := record.ReadRun(out)
	if err != nil {
		t.Fatal(err)
	}
	// The crash is an infrastructure error, after every attempt; the trial
	// after it passed.
	var outcomes []string
	crashes := 0
	if err := readTrials(out, os.Stderr, func(tr *record.Trial) {
		outcomes = append(outcomes, tr.CaseID+"="+tr.Score.Outcome)
		if tr.CaseID == "a-crash" {
			crashes = tr.Attempts
		}
	}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(outcomes, " "); got != "a-crash=infra_error b-echo=pass" {
		t.Errorf("outcomes %s", got)
	}
	// Each crash is followed by a call: another attempt, or the next trial.
	if len(meta.Servers) != 1 || meta.Servers[0].Restarts != crashes || crashes == 0 {
		t.Errorf("run.json servers %+v, want faulty with %d restarts", meta.Servers, crashes)
	}
	if want := fmt.Sprintf("server restarts: faulty %d\n", crashes); !strings.Contains(r.stdout, want) {
		t.Errorf("report lacks %q:\n%s", want, r.stdout)
	}
	sum, err := os.ReadFile(filepath.Join(out, record.SummaryFile))
	if want := fmt.Sprintf(`"faulty": %d`, crashes); err != nil || !strings.Contains(string(sum), want) {
		t.Errorf("summary.json lacks %s (%v):\n%s", want, err, sum)
	}
}

// TestMaxResultBytesFlag: --max-result-bytes reaches mcpclient.Options, and
// values that would mean nothing are refused.
func TestMaxResultBytesFlag(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want int
		bad  bool
	}{
		{nil, mcpclient.DefaultMaxResultBytes, false},
		{[]string{"--max-result-bytes", "2000"}, 2000, false},
		{[]string{"--max-result-bytes", "-1"}, -1, false},
		{[]string{"--max-result-bytes", "0"}, 0, true},
		{[]string{"--max-result-bytes", "-2"}, 0, true},
	} {
		var sf serverFlags
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		sf.register(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		o, err := sf.options(io.Discard)
		switch {
		case tc.bad && (err == nil || !strings.Contains(err.Error(), "--max-result-bytes")):
			t.Errorf("%v: err %v, want a usage error naming the flag", tc.args, err)
		case !tc.bad && (err != nil || o.MaxResultBytes != tc.want):
			t.Errorf("%v: %v, MaxResultBytes %d, want %d", tc.args, err, o.MaxResultBytes, tc.want)
		}
	}
}
