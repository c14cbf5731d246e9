package runner_test

import (
	"context"
	"strings"
	"testing"

	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/runner"
)

// TestHiddenConstraintOutcome runs a scripted model whose calls to the docs
// server's search break, in turn, only a bound the model is not shown
// (top_k's maximum: Ollama's format carries no maximum) and a type it is
// shown: the first is hidden_constraint, naming the bound, the second
// invalid_args, and validity as shown counts only the first as valid.
func TestHiddenConstraintOutcome(t *testing.T) {
	script := &fakeollama.Script{
		Models: []fakeollama.Model{{Name: "bounds"}},
		Rules: []fakeollama.Rule{
			{ToolResult: &fakeollama.Matcher{Regex: "."}, Reply: fakeollama.Reply{Content: "Done."}},
			{User: &fakeollama.Matcher{Contains: "many"}, Reply: fakeollama.Reply{ToolCalls: []fakeollama.ToolCall{fakeollama.Call("search", "query", "dog", "top_k", 50)}}},
			{User: &fakeollama.Matcher{Contains: "number"}, Reply: fakeollama.Reply{ToolCalls: []fakeollama.ToolCall{fakeollama.Call("search", "query", 5)}}},
		},
	}
	r := newRig(t, script, nil, nil, "docs")
	s := parseSuite(t, `
name: hidden
models: [bounds]
cases:
  - {id: many, ask: "Find many lines about dogs.", expect: {tool: search}}
  - {id: number, ask: "Search for the number five.", expect: {tool: search}}
`, r.cat)
	if _, err := r.runner.Run(context.Background(), runner.Config{Suite: s, Models: models(t, r, s.Models...)}); err != nil {
		t.Fatal(err)
	}
	got := map[string]*record.Trial{}
	for _, tr := range r.trials(t) {
		got[tr.CaseID] = tr
	}
	many, number := got["many"], got["number"]
	if many == nil || number == nil {
		t.Fatalf("trials %v", got)
	}
	if sc := many.Score; sc.Outcome != record.OutcomeHiddenConstraint ||
		!strings.Contains(sc.Detail, "top_k: maximum 20 (not shown to the model)") ||
		sc.ValidCalls != 0 || sc.ValidVisibleCalls != 1 {
		t.Errorf("many: %+v", sc)
	}
	if x := many.Transcript.Executions(); len(x) != 1 || !x[0].HiddenOnly || x[0].ErrorKind != record.ExecInvalidArgs {
		t.Errorf("many: executions %+v", x)
	}
	if sc := number.Score; sc.Outcome != record.OutcomeInvalidArgs || sc.ValidCalls != 0 || sc.ValidVisibleCalls != 0 {
		t.Errorf("number: %+v", sc)
	}
	if x := number.Transcript.Executions(); len(x) != 1 || x[0].HiddenOnly {
		t.Errorf("number: executions %+v", x)
	}
	j := record.Judge(many)
	if j.ArgValidity.OK || !j.ArgValidityShown.OK {
		t.Errorf("many: judged %+v", j)
	}
}
