package bfclfake

import (
	"slices"
	"testing"

	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/score"
)

// set returns an edit that sets (or, with nil, removes) argument key of
// call i.
func set(i int, key string, v any) func([]fakeollama.ToolCall) []fakeollama.ToolCall {
	return func(cs []fakeollama.ToolCall) []fakeollama.ToolCall {
		args := slices.Clone(cs[i].Arguments)
		j := slices.IndexFunc(args, func(a fakeollama.Arg) bool { return a.Key == key })
		switch {
		case v == nil && j >= 0:
			args = slices.Delete(args, j, j+1)
		case j >= 0:
			args[j].Value = v
		case v != nil:
			args = append(args, fakeollama.Arg{Key: key, Value: v})
		}
		cs[i].Arguments = args
		return cs
	}
}

// TestPerturbedOneRuleAtATime changes the ground-truth answer of a fixture
// in one way at a time and scores it through the imported suite: each
// verdict is BFCL's, written down from its checker (ast_checker.py), beside
// the outcome toolgrade gives.
func TestPerturbedOneRuleAtATime(t *testing.T) {
	im, s := fixtures(t)
	script, err := Script(im)
	if err != nil {
		t.Fatal(err)
	}
	good := map[string]fakeollama.Reply{}
	for i, q := range im.Questions {
		good[q.ID] = script.Rules[2*i].Reply
	}
	type edit = func([]fakeollama.ToolCall) []fakeollama.ToolCall
	for _, tt := range []struct {
		name, id string
		edit     edit
		content  string // replaces the reply's text when set
		outcome  string
		valid    bool // BFCL's verdict
	}{
		{"ground truth", "simple_1", func(cs []fakeollama.ToolCall) []fakeollama.ToolCall { return cs }, "", record.OutcomePass, true},
		{"int for a float", "simple_1", set(0, "base", int64(10)), "", record.OutcomePass, true},
		{"string for a float (type_error:simple)", "simple_1", set(0, "base", "10"), "", record.OutcomeWrongArgs, false},
		{"optional left out", "simple_1", set(0, "unit", nil), "", record.OutcomePass, true},
		{"optional standardized", "simple_1", set(0, "unit", " CM."), "", record.OutcomePass, true},
		{"optional wrong (value_error:string)", "simple_1", set(0, "unit", "m"), "", record.OutcomeWrongArgs, false},
		{"required left out (missing_required)", "simple_1", set(0, "height", nil), "", record.OutcomeWrongArgs, false},
		{"unknown parameter (unexpected_param)", "simple_1", set(0, "color", "red"), "", record.OutcomeWrongArgs, false},
		{"unmapped name (wrong_func_name)", "simple_0", func(cs []fakeollama.ToolCall) []fakeollama.ToolCall { cs[0].Name = "math.factorial"; return cs }, "", record.OutcomeWrongTool, false},
		{"list out of order (value_error:list/tuple)", "simple_2", set(0, "cities", []any{"New York", "Paris"}), "", record.OutcomeWrongArgs, false},
		{"list standardized", "simple_2", set(0, "cities", []any{"paris", "NEW-YORK"}), "", record.OutcomePass, true},
		{"dict optional key left out", "simple_2", set(0, "budget", map[string]any{"total": 1000}), "", record.OutcomePass, true},
		{"dict unknown key (value_error:dict_key)", "simple_2", set(0, "budget", map[string]any{"total": 1000, "tip": 1}), "", record.OutcomeWrongArgs, false},
		{"dict wrong value (value_error:dict_value)", "simple_2", set(0, "budget", map[string]any{"total": 999}), "", record.OutcomeWrongArgs, false},
		{"optional tuple left out", "simple_2", set(0, "window", nil), "", record.OutcomePass, true},
		{"list of dicts standardized", "simple_3", set(0, "stops", []any{map[string]any{"name": "bakery", "minutes": 5}}), "", record.OutcomePass, true},
		{"any given a number (type_error:simple)", "simple_3", set(0, "text", 5), "", record.OutcomeWrongArgs, false},
		{"java long without L", "java_0", set(0, "ttl", "5000"), "", record.OutcomeWrongArgs, false},
		{"java value not a string (type_error:java)", "java_0", set(0, "ttl", int64(5000)), "", record.OutcomeWrongArgs, false},
		{"js integer in its string form", "javascript_0", set(0, "offset", "20"), "", record.OutcomePass, true},
		{"two calls where one is expected (wrong_count)", "multiple_0", func(cs []fakeollama.ToolCall) []fakeollama.ToolCall { return append(cs, cs[0]) }, "", record.OutcomeExtraCall, false},
		{"the other function (wrong_func_name)", "multiple_0", func([]fakeollama.ToolCall) []fakeollama.ToolCall {
			return []fakeollama.ToolCall{fakeollama.Call("stock_price", "ticker", "BER")}
		}, "", record.OutcomeWrongTool, false},
		{"alternative accepted", "multiple_0", set(0, "city", "berlin, germany"), "", record.OutcomePass, true},
		{"parallel in the other order", "parallel_0", func(cs []fakeollama.ToolCall) []fakeollama.ToolCall { return []fakeollama.ToolCall{cs[1], cs[0]} }, "", record.OutcomePass, true},
		{"parallel one call short (wrong_count)", "parallel_0", func(cs []fakeollama.ToolCall) []fakeollama.ToolCall { return cs[:1] }, "", record.OutcomeMissingCall, false},
		{"parallel optional given (unit: only \"\")", "parallel_0", set(0, "unit", "celsius"), "", record.OutcomeWrongArgs, false},
		{"parallel_multiple reversed", "parallel_multiple_0", func(cs []fakeollama.ToolCall) []fakeollama.ToolCall { return []fakeollama.ToolCall{cs[1], cs[0]} }, "", record.OutcomePass, true},
		// BFCL's function-calling handlers decode only structured calls: a
		// call written in the text is no call to BFCL, a failure to toolgrade.
		{"irrelevance call in text", "irrelevance_0", nil, `{"name": "math_factorial", "arguments": {"number": 5}}`, record.OutcomeCallInText, true},
		{"relevance without a call", "live_relevance_0-0-0", func([]fakeollama.ToolCall) []fakeollama.ToolCall { return nil }, "Sunny somewhere.", record.OutcomeNoCall, false},
		{"relevance, any arguments", "live_relevance_0-0-0", set(0, "city", "Atlantis"), "", record.OutcomePass, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := good[tt.id]
			if tt.edit != nil {
				r.ToolCalls = tt.edit(slices.Clone(r.ToolCalls))
			}
			if tt.content != "" {
				r.Content = tt.content
			}
			c := s.Case(tt.id)
			sc := score.Score(transcript(t, r), &c.Expect, score.OptionsFor(&s.Defaults))
			j := record.Judge(&record.Trial{Tags: c.Tags, Score: sc})
			if sc.Outcome != tt.outcome || j.BFCL == nil || j.BFCL.OK != tt.valid {
				t.Errorf("%s: %s (%s), BFCL valid %v; want %s, valid %v", tt.id, sc.Outcome, sc.Detail, j.BFCL, tt.outcome, tt.valid)
			}
		})
	}
}
