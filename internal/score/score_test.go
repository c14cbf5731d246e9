package score

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/suite"
)

// expect parses a case's expect: value the way a suite writes it.
func expect(t *testing.T, src string) *suite.Expect {
	t.Helper()
	s, err := suite.Parse([]byte("cases:\n  - id: c\n    ask: q\n    expect: "+src+"\n"), "t.yaml")
	if err != nil {
		t.Fatalf("expect %s: %v", src, err)
	}
	return &s.Cases[0].Expect
}

// tc is a call the model made: name, raw arguments and the error kind its
// execution ended with ("" for success).
type tc struct {
	name, args, kind string
	err              string
	hidden           bool // invalid only on constraints the model was not shown
}

// conv builds a transcript: one round per group of calls (the calls of a
// group come in one response, as parallel calls do), then a final round
// answering with answer.
func conv(answer string, groups ...[]tc) *record.Transcript {
	t := &record.Transcript{Model: "m", MaxRounds: 5}
	for _, g := range groups {
		r := record.Round{Index: len(t.Rounds) + 1}
		for i, c := range g {
			id := fmt.Sprintf("call_%d_%d", r.Index, i)
			r.Response.ToolCalls = append(r.Response.ToolCalls, record.ToolCall{ID: id, Index: i, Name: c.name, Arguments: json.RawMessage(c.args)})
			x := record.Execution{CallID: id, Name: c.name, Arguments: json.RawMessage(c.args), ErrorKind: c.kind, IsError: c.kind != "", Error: c.err, HiddenOnly: c.hidden}
			if c.kind != record.ExecUnknownTool {
				x.Server, x.Tool = "docs", c.name
			}
			r.Executions = append(r.Executions, x)
		}
		t.Rounds = append(t.Rounds, r)
	}
	t.Rounds = append(t.Rounds, record.Round{Index: len(t.Rounds) + 1, Response: record.Response{Content: answer}})
	t.Answer = answer
	return t
}

func one(calls ...tc) []tc { return calls }

// thinking sets the thinking of t's last response.
func thinking(t *record.Transcript, text string) *record.Transcript {
	t.Rounds[len(t.Rounds)-1].Response.Thinking = text
	return t
}

func roundLimit(t *record.Transcript) *record.Transcript {
	t.RoundLimitHit = true
	return t
}

var (
	searchDog  = tc{name: "search", args: `{"query": "can I bring my dog", "top_k": 5}`}
	searchCat  = tc{name: "search", args: `{"query": "cats", "top_k": 5}`}
	hours      = tc{name: "get_document", args: `{"name": "hours.txt"}`}
	menu       = tc{name: "get_document", args: `{"name": "menu.txt"}`}
	list       = tc{name: "list_documents", args: `{}`}
	weather    = tc{name: "get_weather", args: `{"city": "Paris"}`, kind: record.ExecUnknownTool}
	badArgs    = tc{name: "search", args: `{"query": 5}`, kind: record.ExecInvalidArgs, err: `validating /properties/query: type: 5 has type "integer", want "string"`}
	hiddenArgs = tc{name: "search", args: `{"query": "dog", "filter": {}}`, kind: record.ExecInvalidArgs, hidden: true, err: `filter.lang: required (nested required, not shown to the model)`}
	timeout    = tc{name: "search", args: `{"query": "dog"}`, kind: record.ExecTimeout, err: "context deadline exceeded"}
	toolFailed = tc{name: "search", args: `{"query": "dog"}`, kind: record.ExecToolError, err: "no index"}
)

const (
	toolForm  = `{tool: search, args: {query: {contains: dog}, top_k: {any: true}}, answer: {contains: terrace}}`
	callsForm = `{calls: [{tool: get_document, args: {name: hours.txt}}, {tool: get_document, args: {name: menu.txt}}]}`
	anyOrder  = `{calls: [{tool: get_document, args: {name: hours.txt}}, {tool: get_document, args: {name: menu.txt}}], any_order: true}`
	noTool    = `{no_tool: true, answer: {contains: paris}}`
	terrace   = "Dogs are welcome on the terrace."
)

type outcomeTest struct {
	name       string
	expect     string
	t          *record.Transcript
	opts       Options
	want       string
	wantDetail string // a part of the detail
}

// outcomeTests are hand-made trials, at least one per outcome, with the ties
// the order of checks decides.
func outcomeTests() []outcomeTest {
	return []outcomeTest{
		// pass
		{name: "tool form", expect: toolForm, t: conv(terrace, one(searchDog)), want: record.OutcomePass},
		{name: "tool form ignores later calls", expect: toolForm, t: conv(terrace, one(searchDog), one(list, weather)), want: record.OutcomePass},
		{name: "a tool error the case allows", expect: `{tool: search, call_may_fail: true}`, t: conv("Sorry.", one(toolFailed)), want: record.OutcomePass},
		{name: "a tool error then the call again, which ran", expect: `{tool: search, args: {query: {contains: dog}}}`, t: conv(terrace, one(toolFailed), one(searchDog)), want: record.OutcomePass},
		{name: "calls in order", expect: callsForm, t: conv("Open 9 to 5.", one(hours, menu)), want: record.OutcomePass},
		{name: "calls over rounds", expect: callsForm, t: conv("Open 9 to 5.", one(hours), one(menu)), want: record.OutcomePass},
		{name: "any order reversed", expect: anyOrder, t: conv("Open 9 to 5.", one(menu, hours)), want: record.OutcomePass},
		{
			name:   "any order finds the matching that fits",
			expect: `{calls: [{tool: get_document, args: {name: {any: true}}}, {tool: get_document, args: {name: hours.txt}}], any_order: true}`,
			t:      conv("ok", one(hours, menu)),
			want:   record.OutcomePass,
		},
		{name: "no tool", expect: noTool, t: conv("Paris."), want: record.OutcomePass},
		{name: "server.tool before Check", expect: `{tool: docs.search}`, t: conv("ok", one(searchDog)), want: record.OutcomePass},
		{name: "normalized strings", expect: `{tool: get_document, args: {name: Hours.TXT}}`, t: conv("ok", one(hours)), opts: Options{NormalizeStrings: true}, want: record.OutcomePass},
		{name: "int and float", expect: `{tool: search, args: {top_k: 5.0}}`, t: conv("ok", one(searchDog)), want: record.OutcomePass},

		// infra_error comes first
		{
			name: "loop failure", expect: toolForm,
			t: func() *record.Transcript {
				t := conv("", one(searchDog))
				t.Failure = &record.Failure{Kind: record.FailureOllama, Message: "connection refused"}
				return t
			}(),
			want: record.OutcomeInfraError, wantDetail: "ollama: connection refused",
		},
		{name: "tool timeout", expect: toolForm, t: conv(terrace, one(timeout)), want: record.OutcomeInfraError, wantDetail: "tool search: timeout: context deadline exceeded"},
		{name: "server failure beats unexpected call", expect: noTool, t: conv("Paris.", one(tc{name: "search", args: `{}`, kind: record.ExecServerFailure, err: "EOF"})), want: record.OutcomeInfraError},

		// no_tool cases
		{name: "unexpected call", expect: noTool, t: conv("Paris.", one(searchDog)), want: record.OutcomeUnexpectedCall, wantDetail: "called search"},
		{name: "unexpected hallucinated call", expect: noTool, t: conv("Paris.", one(weather)), want: record.OutcomeUnexpectedCall, wantDetail: "called get_weather"},
		{name: "no tool call in text", expect: noTool, t: conv(`<tool_call>{"name": "search", "arguments": {}}</tool_call>`), want: record.OutcomeCallInText},
		{name: "no tool empty", expect: noTool, t: conv(" \n"), want: record.OutcomeEmptyAnswer},
		{name: "no tool wrong answer", expect: noTool, t: conv("Lyon."), want: record.OutcomeWrongAnswer, wantDetail: "does not contain paris"},

		// no call at all
		{name: "call in text", expect: toolForm, t: conv("```json\n{\"name\": \"search\", \"arguments\": {\"query\": \"dog\"}}\n```"), want: record.OutcomeCallInText},
		{name: "empty answer instead of a call", expect: toolForm, t: conv(""), want: record.OutcomeEmptyAnswer},
		{name: "no call", expect: toolForm, t: conv("Probably yes."), want: record.OutcomeNoCall, wantDetail: "Probably yes."},
		{name: "call in thinking", expect: toolForm, t: thinking(conv("Probably yes."), `I will call <tool_call>{"name": "search", "arguments": {"query": "dog"}}</tool_call>`), want: record.OutcomeCallInThinking, wantDetail: "the thinking calls search, but no call was made"},
		{name: "call in thinking beats empty answer", expect: toolForm, t: thinking(conv(""), `{"name": "search", "arguments": {}}`), want: record.OutcomeCallInThinking},
		{name: "call in text beats call in thinking", expect: toolForm, t: thinking(conv(`<tool_call>{"name": "search", "arguments": {}}</tool_call>`), `<tool_call>{"name": "search", "arguments": {}}</tool_call>`), want: record.OutcomeCallInText},
		{name: "thinking calls an unlisted tool", expect: toolForm, t: thinking(conv("Probably yes."), `{"name": "get_weather", "arguments": {}}`), want: record.OutcomeNoCall},
		{name: "thinking names the tool without a call", expect: toolForm, t: thinking(conv("Probably yes."), "I could use search, but I know this."), want: record.OutcomeNoCall},

		// the first call
		{name: "hallucinated tool", expect: toolForm, t: conv(terrace, one(weather)), want: record.OutcomeHallucinatedTool, wantDetail: `"get_weather" is not a tool`},
		{name: "hallucinated beats round limit", expect: toolForm, t: roundLimit(conv("", one(weather), one(searchDog))), want: record.OutcomeHallucinatedTool},
		{name: "wrong tool", expect: toolForm, t: conv(terrace, one(list), one(searchDog)), want: record.OutcomeWrongTool, wantDetail: `got "list_documents", want "search"`},
		{name: "wrong tool beats round limit", expect: toolForm, t: roundLimit(conv("", one(list), one(list))), want: record.OutcomeWrongTool},
		{name: "wrong tool any order", expect: anyOrder, t: conv("ok", one(list, hours, menu)), want: record.OutcomeWrongTool, wantDetail: `got "list_documents", want "get_document"`},
		{name: "wrong tool at a later position", expect: `{calls: [{tool: get_document}, {tool: search}]}`, t: conv("ok", one(hours, list)), want: record.OutcomeWrongTool, wantDetail: `call 2: got "list_documents", want "search"`},
		{name: "hallucinated at a later position", expect: `{calls: [{tool: get_document}, {tool: search}]}`, t: conv("ok", one(hours, weather)), want: record.OutcomeHallucinatedTool, wantDetail: `call 2: "get_weather" is not a tool`},
		{name: "wrong tool among any order calls", expect: `{calls: [{tool: get_document}, {tool: search}], any_order: true}`, t: conv("ok", one(hours, list)), want: record.OutcomeWrongTool, wantDetail: `call 2: got "list_documents", want "search"`},

		// arguments
		{name: "invalid args", expect: toolForm, t: conv(terrace, one(badArgs)), want: record.OutcomeInvalidArgs, wantDetail: `search: validating /properties/query`},
		// hidden_constraint
		{name: "hidden constraint", expect: toolForm, t: conv(terrace, one(hiddenArgs)), want: record.OutcomeHiddenConstraint, wantDetail: `search: filter.lang: required (nested required, not shown to the model)`},
		{name: "invalid args beat a hidden constraint", expect: callsForm, t: conv("ok", one(tc{name: "get_document", args: `{"name": "hours.txt", "x": 1}`, kind: record.ExecInvalidArgs, hidden: true, err: "hidden"}, tc{name: "get_document", args: `{"name": 5}`, kind: record.ExecInvalidArgs, err: "shown"})), want: record.OutcomeInvalidArgs, wantDetail: "shown"},
		{name: "hidden constraint beats wrong args of another call", expect: `{calls: [{tool: get_document, args: {name: x}}, {tool: search}]}`, t: conv("ok", one(hours, hiddenArgs)), want: record.OutcomeHiddenConstraint},
		{name: "invalid args beat wrong args of another call", expect: `{calls: [{tool: get_document, args: {name: x}}, {tool: search}]}`, t: conv("ok", one(hours, badArgs)), want: record.OutcomeInvalidArgs},
		{name: "wrong args", expect: toolForm, t: conv(terrace, one(searchCat)), want: record.OutcomeWrongArgs, wantDetail: `query: expected a string containing "dog" (any case), got "cats"`},
		// call_failed: the answer matches, but rests on no result.
		{name: "the expected call failed", expect: `{tool: search, args: {query: dog}, answer: {contains: terrace}}`, t: conv(terrace, one(toolFailed)), want: record.OutcomeCallFailed, wantDetail: "search: tool_error: no index"},
		{name: "a failed call with wrong args is wrong_args", expect: `{tool: search, args: {query: cat}}`, t: conv(terrace, one(toolFailed)), want: record.OutcomeWrongArgs},
		{name: "a failed call in order", expect: `{calls: [{tool: search}]}`, t: conv(terrace, one(toolFailed)), want: record.OutcomeCallFailed},
		{name: "wrong args missing key", expect: toolForm, t: conv(terrace, one(tc{name: "search", args: `{"query": "dog"}`})), want: record.OutcomeWrongArgs, wantDetail: "top_k: expected any value, got (missing)"},
		{name: "wrong args strict", expect: `{tool: get_document, args: {name: hours.txt}, strict_args: true}`, t: conv("ok", one(tc{name: "get_document", args: `{"name": "hours.txt", "page": 2}`})), want: record.OutcomeWrongArgs, wantDetail: "page: expected no such argument (strict args), got 2"},
		{name: "strict from options", expect: `{tool: get_document, args: {name: hours.txt}}`, t: conv("ok", one(tc{name: "get_document", args: `{"name": "hours.txt", "page": 2}`})), opts: Options{StrictArgs: true}, want: record.OutcomeWrongArgs},
		{name: "case overrides strict option", expect: `{tool: get_document, args: {name: hours.txt}, strict_args: false}`, t: conv("ok", one(tc{name: "get_document", args: `{"name": "hours.txt", "page": 2}`})), opts: Options{StrictArgs: true}, want: record.OutcomePass},
		{name: "wrong args in order", expect: callsForm, t: conv("ok", one(menu, hours)), want: record.OutcomeWrongArgs, wantDetail: `get_document (call 1): name: expected "hours.txt", got "menu.txt"`},
		{name: "wrong args any order", expect: anyOrder, t: conv("ok", one(hours, tc{name: "get_document", args: `{"name": "menu.md"}`})), want: record.OutcomeWrongArgs, wantDetail: `get_document (call 2): name: expected "menu.txt", got "menu.md"`},
		{name: "not normalized", expect: `{tool: get_document, args: {name: Hours.TXT}}`, t: conv("ok", one(hours)), want: record.OutcomeWrongArgs},
		{name: "arguments not an object", expect: `{tool: search, args: {query: dog}}`, t: conv("ok", one(tc{name: "search", args: `"dog"`})), want: record.OutcomeWrongArgs, wantDetail: "arguments are dog, not an object"},

		// how many calls
		{name: "missing call", expect: callsForm, t: conv("Open 9 to 5.", one(hours)), want: record.OutcomeMissingCall, wantDetail: "1 of 2 expected calls made; missing: get_document {name: menu.txt}"},
		{name: "missing call any order", expect: anyOrder, t: conv("ok", one(menu)), want: record.OutcomeMissingCall, wantDetail: "missing: get_document {name: hours.txt}"},
		{name: "missing call beats round limit", expect: callsForm, t: roundLimit(conv("", one(hours))), want: record.OutcomeMissingCall},
		{name: "round limit", expect: toolForm, t: roundLimit(conv(terrace, one(searchDog), one(searchCat))), want: record.OutcomeRoundLimit, wantDetail: "still calling tools after 5 rounds"},
		{name: "round limit repeating", expect: toolForm, t: roundLimit(conv(terrace, one(searchDog), one(searchCat), one(searchDog))), want: record.OutcomeRoundLimit, wantDetail: `repeating search({"query":"can I bring my dog","top_k":5})`},
		{name: "round limit beats extra call", expect: callsForm, t: roundLimit(conv("", one(hours, menu), one(list))), want: record.OutcomeRoundLimit},
		{name: "extra call", expect: callsForm, t: conv("ok", one(hours, menu), one(list)), want: record.OutcomeExtraCall, wantDetail: "3 calls, 2 expected; extra: list_documents"},
		{name: "extra call any order", expect: anyOrder, t: conv("ok", one(hours, menu, hours)), want: record.OutcomeExtraCall},
		{name: "wrong args beat missing call", expect: callsForm, t: conv("ok", one(menu)), want: record.OutcomeWrongArgs},

		// the answer
		{name: "empty answer after the calls", expect: toolForm, t: conv("", one(searchDog)), want: record.OutcomeEmptyAnswer},
		{name: "wrong answer", expect: toolForm, t: conv("Sorry, no dogs.", one(searchDog)), want: record.OutcomeWrongAnswer, wantDetail: `answer "Sorry, no dogs." does not contain terrace`},
	}
}

func TestScoreOutcomes(t *testing.T) {
	for _, tt := range outcomeTests() {
		t.Run(tt.name, func(t *testing.T) {
			got := Score(tt.t, expect(t, tt.expect), tt.opts)
			if got.Outcome != tt.want {
				t.Fatalf("Outcome = %s (%s), want %s", got.Outcome, got.Detail, tt.want)
			}
			if !strings.Contains(got.Detail, tt.wantDetail) {
				t.Errorf("Detail = %q, want it to contain %q", got.Detail, tt.wantDetail)
			}
			if got.Outcome == record.OutcomePass && got.Detail != "" {
				t.Errorf("Detail = %q for a pass", got.Detail)
			}
		})
	}
}

func TestScoreCoversEveryOutcome(t *testing.T) {
	tested := map[string]bool{}
	for _, tt := range outcomeTests() {
		tested[tt.want] = true
	}
	// A scenario's own outcome is tested with its verdicts
	// (TestScenarioVerdicts).
	tested[record.OutcomeWrongState] = true
	for _, o := range record.Outcomes {
		if !tested[o] {
			t.Errorf("outcome %s has no test", o)
		}
	}
}

var yes, no = ptr(true), ptr(false)

func ptr(b bool) *bool { return &b }

// TestScoreJudgements checks the judgements the scorer makes for the rates:
// set on every scored trial (irrelevance only for no-tool cases), left out
// of infrastructure errors, and the same as a 1.0 reader derives from the
// outcome and the transcript, so old and new trial files count alike.
func TestScoreJudgements(t *testing.T) {
	for _, tt := range outcomeTests() {
		t.Run(tt.name, func(t *testing.T) {
			e := expect(t, tt.expect)
			got := Score(tt.t, e, tt.opts)
			if got.Outcome == record.OutcomeInfraError {
				if got.RoundLimit != nil || got.IrrelevanceOK != nil {
					t.Fatalf("infra_error carries judgements: %+v", got)
				}
				return
			}
			if got.RoundLimit == nil || (got.IrrelevanceOK != nil) != e.NoTool {
				t.Fatalf("judgements missing or misplaced: round_limit %v, irrelevance_ok %v (no_tool %v)", got.RoundLimit, got.IrrelevanceOK, e.NoTool)
			}
			old := got
			old.RoundLimit, old.IrrelevanceOK = nil, nil
			now, derived := record.Judge(&record.Trial{Score: got, Transcript: tt.t}), record.Judge(&record.Trial{Score: old, Transcript: tt.t})
			if now != derived {
				t.Errorf("the scorer judges\n%+v\na 1.0 reader derives\n%+v", now, derived)
			}
		})
	}
}

func TestScoreFields(t *testing.T) {
	tests := []struct {
		name   string
		expect string
		t      *record.Transcript
		opts   Options
		want   record.Score
	}{
		{
			name: "pass", expect: toolForm, t: conv(terrace, one(searchDog)),
			want: record.Score{Outcome: record.OutcomePass, CallExpected: true, ToolCorrect: true, ArgsCorrect: true, CallsToKnownTools: 1, ValidCalls: 1, ValidVisibleCalls: 1, Rounds: 2, RoundLimit: no},
		},
		{
			name: "wrong args", expect: toolForm, t: conv(terrace, one(searchCat)),
			want: record.Score{Outcome: record.OutcomeWrongArgs, CallExpected: true, ToolCorrect: true, CallsToKnownTools: 1, ValidCalls: 1, ValidVisibleCalls: 1, Rounds: 2, RoundLimit: no},
		},
		{
			name: "invalid then hallucinated", expect: toolForm, t: conv(terrace, one(badArgs), one(weather, searchDog)),
			want: record.Score{Outcome: record.OutcomeInvalidArgs, CallExpected: true, ToolCorrect: true, CallsToKnownTools: 2, ValidCalls: 1, ValidVisibleCalls: 1, FailedCalls: 2, Rounds: 3, RoundLimit: no},
		},
		{
			name: "hidden constraint counts as valid as shown", expect: toolForm, t: conv(terrace, one(hiddenArgs), one(searchDog)),
			want: record.Score{Outcome: record.OutcomeHiddenConstraint, CallExpected: true, ToolCorrect: true, CallsToKnownTools: 2, ValidCalls: 1, ValidVisibleCalls: 2, FailedCalls: 1, Rounds: 3, RoundLimit: no},
		},
		{
			name: "hallucinated", expect: toolForm, t: conv(terrace, one(weather)),
			want: record.Score{Outcome: record.OutcomeHallucinatedTool, CallExpected: true, CallsToKnownTools: 0, ValidCalls: 0, ValidVisibleCalls: 0, FailedCalls: 1, Rounds: 2, RoundLimit: no},
		},
		{
			name: "no tool abstains", expect: noTool, t: conv("Paris."),
			want: record.Score{Outcome: record.OutcomePass, ToolCorrect: true, ArgsCorrect: true, Rounds: 1, IrrelevanceOK: yes, RoundLimit: no},
		},
		{
			name: "no tool calls", expect: noTool, t: conv("Paris.", one(list)),
			want: record.Score{Outcome: record.OutcomeUnexpectedCall, CallsToKnownTools: 1, ValidCalls: 1, ValidVisibleCalls: 1, Rounds: 2, IrrelevanceOK: no, RoundLimit: no},
		},
		{
			name: "wrong tool later keeps args of the right ones", expect: `{calls: [{tool: get_document, args: {name: hours.txt}}, {tool: search}]}`, t: conv("ok", one(hours, list)),
			want: record.Score{Outcome: record.OutcomeWrongTool, CallExpected: true, ToolCorrect: true, ArgsCorrect: true, CallsToKnownTools: 2, ValidCalls: 2, ValidVisibleCalls: 2, Rounds: 2, RoundLimit: no},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Score(tt.t, expect(t, tt.expect), tt.opts)
			got.Detail = ""
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Score (-want +got):\n%s", diff)
			}
		})
	}
}

func TestScoreTruncated(t *testing.T) {
	tr := conv(terrace, one(searchDog))
	tr.Rounds[0].Metrics.PromptEvalCount = 4096
	tr.Rounds[1].Metrics.PromptEvalCount = 8192
	e := expect(t, toolForm)
	if s := Score(tr, e, Options{NumCtx: 8192}); !s.Truncated {
		t.Error("a prompt of num_ctx tokens is not flagged")
	}
	if s := Score(tr, e, Options{NumCtx: 16384}); s.Truncated {
		t.Error("a prompt below num_ctx is flagged")
	}
	if s := Score(tr, e, Options{}); s.Truncated {
		t.Error("flagged without a num_ctx")
	}
}

// TestScoreDiff checks that a wrong_args detail reads for people: one line
// per differing argument, expected against received, values in JSON, and
// nothing of Go's syntax.
func TestScoreDiff(t *testing.T) {
	e := expect(t, `{tool: search, args: {query: {contains: dog}, top_k: 5, lang: en, debug: {absent: true}, page: 2}}`)
	tr := conv("ok", one(tc{name: "search", args: `{"top_k": 5.0, "query": "cats", "lang": "fr", "debug": true, "extra": [1]}`}))
	s := Score(tr, e, Options{})
	if s.Outcome != record.OutcomeWrongArgs {
		t.Fatalf("Outcome = %s", s.Outcome)
	}
	want := `search (call 1): 4 arguments differ
  query: expected a string containing "dog" (any case), got "cats"
  lang: expected "en", got "fr"
  debug: expected no such argument, got true
  page: expected 2, got (missing)`
	if s.Detail != want {
		t.Errorf("Detail =\n%s\nwant\n%s", s.Detail, want)
	}

	// One differing argument stays on the call's line.
	e = expect(t, `{tool: search, args: {query: dog, top_k: 5}}`)
	tr = conv("ok", one(tc{name: "search", args: `{"query": "cat", "top_k": 5}`}))
	if s := Score(tr, e, Options{}); s.Detail != `search (call 1): query: expected "dog", got "cat"` {
		t.Errorf("Detail = %q", s.Detail)
	}
	tr = conv("ok", one(tc{name: "search", args: `{"query": "dog", "top_k": "5"}`}))
	if s := Score(tr, e, Options{}); s.Detail != `search (call 1): top_k: expected 5, got "5"` {
		t.Errorf("Detail = %q (a string where a number is expected must show its quotes)", s.Detail)
	}
	for _, goSyntax := range []string{"map[", "int64(", "string("} {
		if strings.Contains(s.Detail, goSyntax) {
			t.Errorf("Detail = %q shows Go syntax %q", s.Detail, goSyntax)
		}
	}
}

func TestScoreExposedName(t *testing.T) {
	// After Suite.Check the exposed name decides, whatever was written.
	e := expect(t, `{tool: docs.search}`)
	e.Calls[0].Exposed = "docs__search"
	tr := conv("ok", one(tc{name: "docs__search", args: `{}`}))
	if s := Score(tr, e, Options{}); s.Outcome != record.OutcomePass {
		t.Errorf("Outcome = %s (%s)", s.Outcome, s.Detail)
	}
	tr = conv("ok", one(tc{name: "search", args: `{}`}))
	if s := Score(tr, e, Options{}); s.Outcome != record.OutcomeWrongTool || !strings.Contains(s.Detail, `want "docs__search"`) {
		t.Errorf("Outcome = %s (%s)", s.Outcome, s.Detail)
	}
}

func TestOptionsFor(t *testing.T) {
	s, err := suite.Parse([]byte("defaults: {normalize_strings: true, strict_args: true, options: {num_ctx: 4096}}\ncases:\n  - {id: a, ask: q, expect: {no_tool: true}}\n"), "o.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := OptionsFor(&s.Defaults), (Options{NormalizeStrings: true, NumCtx: 4096, StrictArgs: true}); got != want {
		t.Errorf("OptionsFor = %+v, want %+v", got, want)
	}
}
