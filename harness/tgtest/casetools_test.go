package tgtest_test

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/harness/tgtest"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/rescore"
	"github.com/toolgrade/toolgrade/internal/store"
)

// caseToolsScript plays a model that calls the factorial tool only when it
// is offered, and that is drawn to add whenever add is offered: only a case
// sent exactly its own tools passes.
const caseToolsScript = `
models: [{name: small}]
rules:
  - user: {contains: factorial}
    tools: {contains: Calculate the factorial}
    reply: {tool_calls: [{name: math_factorial, arguments: {n: 5}}]}
  - user: {contains: factorial}
    reply: {content: I have no tool for that.}
  - user: {contains: Forecast}
    tool_result: {regex: "."}
    reply: {content: It is sunny in Paris.}
  - user: {contains: Forecast}
    tools: {contains: Adds two numbers}
    reply: {tool_calls: [{name: add, arguments: {a: 1, b: 2}}]}
  - user: {contains: Forecast}
    reply: {tool_calls: [{name: weather, arguments: {city: Paris}}]}
`

// A suite whose cases bring their own tools runs in tgtest as in `toolgrade
// run`: the inline tool is offered and its call scored without execution;
// the subset case is offered the server's weather tool alone, and its call
// runs on the in-process server.
func TestRunSuiteWithCaseTools(t *testing.T) {
	s, err := tgtest.ParseSuite([]byte(caseToolsSuite), "cases.yaml")
	if err != nil {
		t.Fatal(err)
	}
	script, err := fakeollama.ParseScript([]byte(caseToolsScript), "script.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	r := newRecorder(t)
	tgtest.RunSuite(r, newServer(weatherDescription), s, &tgtest.Options{Fake: script, RunDir: dir})
	if r.anyFailed() {
		t.Fatalf("failed: fatals %q errors %q", r.fatals, r.errors)
	}
	if got := tgtest.SuiteOf(s).Cases[1].Tools[0].Exposed; got != "" {
		t.Errorf("RunSuite changed the caller's case tools: Exposed = %q", got)
	}
	run, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	trials := map[string]*record.Trial{}
	if _, err := run.Trials(func(tr *record.Trial) { trials[tr.CaseID] = tr }); err != nil {
		t.Fatal(err)
	}
	in, sub := trials["inline"], trials["subset"]
	if in == nil || sub == nil {
		t.Fatalf("trials %v, want inline and subset", trials)
	}
	if in.Score.Outcome != record.OutcomePass || !in.Transcript.NotExecuted {
		t.Errorf("inline: %s (%s), not executed %v; want a pass scored without execution", in.Score.Outcome, in.Score.Detail, in.Transcript.NotExecuted)
	}
	if n := in.Transcript.Rounds[0].Request.Tools; n != 1 {
		t.Errorf("inline: sent %d tools, want its one", n)
	}
	if sub.Score.Outcome != record.OutcomePass || sub.Transcript.NotExecuted {
		t.Fatalf("subset: %s (%s), not executed %v; want an executed pass", sub.Score.Outcome, sub.Score.Detail, sub.Transcript.NotExecuted)
	}
	if n := sub.Transcript.Rounds[0].Request.Tools; n != 1 {
		t.Errorf("subset: sent %d tools, want weather alone", n)
	}
	ex := sub.Transcript.Rounds[0].Executions
	if len(ex) != 1 || ex[0].Server != "server" || ex[0].IsError || !strings.Contains(ex[0].Result, "Sunny in Paris") {
		t.Errorf("subset: executions %+v, want weather run on the server", ex)
	}
	// The run directory records the catalogs the cases were sent, so it is
	// rescored offline like any run's.
	suitePath := filepath.Join(t.TempDir(), "cases.yaml")
	if err := os.WriteFile(suitePath, []byte(caseToolsSuite), 0o644); err != nil {
		t.Fatal(err)
	}
	re, err := rescore.Rescore(t.Context(), &rescore.Spec{Run: dir, Suite: suitePath, Out: filepath.Join(t.TempDir(), "rescored")}, &rescore.Options{Stderr: io.Discard})
	if err != nil {
		t.Fatalf("rescoring tgtest's run directory: %v", err)
	}
	passes := 0
	if _, err := re.Trials(func(tr *record.Trial) {
		if tr.Score.Outcome == record.OutcomePass {
			passes++
		}
	}); err != nil || passes != 2 {
		t.Errorf("rescored: %d passes, err %v; want both cases passing again", passes, err)
	}
}

// caseToolsSuite is a suite whose cases bring their own tools: one inline,
// one a subset of the server's.
const caseToolsSuite = `
models: [small]
cases:
  - id: inline
    ask: What is 5 factorial?
    tools:
      - name: math_factorial
        description: Calculate the factorial of a number.
        parameters: {type: object, properties: {n: {type: integer}}, required: [n]}
    expect: {calls: [{tool: math_factorial, args: {n: 5}}]}
  - id: subset
    ask: Forecast for Paris, please.
    tools: [server.weather]
    expect: {tool: weather, args: {city: {regex: "^Par"}}}
`
