package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/internal/record"
)

const hugeScript = `
models:
  - {name: scripted-good, parameter_size: 8.2B}
rules:
  - user: {contains: huge}
    tool_result: {regex: "."}
    reply: {content: "It is long."}
  - user: {contains: huge}
    reply: {tool_calls: [{name: huge, arguments: {bytes: 22000000}}]}
`

// TestAHugeResultLeavesARunEveryCommandReads: a 21 MiB tool result shown
// whole to the model (--max-result-bytes -1) is cut in the record, with a
// note, so the trial line fits what every reader reads: report, show and a
// resume read the run, and run.json says complete.
//
// Nothing faster covers a trial line cut to fit: it takes a result above
// the record's 16 MiB.
func TestAHugeResultLeavesARunEveryCommandReads(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("slow: a 21 MiB tool result encoded, recorded and read again by four commands (about 5 s, 30 s under -race)")
	}
	script, err := fakeollama.ParseScript([]byte(hugeScript), "huge.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, url := fakeOllama(t, script)
	dir := t.TempDir()
	src := `name: huge
servers: ` + serversFile(t, "faulty") + `
models: [scripted-good]
cases:
  - id: huge
    ask: "Call huge and tell me how long it is."
    expect: {tool: huge, answer: {contains: long}}
`
	suitePath := filepath.Join(dir, "huge.yaml")
	if err := os.WriteFile(suitePath, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "run")
	if r := runCLI(t, context.Background(), "run", suitePath, "--out", out, "--ollama", url, "--max-result-bytes", "-1"); r.err != nil {
		t.Fatalf("run: %v\n%s", r.err, r.stderr)
	}
	st, err := os.Stat(filepath.Join(out, record.TrialsFile))
	if err != nil || st.Size() > record.MaxWrittenLine+1 {
		t.Fatalf("trials.jsonl: %v, %d bytes; want one line of at most %d", err, st.Size(), record.MaxWrittenLine)
	}
	b, _ := os.ReadFile(filepath.Join(out, record.RunFile))
	var run struct{ Status string }
	if json.Unmarshal(b, &run); run.Status != "complete" {
		t.Errorf("run.json status %q", run.Status)
	}
	var res string
	if err := readTrials(out, os.Stderr, func(tr *record.Trial) { res = tr.Transcript.Executions()[0].Result }); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(res, "of this text from the record, which keeps at most 16 MiB a trial; the model was shown all of it]") {
		t.Errorf("the recorded result ends %q", res[max(0, len(res)-200):])
	}
	for _, args := range [][]string{{"report", out}, {"show", out, "--case", "huge"}, {"run", "--resume", out, "--ollama", url}} {
		r := runCLI(t, context.Background(), args...)
		if r.err != nil || strings.Contains(r.stderr, "token too long") {
			t.Errorf("%s: %v\n%.400s", args[0], r.err, r.stderr)
		}
	}
}
