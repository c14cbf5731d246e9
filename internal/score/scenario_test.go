package score

import (
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/suite"
)

// scenarioCase parses one scenario case.
func scenarioCase(t *testing.T, src string) *suite.Case {
	t.Helper()
	s, err := suite.Parse([]byte("cases:\n  - id: c\n"+src), "t.yaml")
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return &s.Cases[0]
}

// turns joins the transcripts of single turns into one of a scenario, as
// the runner does; checks are the state checks' verdicts.
func turns(checks []bool, ts ...*record.Transcript) *record.Transcript {
	out := &record.Transcript{Model: "m", MaxRounds: 5}
	for _, t := range ts {
		out.Turns = append(out.Turns, record.Turn{User: "u", From: record.FromCase, FirstRound: len(out.Rounds), Answer: t.Answer, RoundLimitHit: t.RoundLimitHit})
		for _, r := range t.Rounds {
			r.Index = len(out.Rounds) + 1
			out.Rounds = append(out.Rounds, r)
		}
		out.Answer = t.Answer
		out.RoundLimitHit = out.RoundLimitHit || t.RoundLimitHit
	}
	for _, ok := range checks {
		c := record.Check{Execution: record.Execution{Name: "get_document", Result: "x"}, OK: ok}
		if !ok {
			c.Detail = `result "x" does not contain milk`
		}
		out.Checks = append(out.Checks, c)
	}
	return out
}

const twoTurns = `    turns:
      - ask: Is my dog welcome?
        expect: {tool: search, args: {query: {contains: dog}}}
      - ask: And the hours?
        expect: {tool: get_document, args: {name: hours.txt}, answer: {contains: open}}
    check: [{tool: get_document, args: {name: notes.txt}, result: {contains: milk}}]
`

func TestScenarioVerdicts(t *testing.T) {
	for _, tt := range []struct {
		name, src  string
		t          *record.Transcript
		want       string
		turn       int
		detail     string
		state      *bool
		selection  bool
		callExpect bool
	}{
		{name: "every turn right and the state too", src: twoTurns,
			t:    turns([]bool{true}, conv("Yes.", one(searchDog)), conv("We open at 9.", one(hours))),
			want: record.OutcomePass, state: yes, selection: true, callExpect: true},
		{name: "the second turn's call is wrong", src: twoTurns,
			t:    turns([]bool{false}, conv("Yes.", one(searchDog)), conv("We open at 9.", one(menu))),
			want: record.OutcomeWrongArgs, turn: 2, detail: "turn 2: ", state: no, callExpect: true},
		{name: "the first turn fails before the second", src: twoTurns,
			t:    turns([]bool{true}, conv("Yes."), conv("We are closed.", one(menu))),
			want: record.OutcomeNoCall, turn: 1, detail: "turn 1: ", state: yes, callExpect: true},
		{name: "a turn's answer is its own, not the last", src: twoTurns,
			t:    turns([]bool{true}, conv("We open soon.", one(searchDog)), conv("Here.", one(hours))),
			want: record.OutcomeWrongAnswer, turn: 2, detail: `turn 2: answer Here. does not contain open`, state: yes, callExpect: true},
		{name: "turns right, state wrong", src: twoTurns,
			t:    turns([]bool{false}, conv("Yes.", one(searchDog)), conv("We open at 9.", one(hours))),
			want: record.OutcomeWrongState, detail: `check 1 (get_document): result "x" does not contain milk`, state: no, selection: true, callExpect: true},
		{name: "judged by the end state alone: any path passes", src: `    turns: [{ask: a}, {ask: b}]
    check: [{tool: get_document, args: {name: notes.txt}}]
`, t: turns([]bool{true}, conv("ok", one(list), one(menu)), conv("done")), want: record.OutcomePass, state: yes},
		{name: "the case's expect over every turn", src: `    turns: [{ask: a}, {ask: b}]
    expect: {calls: [{tool: search}, {tool: get_document}], answer: {contains: nine}}
`, t: turns(nil, conv("ok", one(searchDog)), conv("At nine.", one(hours))), want: record.OutcomePass, selection: true, callExpect: true},
		{name: "the case's expect after the turns, before the state", src: `    turns: [{ask: a, expect: {tool: search}}, {ask: b}]
    expect: {calls: [{tool: search}, {tool: get_document}]}
    check: [{tool: get_document}]
`, t: turns([]bool{false}, conv("ok", one(searchDog)), conv("At nine.")), want: record.OutcomeMissingCall, state: no, callExpect: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := Scenario(tt.t, scenarioCase(t, tt.src), Options{})
			if got.Outcome != tt.want || got.Turn != tt.turn || !strings.HasPrefix(got.Detail, tt.detail) {
				t.Fatalf("outcome %s, turn %d, detail %q; want %s, turn %d, detail starting %q", got.Outcome, got.Turn, got.Detail, tt.want, tt.turn, tt.detail)
			}
			if (got.State == nil) != (tt.state == nil) || (got.State != nil && *got.State != *tt.state) {
				t.Errorf("state %v, want %v", got.State, tt.state)
			}
			if got.CallExpected != tt.callExpect || (tt.selection && !got.ToolCorrect) {
				t.Errorf("call expected %v (want %v), tool correct %v (want %v)", got.CallExpected, tt.callExpect, got.ToolCorrect, tt.selection)
			}
			if got.Rounds != len(tt.t.Rounds) || got.RoundLimit == nil {
				t.Errorf("rounds %d of %d, round limit %v", got.Rounds, len(tt.t.Rounds), got.RoundLimit)
			}
		})
	}
}

// TestScenarioJudgements: a scenario judged by its state alone counts in
// the state rate and in neither selection nor irrelevance.
func TestScenarioJudgements(t *testing.T) {
	c := scenarioCase(t, "    ask: a\n    check: [{tool: get_document}]\n")
	sc := Scenario(turns([]bool{false}, conv("ok")), c, Options{})
	j := record.Judge(&record.Trial{Score: sc})
	if sc.Outcome != record.OutcomeWrongState || !j.State.Defined || j.State.OK || j.Selection.Defined || j.Irrelevance.Defined {
		t.Errorf("score %+v, judgements %+v", sc, j)
	}
}

func TestCheckVerdict(t *testing.T) {
	c := scenarioCase(t, "    ask: a\n    check: [{tool: t, result: {regex: '^milk$'}}, {tool: t}]\n")
	if got := Check(record.Execution{Result: "milk"}, &c.Checks[0]); !got.OK || got.Detail != "" {
		t.Errorf("match: %+v", got)
	}
	if got := Check(record.Execution{Result: "silk"}, &c.Checks[0]); got.OK || got.Detail != `result silk does not match /^milk$/` {
		t.Errorf("mismatch: %+v", got)
	}
	if got := Check(record.Execution{Result: "error: no such file\nmore", IsError: true}, &c.Checks[1]); got.OK || got.Detail != "the call failed: error: no such file" {
		t.Errorf("failed call: %+v", got)
	}
	if got := Check(record.Execution{Result: "anything"}, &c.Checks[1]); !got.OK {
		t.Errorf("no matcher: %+v", got)
	}
}

// TestCaseJudgesRecordedChecksAgain: rescoring against an edited check
// reads the recorded results anew, without running anything.
func TestCaseJudgesRecordedChecksAgain(t *testing.T) {
	tr := turns([]bool{false}, conv("ok"))
	tr.Checks[0].Result = "buy milk"
	c := scenarioCase(t, "    ask: a\n    check: [{tool: get_document, result: {contains: milk}}]\n")
	if got := Case(tr, c, Options{}); got.Outcome != record.OutcomePass || !tr.Checks[0].OK {
		t.Errorf("%+v, check %+v", got, tr.Checks[0])
	}
	plain := scenarioCase(t, "    ask: a\n    expect: {no_tool: true}\n")
	if got := Case(conv("hi"), plain, Options{}); got.Outcome != record.OutcomePass || got.State != nil {
		t.Errorf("one question: %+v", got)
	}
}
