package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/internal/record"
)

// deniedScript reads a file outside the allowed folder, which the real
// filesystem server refuses, then answers with what the matcher wants all
// the same: a model inventing the file's contents.
const deniedScript = `
models:
  - {name: scripted-good}
rules:
  - user: {contains: secret.txt}
    tool_result: {regex: "."}
    reply: {content: "The password in secret.txt is hunter2."}
  - user: {contains: secret.txt}
    reply: {tool_calls: [{name: read_text_file, arguments: {path: /etc/secret.txt}}]}
`

// runDenied runs one case whose expected read_text_file the real
// filesystem server denies; expect is added to the case's expect.
func runDenied(t *testing.T, expect string) (*record.Trial, result) {
	t.Helper()
	script, err := fakeollama.ParseScript([]byte(deniedScript), "denied.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, url := fakeOllama(t, script)
	dir := t.TempDir()
	files := filepath.Join(dir, "files")
	if err := os.Mkdir(files, 0o755); err != nil {
		t.Fatal(err)
	}
	src := fmt.Sprintf(`name: denied
servers:
  mcpServers:
    fs:
      command: node
      args: [%q, %q]
      toolFilter: {mode: include, tools: [read_text_file]}
models: [scripted-good]
defaults: {max_rounds: 3}
cases:
  - id: read-secret
    ask: "What is the password in secret.txt?"
    expect:
      tool: read_text_file
      args: {path: {contains: secret.txt}}
      answer: {contains: hunter2}%s
`, filesystemServer(t), files, expect)
	suite := filepath.Join(dir, "denied.yaml")
	if err := os.WriteFile(suite, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "run")
	r := runCLI(t, context.Background(), "run", suite, "--out", out, "--ollama", url)
	var trials []*record.Trial
	if err := readTrials(out, os.Stderr, func(tr *record.Trial) { trials = append(trials, tr) }); err != nil || len(trials) != 1 {
		t.Fatalf("%d trials, err %v\n%s", len(trials), err, r.stderr)
	}
	return trials[0], r
}

// An answer that matches cannot pass on a read the server denied: it rests
// on no result of the tool.
func TestADeniedExpectedCallDoesNotPass(t *testing.T) {
	t.Parallel()
	tr, r := runDenied(t, "")
	ex := tr.Transcript.Executions()
	if len(ex) != 1 || ex[0].ErrorKind != record.ExecToolError || !strings.Contains(ex[0].Error, "Access denied - path outside allowed directories") {
		t.Fatalf("executions %+v", ex)
	}
	if tr.Score.Outcome != record.OutcomeCallFailed || tr.Score.FailedCalls != 1 ||
		!strings.HasPrefix(tr.Score.Detail, "read_text_file: tool_error: Access denied - path outside allowed directories") {
		t.Errorf("outcome %s (%s), failed calls %d", tr.Score.Outcome, tr.Score.Detail, tr.Score.FailedCalls)
	}
	if !strings.Contains(r.stdout, "call_failed (1)") {
		t.Errorf("stdout:\n%s", r.stdout)
	}
}

// A case about error handling allows it: the trial passes, and the report
// lists it as a pass with a failed call, beside the failed-call rate.
func TestACaseMayAllowItsCallToFail(t *testing.T) {
	t.Parallel()
	tr, r := runDenied(t, "\n      call_may_fail: true")
	if tr.Score.Outcome != record.OutcomePass || tr.Score.FailedCalls != 1 {
		t.Fatalf("outcome %s (%s), failed calls %d", tr.Score.Outcome, tr.Score.Detail, tr.Score.FailedCalls)
	}
	for _, want := range []string{"│ Failed call ", "pass with a failed call (1)\n    read-secret #0: read_text_file: tool_error: Access denied - path outside allowed directories",
		`answered "The password in secret.txt is hunter2."`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("no %q in stdout:\n%s", want, r.stdout)
		}
	}
}
