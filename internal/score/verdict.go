package score

import (
	"fmt"
	"slices"
	"strings"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/suite"
	"github.com/toolgrade/toolgrade/internal/termtext"
)

// verdict picks the outcome in the order Score documents, filling
// ToolCorrect and ArgsCorrect on the way. Each step returns an empty
// outcome when it finds nothing wrong, and the next one looks further.
func (sc *scorer) verdict(s *record.Score) (outcome, detail string) {
	if o, d := sc.infraError(); o != "" {
		return o, d
	}
	answer := sc.t.Answer
	if sc.e.NoTool {
		return sc.noTool(s, answer)
	}
	if len(sc.calls) == 0 {
		return sc.noCall(answer)
	}
	if len(sc.e.Calls) == 0 {
		// any_tool (or a hand-made Expect with no calls): any call to a
		// tool of the catalog will do.
		return sc.anyTool(s, answer)
	}
	if o, d := sc.firstCall(s); o != "" {
		return o, d
	}
	p, o, d := sc.pairCalls(s)
	if o != "" {
		return o, d
	}
	s.ArgsCorrect = sc.argsCorrect(p.ps)
	if o, d := sc.mistake(p); o != "" {
		return o, d
	}
	if o, d := sc.callFailed(p.ps); o != "" {
		return o, d
	}
	return sc.finish(p, answer)
}

// infraError is infra_error when the conversation or a tool's execution
// failed for a reason that is not the model's.
func (sc *scorer) infraError() (outcome, detail string) {
	if f := sc.t.Failure; f != nil {
		return record.OutcomeInfraError, failureDetail(f)
	}
	for _, x := range sc.execs {
		if x.InfraError() {
			return record.OutcomeInfraError, fmt.Sprintf("tool %s: %s: %s", x.Name, x.ErrorKind, x.Error)
		}
	}
	return "", ""
}

// noTool judges a no_tool case.
func (sc *scorer) noTool(s *record.Score, answer string) (outcome, detail string) {
	// Abstaining is the right selection, and there are no arguments to
	// get wrong.
	s.ToolCorrect = len(sc.calls) == 0
	s.ArgsCorrect = s.ToolCorrect
	switch {
	case len(sc.calls) > 0:
		return record.OutcomeUnexpectedCall, "called " + callNames(sc.calls)
	case CallInText(answer):
		return record.OutcomeCallInText, termtext.Excerpt(answer, 300)
	case strings.TrimSpace(answer) == "":
		return record.OutcomeEmptyAnswer, "the answer is empty"
	}
	return sc.answer(answer)
}

// noCall judges a case expecting calls in which the model made none.
func (sc *scorer) noCall(answer string) (outcome, detail string) {
	// The answer outranks the thinking: a call written where the client
	// reads it is the nearer miss.
	if CallInText(answer) {
		return record.OutcomeCallInText, termtext.Excerpt(answer, 300)
	}
	if name, ok := callInThinking(sc.t, sc.e, sc.opts.Tools); ok {
		return record.OutcomeCallInThinking, thinkingDetail(sc.t, name)
	}
	switch {
	case strings.TrimSpace(answer) == "":
		return record.OutcomeEmptyAnswer, "no tool call and no answer"
	}
	return record.OutcomeNoCall, "answered without a tool call: " + termtext.Excerpt(answer, 300)
}

// firstCall judges the first call's tool, which decides ToolCorrect:
// hallucinated_tool or wrong_tool, or nothing wrong.
func (sc *scorer) firstCall(s *record.Score) (outcome, detail string) {
	expected := sc.e.Calls
	first, firstExec := sc.calls[0], sc.exec(0)
	var firstOK bool
	if sc.e.AnyOrder {
		firstOK = slices.ContainsFunc(expected, func(w suite.ExpectedCall) bool { return names(first, firstExec, w) })
	} else {
		firstOK = names(first, firstExec, expected[0])
	}
	s.ToolCorrect = firstOK && firstExec.ErrorKind != record.ExecUnknownTool
	if firstExec.ErrorKind == record.ExecUnknownTool {
		return record.OutcomeHallucinatedTool, fmt.Sprintf("%q is not a tool", first.Name)
	}
	if !firstOK {
		if sc.e.AnyOrder {
			return sc.wrongTool(0, fmt.Sprintf("got %q, want %s", first.Name, wantNames(expected)))
		}
		return sc.wrongTool(0, fmt.Sprintf("got %q, want %q", first.Name, wantName(expected[0])))
	}
	return "", ""
}

// pairing is how the calls of a trial met its expected calls.
type pairing struct {
	ps []pair
	// unpaired are the expected calls no call of their tool was left for.
	unpaired []suite.ExpectedCall
	// spare are the calls paired with no expected call.
	spare []int
}

// pairCalls pairs the calls with the expected calls as the case's form
// says: the first call alone (tool:), in any order, or in order. In order,
// a call that names no tool or the wrong tool ends the verdict: its
// outcome is returned.
func (sc *scorer) pairCalls(s *record.Score) (p pairing, outcome, detail string) {
	switch {
	case sc.e.FirstOnly:
		p.ps = []pair{{want: sc.e.Calls[0], call: 0}}
	case sc.e.AnyOrder:
		p.ps, p.unpaired, p.spare = sc.pairAnyOrder()
	default:
		return sc.pairInOrder(s)
	}
	return p, "", ""
}

// pairInOrder pairs the i-th expected call with the i-th call.
func (sc *scorer) pairInOrder(s *record.Score) (p pairing, outcome, detail string) {
	expected := sc.e.Calls
	for i, w := range expected {
		if i >= len(sc.calls) {
			p.unpaired = append(p.unpaired, w)
			continue
		}
		if x := sc.exec(i); x.ErrorKind == record.ExecUnknownTool {
			return p, record.OutcomeHallucinatedTool, fmt.Sprintf("call %d: %q is not a tool", i+1, sc.calls[i].Name)
		}
		if !names(sc.calls[i], sc.exec(i), w) {
			s.ArgsCorrect = sc.argsCorrect(p.ps)
			outcome, detail = sc.wrongTool(i, fmt.Sprintf("call %d: got %q, want %q", i+1, sc.calls[i].Name, wantName(w)))
			return p, outcome, detail
		}
		p.ps = append(p.ps, pair{want: w, call: i})
	}
	for i := len(expected); i < len(sc.calls); i++ {
		p.spare = append(p.spare, i)
	}
	return p, "", ""
}

// mistake returns the first thing wrong with the paired calls: a spare
// call where an expected call lacks one of its tool, invalid arguments,
// arguments that do not match, a missing call; an empty outcome when none.
func (sc *scorer) mistake(p pairing) (outcome, detail string) {
	// An expected call left without a call of its tool while other calls
	// went unused: those calls named the wrong tools.
	if len(p.unpaired) > 0 && len(p.spare) > 0 {
		i := p.spare[0]
		if sc.exec(i).ErrorKind == record.ExecUnknownTool {
			return record.OutcomeHallucinatedTool, fmt.Sprintf("call %d: %q is not a tool", i+1, sc.calls[i].Name)
		}
		return sc.wrongTool(i, fmt.Sprintf("call %d: got %q, want %s", i+1, sc.calls[i].Name, wantNames(p.unpaired)))
	}
	if o, d := sc.invalidArgs(p.ps); o != "" {
		return o, d
	}
	for _, pp := range p.ps {
		if d := sc.argsDiff(pp); d != "" {
			return record.OutcomeWrongArgs, d
		}
	}
	if len(p.unpaired) > 0 {
		missing := make([]string, len(p.unpaired))
		for i, w := range p.unpaired {
			missing[i] = describe(w)
		}
		n := len(sc.e.Calls)
		return record.OutcomeMissingCall, fmt.Sprintf("%d of %d expected calls made; missing: %s", n-len(p.unpaired), n, strings.Join(missing, "; "))
	}
	return "", ""
}

// invalidArgs is invalid_args for the first paired call whose arguments
// broke its schema as the model was shown it, else hidden_constraint for
// the first that broke only what it was not shown: the model's own mistake
// outranks the other.
func (sc *scorer) invalidArgs(ps []pair) (outcome, detail string) {
	for _, p := range ps {
		if x := sc.exec(p.call); x.ErrorKind == record.ExecInvalidArgs && !x.HiddenOnly {
			d := fmt.Sprintf("%s: %s", sc.calls[p.call].Name, x.Error)
			if p.call < len(sc.coerced) && sc.coerced[p.call] {
				d += " (valid if coerced)"
			}
			return record.OutcomeInvalidArgs, d
		}
	}
	for _, p := range ps {
		if x := sc.exec(p.call); x.ErrorKind == record.ExecInvalidArgs {
			return record.OutcomeHiddenConstraint, fmt.Sprintf("%s: %s", sc.calls[p.call].Name, x.Error)
		}
	}
	return "", ""
}

// finish judges a trial whose calls were right: the round limit, extra
// calls, then (when the trial executed) the final answer.
func (sc *scorer) finish(p pairing, answer string) (outcome, detail string) {
	if sc.t.RoundLimitHit {
		if _, c, ok := repeats(sc.t); ok {
			return record.OutcomeRoundLimit, "repeating " + showCall(c)
		}
		return record.OutcomeRoundLimit, "still calling tools after " + termtext.Count(max(sc.t.MaxRounds, len(sc.t.Rounds)-1), "round")
	}
	if !sc.e.FirstOnly && len(p.spare) > 0 {
		extra := make([]string, len(p.spare))
		for i, c := range p.spare {
			extra[i] = sc.calls[c].Name
		}
		return record.OutcomeExtraCall, fmt.Sprintf("%d calls, %d expected; extra: %s", len(sc.calls), len(sc.e.Calls), strings.Join(extra, ", "))
	}
	if sc.t.NotExecuted {
		return record.OutcomePass, ""
	}
	if strings.TrimSpace(answer) == "" {
		return record.OutcomeEmptyAnswer, "the calls were right but the final answer is empty"
	}
	return sc.answer(answer)
}

// callFailed is call_failed for the first expected call whose paired call
// failed as it ran (the tool's error, or the policy's block) when no other
// call fitting the same expectation ran without error: the answer then
// rests on no result of the tool. A case with call_may_fail allows it, and
// a trial that did not execute ran nothing.
func (sc *scorer) callFailed(ps []pair) (outcome, detail string) {
	if sc.e.CallMayFail || sc.t.NotExecuted {
		return "", ""
	}
	for _, p := range ps {
		x := sc.exec(p.call)
		if x.ErrorKind != record.ExecToolError && x.ErrorKind != record.ExecBlocked {
			continue
		}
		if sc.ranFitting(p.want) {
			continue
		}
		return record.OutcomeCallFailed, fmt.Sprintf("%s: %s: %s", sc.calls[p.call].Name, x.ErrorKind, termtext.Excerpt(failText(x), 300))
	}
	return "", ""
}

// ranFitting reports whether some call fits want (its tool, matching
// arguments) and ran without error.
func (sc *scorer) ranFitting(want suite.ExpectedCall) bool {
	for c := range sc.calls {
		if x := sc.exec(c); !x.IsError && x.Name != "" && names(sc.calls[c], x, want) && len(sc.mismatches(want, c)) == 0 {
			return true
		}
	}
	return false
}

// failText is what the model was told of a failed call: the error behind
// it (the tool's own text, or why the policy blocked it), else its result.
func failText(x record.Execution) string {
	if strings.TrimSpace(x.Error) != "" {
		return x.Error
	}
	return x.Result
}
