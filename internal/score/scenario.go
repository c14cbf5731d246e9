package score

import (
	"fmt"
	"strings"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/suite"
)

// Scenario gives the verdict on a trial of scenario c (c.IsScenario): its
// transcript t holds every turn's rounds (t.Turns says where each turn
// begins), the setup calls and the state checks with their verdicts (see
// Check).
//
// The outcome is the first of these that fails: infra_error (t.Failure: the
// conversation, a setup call or the per-trial servers failed); each turn's
// expect in turn order, judged on that turn's rounds and answer as a case
// of one question is (Score.Turn names the turn, from 1, and the detail
// begins "turn N: "); the case's own expect, judged on every call of every
// turn and the last answer; then wrong_state, the first state check that
// failed. A scenario with checks and no expect anywhere is judged by its
// end state alone: any path that reaches it passes.
//
// The counts (calls to known tools, valid, failed and repeated calls,
// rounds) are over the whole conversation. Selection and argument accuracy
// are the case's expect's when it has one, else they hold when every turn
// that expected calls got them; a scenario that expects no call anywhere
// has neither, nor irrelevance unless an expect says no_tool.
func Scenario(t *record.Transcript, c *suite.Case, opts Options) record.Score {
	whole := &c.Expect
	if c.ExpectNone {
		// Counted against no expectation; the verdicts come from the turns
		// and checks below.
		whole = &suite.Expect{AnyTool: true}
	}
	s := Score(t, whole, opts)
	if s.Outcome == record.OutcomeInfraError {
		return s
	}
	if c.ExpectNone {
		s.Outcome, s.Detail, s.CallExpected, s.ToolCorrect, s.ArgsCorrect = record.OutcomePass, "", false, false, false
		s.IrrelevanceOK = nil
	}
	caseOutcome, caseDetail := s.Outcome, s.Detail
	s.Outcome, s.Detail = record.OutcomePass, ""
	selection, args, expected := true, true, false
	for i := range c.Turns {
		e := c.Turns[i].Expect
		if e == nil || i >= len(t.Turns) {
			continue
		}
		ts := Score(turnTranscript(t, i), e, opts)
		if !e.NoTool {
			expected = true
			selection = selection && ts.ToolCorrect
			args = args && ts.ArgsCorrect
		} else if c.ExpectNone && ts.IrrelevanceOK != nil {
			ok := *ts.IrrelevanceOK && (s.IrrelevanceOK == nil || *s.IrrelevanceOK)
			s.IrrelevanceOK = &ok
		}
		if ts.Outcome != record.OutcomePass && s.Outcome == record.OutcomePass {
			s.Outcome, s.Detail, s.Turn = ts.Outcome, fmt.Sprintf("turn %d: %s", i+1, ts.Detail), i+1
			s.Detail = strings.TrimSuffix(s.Detail, ": ")
		}
	}
	if c.ExpectNone && expected {
		s.CallExpected, s.ToolCorrect, s.ArgsCorrect = true, selection, selection && args
	}
	if s.Outcome == record.OutcomePass && caseOutcome != record.OutcomePass {
		s.Outcome, s.Detail = caseOutcome, caseDetail
	}
	if len(c.Checks) > 0 {
		ok := true
		for i, ch := range t.Checks {
			if ch.OK {
				continue
			}
			ok = false
			name := ch.Name
			if i < len(c.Checks) {
				name = c.Checks[i].Tool // as the suite writes it
			}
			if s.Outcome == record.OutcomePass {
				s.Outcome, s.Detail = record.OutcomeWrongState, fmt.Sprintf("check %d (%s): %s", i+1, name, ch.Detail)
			}
		}
		if len(t.Checks) < len(c.Checks) {
			ok = false
			if s.Outcome == record.OutcomePass {
				s.Outcome, s.Detail = record.OutcomeWrongState, fmt.Sprintf("%d of %d checks ran", len(t.Checks), len(c.Checks))
			}
		}
		s.State = &ok
	}
	return s
}

// turnTranscript is the part of t that turn i ran: its rounds and answer,
// as a transcript of one question.
func turnTranscript(t *record.Transcript, i int) *record.Transcript {
	tu := t.Turns[i]
	return &record.Transcript{
		Model: t.Model, Rounds: t.TurnRounds(i), Answer: tu.Answer, RoundLimitHit: tu.RoundLimitHit,
		MaxRounds: t.MaxRounds, NotExecuted: t.NotExecuted, Wall: tu.Wall,
	}
}

// Check is the verdict on state check c whose call ran as ex: the call
// must not have failed, and its result must match c.Result when the check
// gives one.
func Check(ex record.Execution, c *suite.StateCall) record.Check {
	out := record.Check{Execution: ex, OK: true}
	switch {
	case ex.IsError:
		out.OK, out.Detail = false, "the call failed: "+firstLine(ex.Result)
	case c.Result != nil:
		if ok, why := c.Result.Match(ex.Result); !ok {
			out.OK, out.Detail = false, "result"+strings.TrimPrefix(why, "answer")
		}
	}
	return out
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// Case gives the verdict on a trial of case c: Scenario for a scenario,
// Score for a case of one question. A scenario's recorded checks are judged
// again first against c's matchers (in place, each check's OK and Detail),
// so a rescore with an edited check: reads the recorded results anew; the
// checks are not run again.
func Case(t *record.Transcript, c *suite.Case, opts Options) record.Score {
	if !c.IsScenario() {
		return Score(t, &c.Expect, opts)
	}
	for i := range t.Checks {
		if i < len(c.Checks) {
			t.Checks[i] = Check(t.Checks[i].Execution, &c.Checks[i])
		}
	}
	return Scenario(t, c, opts)
}
