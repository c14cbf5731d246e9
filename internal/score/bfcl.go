package score

import (
	"fmt"
	"maps"
	"slices"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/suite"
)

// maxRoundTripSlots bounds the integral numbers whose every int/float
// reading bfclVerdict tries (2^12 checks); past it, it tries all of them
// as floats and each one alone as a float or as an int.
const maxRoundTripSlots = 12

// bfclVerdict is BFCL's own verdict on a trial of a BFCL case, by BFCL's
// rules alone and in BFCL's order (ast_checker.py; eval_runner.py for the
// relevance categories), whatever toolgrade's schema check and outcome say:
//
//   - no_tool (irrelevance): valid when no call was made
//     (relevance_file_runner: a call decoded is irrelevance_error);
//   - any_tool (relevance): valid when a call was made;
//   - no call, or arguments that are not a JSON object: invalid, as BFCL's
//     decoder fails on them (ast_decoder:decoder_failed);
//   - any_order (parallel): parallel_function_checker_no_order, which pairs
//     each expected call in turn with the first unpaired call that passes
//     it: greedy, where toolgrade's Outcome takes a maximum matching;
//   - otherwise the count of calls must be the count expected (one, for
//     simple and multiple), and each call is checked in order by
//     simple_function_checker.
//
// Then it reads the integral numbers of the arguments as floats, in every
// combination: Ollama re-encodes 5.0 as 5, so when one reading changes the
// verdict the record cannot tell which the model sent, and the verdict is
// marked RoundTrip.
func bfclVerdict(e *suite.Expect, calls []record.ToolCall) *record.BFCLVerdict {
	args := make([]map[string]any, len(calls))
	for i, c := range calls {
		m, err := decodeArgs(c.Arguments)
		if err != nil {
			return &record.BFCLVerdict{Error: "ast_decoder:decoder_failed", Detail: fmt.Sprintf("%s (call %d): %v", c.Name, i+1, err)}
		}
		args[i] = m
	}
	v := bfclCheck(e, calls, args)
	slots := countIntegral(args)
	if slots == 0 || e.NoTool || e.AnyTool {
		return v
	}
	eachReading(slots, func(floats []bool) bool {
		v.RoundTrip = bfclCheck(e, calls, asFloats(args, floats)).Valid != v.Valid
		return !v.RoundTrip
	})
	return v
}

// bfclCheck is BFCL's ast_checker (and the relevance runners) on calls
// whose arguments are args.
func bfclCheck(e *suite.Expect, calls []record.ToolCall, args []map[string]any) *record.BFCLVerdict {
	switch {
	case e.NoTool:
		if len(calls) > 0 {
			return &record.BFCLVerdict{Error: "irrelevance_error:decoder_success", Detail: fmt.Sprintf("called %s", calls[0].Name)}
		}
		return &record.BFCLVerdict{Valid: true}
	case e.AnyTool:
		if len(calls) == 0 {
			return &record.BFCLVerdict{Error: "relevance_error:decoder_failed", Detail: "no call"}
		}
		return &record.BFCLVerdict{Valid: true}
	case len(calls) == 0:
		return &record.BFCLVerdict{Error: "ast_decoder:decoder_failed", Detail: "no call"}
	case len(calls) != len(e.Calls):
		checker := "simple_function_checker"
		if e.AnyOrder {
			checker = "parallel_function_checker_no_order"
		}
		return &record.BFCLVerdict{Error: checker + ":wrong_count", Detail: fmt.Sprintf("%d calls, %d expected", len(calls), len(e.Calls))}
	case e.AnyOrder:
		return bfclNoOrder(e, calls, args)
	}
	for i, w := range e.Calls {
		if errType, why := bfclCall(w, calls[i], args[i]); errType != "" {
			return &record.BFCLVerdict{Error: errType, Detail: fmt.Sprintf("%s (call %d): %s", calls[i].Name, i+1, why)}
		}
	}
	return &record.BFCLVerdict{Valid: true}
}

// bfclNoOrder is parallel_function_checker_no_order: each expected call,
// in order, takes the first call not yet taken that passes it.
func bfclNoOrder(e *suite.Expect, calls []record.ToolCall, args []map[string]any) *record.BFCLVerdict {
	taken := make([]bool, len(calls))
	for wi, w := range e.Calls {
		found, last := false, ""
		for i := range calls {
			if taken[i] {
				continue
			}
			errType, why := bfclCall(w, calls[i], args[i])
			if errType == "" {
				taken[i], found = true, true
				break
			}
			last = fmt.Sprintf("%s (call %d): %s: %s", calls[i].Name, i+1, errType, why)
		}
		if !found {
			return &record.BFCLVerdict{Error: "parallel_function_checker_no_order:cannot_find_match",
				Detail: fmt.Sprintf("no call matches expected call %d (%s); last tried: %s", wi+1, wantName(w), last)}
		}
	}
	return &record.BFCLVerdict{Valid: true}
}

// bfclCall is simple_function_checker: the name, the required parameters,
// each parameter sent (known to the answer, then its type and value), then
// the parameters left out (allowed only when "" is accepted).
func bfclCall(w suite.ExpectedCall, c record.ToolCall, args map[string]any) (errType, why string) {
	if c.Name != wantName(w) {
		return "simple_function_checker:wrong_func_name", fmt.Sprintf("got %q, want %q", c.Name, wantName(w))
	}
	for _, m := range w.Args {
		if _, sent := args[m.Key]; !sent && m.BFCL != nil && m.BFCL.Required {
			return "simple_function_checker:missing_required", fmt.Sprintf("missing required parameter %q", m.Key)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(args)) {
		m, ok := w.Args.Get(k)
		if !ok {
			return "simple_function_checker:unexpected_param", fmt.Sprintf("unexpected parameter %q", k)
		}
		if errType, why := m.CheckBFCL(args[k], true); errType != "" {
			return errType, fmt.Sprintf("%s: %s", k, why)
		}
	}
	for _, m := range w.Args {
		if _, sent := args[m.Key]; sent {
			continue
		}
		if errType, why := m.CheckBFCL(nil, false); errType != "" {
			return errType, fmt.Sprintf("%s: %s", m.Key, why)
		}
	}
	return "", ""
}
