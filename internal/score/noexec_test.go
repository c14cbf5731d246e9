package score

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgrade/toolgrade/internal/record"
)

// firstResponse builds the transcript of a trial run with execute: false:
// one round whose response holds content and calls, nothing executed.
func firstResponse(content string, calls ...tc) *record.Transcript {
	t := &record.Transcript{Model: "m", MaxRounds: 5, NotExecuted: true, Answer: content}
	r := record.Round{Index: 1, Response: record.Response{Content: content}}
	for i, c := range calls {
		r.Response.ToolCalls = append(r.Response.ToolCalls, record.ToolCall{ID: fmt.Sprintf("call_%d", i), Index: i, Name: c.name, Arguments: json.RawMessage(c.args)})
	}
	t.Rounds = []record.Round{r}
	return t
}

// blocked is a call the tool policy kept from running.
func blocked(c tc) tc {
	c.kind, c.err = record.ExecBlocked, "it is marked destructive (destructiveHint) and the suite does not allow it"
	return c
}

func TestScoreNotExecuted(t *testing.T) {
	for _, tt := range []outcomeTest{
		// The text beside a right call is not a final answer: answer: is not
		// judged and an empty one is fine.
		{name: "tool form passes without an answer", expect: toolForm, t: firstResponse("", searchDog), want: record.OutcomePass},
		{name: "tool form ignores the answer matcher", expect: toolForm, t: firstResponse("Let me look.", searchDog), want: record.OutcomePass},
		{name: "tool form wrong args", expect: toolForm, t: firstResponse("", searchCat), want: record.OutcomeWrongArgs, wantDetail: "query"},
		{name: "tool form wrong tool", expect: toolForm, t: firstResponse("", list), want: record.OutcomeWrongTool, wantDetail: `got "list_documents", want "search"`},
		// No execution says the name is no tool: it is a wrong tool.
		{name: "unknown name is a wrong tool", expect: toolForm, t: firstResponse("", tc{name: "get_weather", args: `{}`}), want: record.OutcomeWrongTool},
		{name: "tool form no call", expect: toolForm, t: firstResponse("Probably yes."), want: record.OutcomeNoCall},
		{name: "tool form empty", expect: toolForm, t: firstResponse(""), want: record.OutcomeEmptyAnswer},
		{name: "parallel calls in one response", expect: callsForm, t: firstResponse("", hours, menu), want: record.OutcomePass},
		{name: "any order in one response", expect: anyOrder, t: firstResponse("", menu, hours), want: record.OutcomePass},
		// A chain cannot be made in one response without the first result.
		{name: "chain stops at its first call", expect: callsForm, t: firstResponse("", hours), want: record.OutcomeMissingCall, wantDetail: "1 of 2 expected calls made"},
		{name: "extra call in one response", expect: `{calls: [{tool: get_document, args: {name: hours.txt}}]}`, t: firstResponse("", hours, menu), want: record.OutcomeExtraCall},
		{name: "no_tool passes without a call", expect: noTool, t: firstResponse("Paris."), want: record.OutcomePass},
		{name: "no_tool judges the answer", expect: noTool, t: firstResponse("Lyon."), want: record.OutcomeWrongAnswer},
		{name: "no_tool with a call", expect: noTool, t: firstResponse("", searchDog), want: record.OutcomeUnexpectedCall},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := Score(tt.t, expect(t, tt.expect), tt.opts)
			if got.Outcome != tt.want || !strings.Contains(got.Detail, tt.wantDetail) {
				t.Fatalf("Score = %s (%s), want %s (%s)", got.Outcome, got.Detail, tt.want, tt.wantDetail)
			}
		})
	}
}

// docsTools is the docs server's catalog as scoring sees it: search takes a
// string query.
type docsTools struct{}

func (docsTools) Names() []string { return []string{"search", "list_documents", "get_document"} }

func (docsTools) Resolve(name string) (string, bool) {
	switch name {
	case "search", "list_documents", "get_document":
		return name, true
	case "docs.search":
		return "search", true
	}
	return "", false
}

func (docsTools) ValidateArgs(exposed string, args json.RawMessage) error {
	var a map[string]any
	if err := json.Unmarshal(args, &a); err != nil {
		return err
	}
	if _, ok := a["query"].(string); exposed == "search" && !ok {
		return fmt.Errorf("query must be a string")
	}
	if k, ok := a["top_k"].(float64); exposed == "search" && ok && k > 20 {
		return hiddenErr("top_k: maximum 20 (not shown to the model)")
	}
	return nil
}

// hiddenErr is a validation error of constraints the model was not shown,
// marked as the catalog marks them.
type hiddenErr string

func (e hiddenErr) Error() string    { return string(e) }
func (e hiddenErr) HiddenOnly() bool { return true }

func TestScoreNotExecutedWithTheCatalog(t *testing.T) {
	opts := Options{Tools: docsTools{}}
	for _, tt := range []outcomeTest{
		{name: "pass", expect: toolForm, t: firstResponse("", searchDog), opts: opts, want: record.OutcomePass},
		{name: "hallucinated tool", expect: toolForm, t: firstResponse("", tc{name: "get_weather", args: `{}`}), opts: opts, want: record.OutcomeHallucinatedTool, wantDetail: `"get_weather" is not a tool`},
		{name: "invalid args", expect: toolForm, t: firstResponse("", tc{name: "search", args: `{"query": 5}`}), opts: opts, want: record.OutcomeInvalidArgs, wantDetail: "search: query must be a string"},
		{name: "hidden constraint", expect: toolForm, t: firstResponse("", tc{name: "search", args: `{"query": "dog", "top_k": 50}`}), opts: opts, want: record.OutcomeHiddenConstraint, wantDetail: "search: top_k: maximum 20"},
		{name: "hallucinated second call", expect: callsForm, t: firstResponse("", hours, tc{name: "get_menu", args: `{}`}), opts: opts, want: record.OutcomeHallucinatedTool, wantDetail: "call 2"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := Score(tt.t, expect(t, tt.expect), tt.opts)
			if got.Outcome != tt.want || !strings.Contains(got.Detail, tt.wantDetail) {
				t.Fatalf("Score = %s (%s), want %s (%s)", got.Outcome, got.Detail, tt.want, tt.wantDetail)
			}
			if len(tt.t.Executions()) != 0 {
				t.Error("scoring recorded executions in the transcript")
			}
		})
	}
	got := Score(firstResponse("", searchDog, tc{name: "get_weather", args: `{}`}, tc{name: "search", args: `{"query": 5}`}), expect(t, toolForm), opts)
	if got.CallsToKnownTools != 2 || got.ValidCalls != 1 {
		t.Errorf("CallsToKnownTools %d, ValidCalls %d; want 2, 1", got.CallsToKnownTools, got.ValidCalls)
	}
	// An executed trial keeps its own executions: the catalog is not asked.
	if got := Score(conv(terrace, one(weather)), expect(t, toolForm), Options{Tools: docsTools{}}); got.Outcome != record.OutcomeHallucinatedTool {
		t.Errorf("executed trial: %s", got.Outcome)
	}
}

func TestScoreNotExecutedFields(t *testing.T) {
	got := Score(firstResponse("", searchDog), expect(t, toolForm), Options{})
	want := record.Score{Outcome: record.OutcomePass, CallExpected: true, ToolCorrect: true, ArgsCorrect: true, Rounds: 1, RoundLimit: no}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Score (-want +got):\n%s", diff)
	}
}

func TestScoreBlockedCall(t *testing.T) {
	// The model chose the right tool; the suite would not run it, the model
	// said so. The call counts for selection and arguments, and is neither
	// valid nor invalid: its arguments never reached a schema check. It
	// failed, so the trial is call_failed unless the case allows it.
	got := Score(conv("I was not allowed to search.", one(blocked(searchDog))), expect(t, `{tool: search, args: {query: {contains: dog}}}`), Options{})
	want := record.Score{Outcome: record.OutcomeCallFailed, CallExpected: true, ToolCorrect: true, ArgsCorrect: true, FailedCalls: 1, Rounds: 2, RoundLimit: no,
		Detail: "search: blocked: it is marked destructive (destructiveHint) and the suite does not allow it"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Score (-want +got):\n%s", diff)
	}
	got = Score(conv("I was not allowed to search.", one(blocked(searchDog))), expect(t, `{tool: search, args: {query: {contains: dog}}, call_may_fail: true}`), Options{})
	want.Outcome, want.Detail = record.OutcomePass, ""
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("call_may_fail: Score (-want +got):\n%s", diff)
	}
	// A blocked call is not an infrastructure error.
	got = Score(conv("ok", one(blocked(searchCat))), expect(t, toolForm), Options{})
	if got.Outcome != record.OutcomeWrongArgs {
		t.Errorf("Outcome = %s (%s), want wrong_args", got.Outcome, got.Detail)
	}
}
