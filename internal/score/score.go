// Package score gives the verdict on one trial: it compares the transcript of
// a conversation with what its case expects and picks exactly one outcome,
// checking in a fixed order so the first thing that went wrong is the one
// reported.
package score

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/suite"
)

// Options tune scoring for a whole run.
type Options struct {
	// NormalizeStrings compares literal string arguments BFCL-style (see
	// suite.MatchOptions).
	NormalizeStrings bool
	// NumCtx is the context size the trial ran with; a prompt that reached it
	// marks the score Truncated. 0 turns the flag off.
	NumCtx int
	// StrictArgs applies to cases that do not set strict_args themselves.
	StrictArgs bool
	// Tools is the catalog the trial was offered. It checks the calls of
	// trials that did not execute, which have no executions to say whether
	// a name was a tool and whether its arguments fit (see Score); says
	// which names the thinking of a call_in_thinking trial may call (nil:
	// the tools the case expects); when it is a Coercer, which invalid calls
	// are valid if coerced (nil: none); and when it reports decoys, which
	// wrong tool was one. Nil leaves the calls of trials without execution
	// unchecked. The catalogs of package toolbox and *mcpclient.Catalog are
	// such catalogs.
	Tools suite.Catalog
}

// OptionsFor returns the scoring options a suite's defaults ask for.
func OptionsFor(d *suite.Defaults) Options {
	return Options{NormalizeStrings: d.NormalizeStrings, NumCtx: d.NumCtx(), StrictArgs: d.StrictArgs}
}

// Score gives the verdict on one trial: t is its transcript, e its case's
// expectation as suite.Parse (and, ideally, Suite.Check) produced it.
//
// The outcome is the first of these that applies: infra_error; for no_tool
// cases unexpected_call, call_in_text, empty_answer, wrong_answer; for cases
// expecting calls, when no call was made call_in_text (the answer writes a
// call), call_in_thinking (the thinking writes a call to a listed tool: the
// answer wins when both do), empty_answer, no_call;
// then hallucinated_tool or wrong_tool for the first call, then for the
// expected calls hallucinated_tool or wrong_tool, invalid_args,
// hidden_constraint (arguments that broke only constraints the model was not
// shown, Execution.HiddenOnly), wrong_args,
// missing_call, then round_limit (detail "repeating NAME(ARGS)" when the
// last round that called tools repeated an earlier call), extra_call
// (calls: form only), and last
// empty_answer, wrong_answer; else pass.
//
// A trial that ran without execution (t.NotExecuted: execute: false) has one
// round and no executions, and is scored on that first response: tool
// compares its first call, calls its calls (all of them must be in that one
// response, so a chain whose later calls need an earlier result ends as
// missing_call: write such a case as tool: for its first call), no_tool
// passes when it has no call. The answer is judged only when the response
// has no call (no_tool cases, and the no-call outcomes); with a call, the
// text beside it is not a final answer, so neither empty_answer nor
// wrong_answer applies. With opts.Tools set, each call is checked as the
// catalog would before running it, so hallucinated_tool and invalid_args
// (and the counts of calls to known tools and valid calls) mean what they
// mean for executed trials; without it a name that is no tool scores
// wrong_tool and arguments are judged by the case's matchers alone.
//
// A call the tool policy blocked (record.ExecBlocked) is scored like any
// other: it named a tool, with arguments, and the model was told it did not
// run; it counts as neither a valid nor an invalid call.
func Score(t *record.Transcript, e *suite.Expect, opts Options) record.Score {
	calls, execs := t.ToolCalls(), t.Executions()
	if t.NotExecuted && opts.Tools != nil && len(execs) == 0 {
		execs = checkCalls(calls, opts.Tools)
	}
	s := record.Score{CallExpected: !e.NoTool, Rounds: len(t.Rounds)}
	for _, x := range execs {
		if x.Failed() && !t.NotExecuted {
			// What the model was told; a call never run told it nothing.
			s.FailedCalls++
		}
		if x.ErrorKind == record.ExecBlocked {
			// Never sent, so its arguments were never checked: neither a
			// valid nor an invalid call.
			continue
		}
		if x.ErrorKind != record.ExecUnknownTool {
			s.CallsToKnownTools++
			if x.ErrorKind != record.ExecInvalidArgs {
				s.ValidCalls++
			}
			if x.ErrorKind != record.ExecInvalidArgs || x.HiddenOnly {
				s.ValidVisibleCalls++
			}
		}
	}
	var coerced []bool
	if opts.Tools != nil {
		coerced = validIfCoerced(execs, opts.Tools)
		// Recorded only when coercion changes the figure: Judge reads an
		// absent count as ValidCalls.
		if n := countTrue(coerced); n > 0 {
			s.ValidCoercedCalls = s.ValidCalls + n
		}
	}
	s.RepeatedCalls, _, _ = repeats(t)
	s.Truncated = Truncated(t, opts.NumCtx)
	sc := &scorer{t: t, e: e, opts: opts, calls: calls, execs: execs, coerced: coerced}
	s.Outcome, s.Detail = sc.verdict(&s)
	if s.Outcome != record.OutcomeInfraError {
		// Every judgement of the trial is made here, once: reports count it.
		hit := t.RoundLimitHit
		s.RoundLimit = &hit
		if e.NoTool {
			ok := len(calls) == 0 && !CallInText(t.Answer)
			s.IrrelevanceOK = &ok
		}
		if e.BFCL {
			s.BFCL = bfclVerdict(e, calls)
		}
	}
	return s
}

func countTrue(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// checkCalls stands in for the executions a trial without execution does
// not have: what the catalog would have said of each call before running it
// (unknown_tool, invalid_args, or nothing). They are never recorded.
func checkCalls(calls []record.ToolCall, tools suite.Catalog) []record.Execution {
	execs := make([]record.Execution, len(calls))
	for i, c := range calls {
		x := record.Execution{CallID: c.ID, Name: c.Name, Arguments: c.Arguments}
		exposed, ok := tools.Resolve(c.Name)
		switch {
		case !ok:
			x.IsError, x.ErrorKind, x.Error = true, record.ExecUnknownTool, fmt.Sprintf("unknown tool %q", c.Name)
		case isDecoy(tools, exposed):
			x.Tool, x.IsError, x.ErrorKind = exposed, true, record.ExecDecoy
		default:
			x.Tool = exposed
			if err := tools.ValidateArgs(exposed, c.Arguments); err != nil {
				x.IsError, x.ErrorKind, x.Error = true, record.ExecInvalidArgs, err.Error()
				x.HiddenOnly = hiddenOnly(err)
			}
		}
		execs[i] = x
	}
	return execs
}

// hiddenOnly reports whether a validation error comes only from constraints
// the model was not shown (the catalog's errors say so by a HiddenOnly
// method).
func hiddenOnly(err error) bool {
	var h interface{ HiddenOnly() bool }
	return errors.As(err, &h) && h.HiddenOnly()
}

// scorer holds one trial being scored.
type scorer struct {
	t     *record.Transcript
	e     *suite.Expect
	opts  Options
	calls []record.ToolCall
	execs []record.Execution
	// coerced marks the executions that are valid if coerced; nil when
	// the catalog cannot say.
	coerced []bool
}

// exec returns the execution of call i; the zero Execution when the
// transcript has none for it.
func (sc *scorer) exec(i int) record.Execution {
	if i < len(sc.execs) {
		return sc.execs[i]
	}
	return record.Execution{}
}

func (sc *scorer) strict() bool {
	if sc.e.StrictArgs != nil {
		return *sc.e.StrictArgs
	}
	return sc.opts.StrictArgs
}

// answer applies the answer matcher, if any, to the final text.
func (sc *scorer) answer(answer string) (string, string) {
	if m := sc.e.Answer; m != nil {
		if ok, why := m.Match(answer); !ok {
			return record.OutcomeWrongAnswer, why
		}
	}
	return record.OutcomePass, ""
}

// pair is an expected call and the index of the call matched to it.
type pair struct {
	want suite.ExpectedCall
	call int
}

// pairAnyOrder matches expected calls to distinct calls of the same tool
// whose arguments match, as many as possible (a maximum bipartite matching,
// so a loose expectation cannot steal the only call a strict one fits). The
// expected calls left over then take the remaining call of their tool with
// the fewest mismatching arguments, for the diff.
func (sc *scorer) pairAnyOrder() (ps []pair, unpaired []suite.ExpectedCall, spare []int) {
	expected := sc.e.Calls
	fits := make([][]int, len(expected))
	for w, want := range expected {
		for c := range sc.calls {
			if names(sc.calls[c], sc.exec(c), want) && len(sc.mismatches(want, c)) == 0 {
				fits[w] = append(fits[w], c)
			}
		}
	}
	owner := maxMatching(fits, len(sc.calls))
	matched := make([]int, len(expected))
	for w := range expected {
		matched[w] = -1
	}
	for c, w := range owner {
		if w >= 0 {
			matched[w] = c
		}
	}
	for w, want := range expected {
		if matched[w] >= 0 {
			continue
		}
		best, bestN := -1, 0
		for c := range sc.calls {
			if owner[c] >= 0 || !names(sc.calls[c], sc.exec(c), want) {
				continue
			}
			if n := len(sc.mismatches(want, c)); best < 0 || n < bestN {
				best, bestN = c, n
			}
		}
		if best >= 0 {
			owner[best], matched[w] = w, best
		}
	}
	for w, want := range expected {
		if matched[w] >= 0 {
			ps = append(ps, pair{want: want, call: matched[w]})
		} else {
			unpaired = append(unpaired, want)
		}
	}
	for c, w := range owner {
		if w < 0 {
			spare = append(spare, c)
		}
	}
	return ps, unpaired, spare
}

// maxMatching pairs as many expected calls w with distinct calls of
// fits[w] as it can (augmenting paths, expected calls tried in order) and
// returns, for each of the calls, the expected call it is paired with, or -1.
func maxMatching(fits [][]int, calls int) (owner []int) {
	owner = make([]int, calls)
	for c := range owner {
		owner[c] = -1
	}
	var augment func(w int, seen []bool) bool
	augment = func(w int, seen []bool) bool {
		for _, c := range fits[w] {
			if seen[c] {
				continue
			}
			seen[c] = true
			if owner[c] < 0 || augment(owner[c], seen) {
				owner[c] = w
				return true
			}
		}
		return false
	}
	for w := range fits {
		augment(w, make([]bool, calls))
	}
	return owner
}

// argsCorrect: every pair (all of which name the right tool) had matching
// arguments that also passed the tool's schema.
func (sc *scorer) argsCorrect(ps []pair) bool {
	if len(ps) == 0 {
		return false
	}
	for _, p := range ps {
		if sc.exec(p.call).ErrorKind == record.ExecInvalidArgs || len(sc.mismatches(p.want, p.call)) > 0 {
			return false
		}
	}
	return true
}

// mismatches checks call c's arguments against want.
func (sc *scorer) mismatches(want suite.ExpectedCall, c int) []suite.Mismatch {
	args, err := decodeArgs(sc.calls[c].Arguments)
	if err != nil {
		return []suite.Mismatch{{Key: "", Why: err.Error()}}
	}
	return want.Args.Match(args, sc.strict(), suite.MatchOptions{NormalizeStrings: sc.opts.NormalizeStrings})
}

// decodeArgs reads a call's arguments as a JSON object, numbers kept exact.
func decodeArgs(raw json.RawMessage) (map[string]any, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("arguments are not valid JSON: %v", err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("arguments are %s, not an object", suite.Flow(v))
	}
	return m, nil
}

// names reports whether a call named the expected tool. After Suite.Check
// the exposed name decides; before it, the name as written is compared with
// the call's name and with the server and tool the bridge resolved it to.
func names(c record.ToolCall, x record.Execution, want suite.ExpectedCall) bool {
	if want.Exposed != "" {
		return c.Name == want.Exposed
	}
	if c.Name == want.Tool {
		return true
	}
	if x.Tool == "" {
		return false
	}
	return want.Tool == x.Tool || want.Tool == x.Server+"."+x.Tool || want.Tool == x.Server+"__"+x.Tool
}

func wantName(w suite.ExpectedCall) string {
	if w.Exposed != "" {
		return w.Exposed
	}
	return w.Tool
}

func wantNames(ws []suite.ExpectedCall) string {
	var out []string
	for _, w := range ws {
		if n := strconv.Quote(wantName(w)); !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	if len(out) == 1 {
		return out[0]
	}
	return "one of " + strings.Join(out, ", ")
}

// describe shows an expected call as a suite writes it.
func describe(w suite.ExpectedCall) string {
	if len(w.Args) == 0 {
		return wantName(w)
	}
	parts := make([]string, len(w.Args))
	for i, m := range w.Args {
		parts[i] = suite.Flow(m.Key) + ": " + m.String()
	}
	return wantName(w) + " {" + strings.Join(parts, ", ") + "}"
}

func callNames(calls []record.ToolCall) string {
	out := make([]string, len(calls))
	for i, c := range calls {
		out[i] = c.Name
	}
	return strings.Join(out, ", ")
}

func failureDetail(f *record.Failure) string {
	d := f.Kind + ": " + f.Message
	if f.HTTPStatus != 0 {
		d += fmt.Sprintf(" (HTTP %d)", f.HTTPStatus)
	}
	return d
}

// Truncated reports whether a prompt of t reached numCtx, so that Ollama cut
// it and the model may not have seen the tools; numCtx 0 (unknown) never
// does. ask warns with it, as Score marks a trial.
func Truncated(t *record.Transcript, numCtx int) bool {
	if numCtx <= 0 {
		return false
	}
	for _, r := range t.Rounds {
		if r.Metrics.PromptEvalCount >= numCtx {
			return true
		}
	}
	return false
}
