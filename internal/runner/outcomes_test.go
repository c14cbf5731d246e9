package runner_test

import (
	"context"
	"strings"
	"testing"

	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/runner"
)

// outcomesScript plays a thinking model that shows each of the outcomes
// users of local models name: a call planned in its thinking and never
// made, an integer sent as a string, and the same search until the round
// limit.
const outcomesScript = `
models:
  - {name: thinker, capabilities: [completion, tools, thinking], parameter_size: 8B, num_ctx: 4096}
rules:
  - user: {contains: dog}
    reply:
      thinking: 'The docs will know. <tool_call>{"name": "search", "arguments": {"query": "dog"}}</tool_call>'
      content: "Probably yes."
  - user: {contains: top three}
    tool_result: {regex: "."}
    reply: {content: "Here they are."}
  - user: {contains: top three}
    reply: {tool_calls: [{name: search, arguments: {query: vegetarian, top_k: "3"}}]}
  - user: {contains: loop}
    tools_offered: true
    reply: {tool_calls: [{name: search, arguments: {query: x}}]}
  - user: {contains: loop}
    reply: {content: "I could not find it."}
`

const outcomesSuite = `
models: [thinker]
cases:
  - {id: thinks, ask: "Can I bring my dog?", expect: {tool: search}}
  - {id: string-int, ask: "The top three vegetarian dishes?", expect: {tool: search}}
  - {id: loops, ask: "loop please", max_rounds: 3, expect: {tool: search, answer: {contains: found}}}
`

// TestNamedOutcomesThroughTheLoop runs the real loop against the scripted
// thinking model: each new outcome and count comes out of a trial, and each
// trial records the num_ctx it ran with (the model's own here).
func TestNamedOutcomesThroughTheLoop(t *testing.T) {
	script, err := fakeollama.ParseScript([]byte(outcomesScript), "outcomes.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(t, script, nil, nil, "docs")
	s := parseSuite(t, outcomesSuite, r.cat)
	if _, err := r.runner.Run(context.Background(), runner.Config{Suite: s, Models: models(t, r, "thinker")}); err != nil {
		t.Fatal(err)
	}
	got := map[string]*record.Trial{}
	for _, tr := range r.trials(t) {
		got[tr.CaseID] = tr
		if tr.NumCtx != 4096 {
			t.Errorf("%s: NumCtx %d, want the model's 4096", tr.CaseID, tr.NumCtx)
		}
		if tr.Score.Truncated {
			t.Errorf("%s: truncated at num_ctx 4096", tr.CaseID)
		}
	}
	if sc := got["thinks"].Score; sc.Outcome != record.OutcomeCallInThinking {
		t.Errorf("thinks: %s (%s), want call_in_thinking", sc.Outcome, sc.Detail)
	}
	sc := got["string-int"].Score
	if sc.Outcome != record.OutcomeInvalidArgs || !strings.HasSuffix(sc.Detail, "(valid if coerced)") || sc.CallsToKnownTools != 1 || sc.ValidCalls != 0 || sc.ValidCoercedCalls != 1 {
		t.Errorf("string-int: %s (%s), calls %d, valid %d, valid if coerced %d; want invalid_args, 1, 0, 1",
			sc.Outcome, sc.Detail, sc.CallsToKnownTools, sc.ValidCalls, sc.ValidCoercedCalls)
	}
	sc = got["loops"].Score
	if sc.Outcome != record.OutcomeRoundLimit || sc.Detail != `repeating search({"query":"x"})` || sc.RepeatedCalls != 2 {
		t.Errorf("loops: %s (%q), %d repeated; want round_limit (repeating search({\"query\":\"x\"})), 2", sc.Outcome, sc.Detail, sc.RepeatedCalls)
	}
}

// TestTruncatedAtTheRequestsNumCtx: the num_ctx the request sends decides,
// over the model's own: the fake cuts the prompt there and reports
// prompt_eval_count at num_ctx, as Ollama does, so the trial is marked
// truncated and excluded from the rates.
func TestTruncatedAtTheRequestsNumCtx(t *testing.T) {
	script, err := fakeollama.ParseScript([]byte(outcomesScript), "outcomes.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(t, script, nil, nil, "docs")
	s := parseSuite(t, "defaults: {options: {num_ctx: 64}}\n"+outcomesSuite, r.cat)
	if _, err := r.runner.Run(context.Background(), runner.Config{Suite: s, Models: models(t, r, "thinker")}); err != nil {
		t.Fatal(err)
	}
	trials := r.trials(t)
	if len(trials) != 3 {
		t.Fatalf("%d trials, want 3", len(trials))
	}
	for _, tr := range trials {
		if tr.NumCtx != 64 || !tr.Score.Truncated {
			t.Errorf("%s: NumCtx %d, truncated %v; want 64, true", tr.CaseID, tr.NumCtx, tr.Score.Truncated)
		}
		if j := record.Judge(tr); !j.Excluded || j.Counted() {
			t.Errorf("%s: judged %+v, want it excluded", tr.CaseID, j)
		}
	}
	for _, req := range r.fake.Requests() {
		if c := req.Chat; c != nil && len(c.Messages) > 0 && c.Options["num_ctx"] != 64.0 {
			t.Errorf("a request sent num_ctx %v, want 64", c.Options["num_ctx"])
		}
	}
}
