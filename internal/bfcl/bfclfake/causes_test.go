package bfclfake

import (
	"os"
	"strings"
	"testing"

	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/fakes/rig"
	"github.com/toolgrade/toolgrade/internal/bfcl"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/score"
	"github.com/toolgrade/toolgrade/internal/suite"
	"github.com/toolgrade/toolgrade/internal/toolbox"
)

// causes imports testdata/causes (questions written for the project, one
// per way toolgrade's verdict used to differ from BFCL's) and returns the
// suite, each case's catalog and the import's warnings.
func causes(t *testing.T) (*suite.Suite, map[string]toolbox.Offer, []string) {
	t.Helper()
	src, warnings := causesYAML(t)
	s, err := suite.Parse(src, "causes.yaml")
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	b := toolbox.NewBase(rig.Catalog(t, nil))
	if err := s.Check(b); err != nil {
		t.Fatal(err)
	}
	offers, err := toolbox.CaseOffers(s, b)
	if err != nil {
		t.Fatal(err)
	}
	return s, offers, warnings
}

// causesYAML is the suite import bfcl writes for testdata/causes.
func causesYAML(t *testing.T) ([]byte, []string) {
	t.Helper()
	q, err := os.ReadFile("testdata/causes/questions.json")
	if err != nil {
		t.Fatal(err)
	}
	a, err := os.ReadFile("testdata/causes/answers.json")
	if err != nil {
		t.Fatal(err)
	}
	im, err := readImport(q, a)
	if err != nil {
		t.Fatal(err)
	}
	doc, warnings, err := im.Suite()
	if err != nil {
		t.Fatal(err)
	}
	var src strings.Builder
	if err := bfcl.Write(&src, doc); err != nil {
		t.Fatal(err)
	}
	return []byte(src.String()), warnings
}

// TestBFCLVerdictIsBFCLs plays one model output at a time, passed through
// JSON as Ollama passes it (so 440.0 arrives as 440), and scores it as a
// run does, with the case's catalog checking the arguments: toolgrade's
// outcome may be finer than BFCL's verdict, but the verdict is BFCL's.
// Each want is what BFCL's checker (ast_checker.py, run on the model's own
// values) gives, with the function that decides it.
func TestBFCLVerdictIsBFCLs(t *testing.T) {
	s, offers, _ := causes(t)
	call := func(name string, kv ...any) fakeollama.ToolCall { return fakeollama.Call(name, kv...) }
	for _, tt := range []struct {
		name, id  string
		calls     []fakeollama.ToolCall
		outcome   string // toolgrade's
		valid     bool   // BFCL's, on the model's own values
		roundTrip bool
	}{
		// 1. The schema is checked before BFCL's matchers.
		{"enum case (string_checker standardizes; enums are never checked)", "multiple_0",
			[]fakeollama.ToolCall{call("signal_generate_wave", "wave_type", "SINE", "frequency", 440.0)}, record.OutcomeInvalidArgs, true, false},
		{"ground truth outside the items' enum (list_checker)", "parallel_0",
			[]fakeollama.ToolCall{call("color_convert", "color", "teal", "formats", []any{"rgb", "hex"}), call("color_convert", "color", "crimson", "formats", []any{"hex"})}, record.OutcomeInvalidArgs, true, false},
		{"accepted value outside the enum (string_checker)", "simple_python_0",
			[]fakeollama.ToolCall{call("room_measure", "length", int64(12), "unit", "ft")}, record.OutcomeInvalidArgs, true, true},
		// 2. BFCL's type rules for answers the schema calls wrong.
		{"bool for a string the answer lists (type_checker: a variable)", "simple_python_1",
			[]fakeollama.ToolCall{call("match_get_winner", "players", []any{"Ada", "Bo"}, "date", "2021-01-28", "venue", true)}, record.OutcomeInvalidArgs, true, false},
		{"null for a float the answer lists (type_checker: a variable)", "parallel_1",
			[]fakeollama.ToolCall{call("math_raise", "base", int64(4), "exponent", int64(2), "mod", nil), call("math_raise", "base", int64(6), "exponent", int64(3), "mod", nil)}, record.OutcomeInvalidArgs, true, true},
		{"string for an array the answer lists (type_checker: a variable)", "parallel_multiple_0",
			[]fakeollama.ToolCall{call("chart_plot", "x", "data['sales']"), call("physics_voltage", "distance", 2.0, "charge", 3.0)}, record.OutcomeInvalidArgs, true, false},
		// 3. A parameter the answer lists and the function does not define.
		{"undefined parameter sent (unexpected_param)", "parallel_multiple_0",
			[]fakeollama.ToolCall{call("chart_plot", "x", "data['sales']"), call("physics_voltage", "distance", 2.0, "charge", 3.0, "permeability", 0.1)}, record.OutcomeInvalidArgs, false, false},
		// 4. Float arrays after the round trip.
		{"float items arrive as ints (type_error:nested if the model sent ints)", "simple_python_2",
			[]fakeollama.ToolCall{call("stats_average", "numbers", []any{12.0, 15.0, 18.0})}, record.OutcomeWrongArgs, true, true},
		{"an integer sent as 3.0 arrives as 3 (type_error:simple if the model sent 3.0)", "simple_python_3",
			[]fakeollama.ToolCall{call("chant_repeat", "times", 3.0)}, record.OutcomePass, false, true},
		{"a non-integral float leaves nothing open", "simple_python_3",
			[]fakeollama.ToolCall{call("chant_repeat", "times", 3.5)}, record.OutcomeInvalidArgs, false, false},
		// 5. Greedy pairing of parallel calls (parallel_function_checker_no_order).
		{"a loose expectation takes the call a strict one needs", "parallel_2",
			[]fakeollama.ToolCall{call("stock_price", "company", "Acme", "date", "2022-01-01"), call("stock_price", "company", "Bolt", "date", "2022-01-01")}, record.OutcomePass, false, false},
		{"the same calls the other way round", "parallel_2",
			[]fakeollama.ToolCall{call("stock_price", "company", "Bolt", "date", "2022-01-01"), call("stock_price", "company", "Acme", "date", "2022-01-01")}, record.OutcomePass, true, false},
		// Values YAML 1.1 would read as other types survive the suite file.
		{"YAML 1.1 look-alikes", "simple_python_4",
			[]fakeollama.ToolCall{call("rows_filter", "column", "age", "op", ">=", "value", int64(30), "on", "on")}, record.OutcomePass, true, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := s.Case(tt.id)
			opts := score.OptionsFor(&s.Defaults)
			opts.Tools = offers[tt.id].Catalog
			sc := score.Score(transcript(t, fakeollama.Reply{ToolCalls: tt.calls}), &c.Expect, opts)
			v := sc.BFCL
			if v == nil {
				t.Fatalf("no BFCL verdict (outcome %s)", sc.Outcome)
			}
			// The verdict as received is the model's own unless the round
			// trip left it open, where the received reading may differ.
			if sc.Outcome != tt.outcome || v.RoundTrip != tt.roundTrip || (!tt.roundTrip && v.Valid != tt.valid) {
				t.Errorf("outcome %s (%s), BFCL %+v; want %s, valid %v, round trip %v", sc.Outcome, sc.Detail, *v, tt.outcome, tt.valid, tt.roundTrip)
			}
			if j := record.Judge(&record.Trial{Tags: c.Tags, Score: sc}); j.BFCL == nil || j.BFCL.OK != v.Valid || j.BFCLRoundTrip != v.RoundTrip {
				t.Errorf("judged %+v, round trip %v; the score says %+v", j.BFCL, j.BFCLRoundTrip, *v)
			}
		})
	}
}

// TestUndefinedParameterWarns: a parameter the possible answer lists and
// the function does not define is expected absent, and the import says so
// at the answer's file:line.
func TestUndefinedParameterWarns(t *testing.T) {
	s, _, warnings := causes(t)
	if len(warnings) != 1 || !strings.HasPrefix(warnings[0], "a.json:6: parallel_multiple_0: ") || !strings.Contains(warnings[0], "permeability") {
		t.Fatalf("warnings %q; want one at a.json:6 naming permeability", warnings)
	}
	m, ok := s.Case("parallel_multiple_0").Expect.Calls[1].Args.Get("permeability")
	if !ok || m.Kind != suite.MatchAbsent {
		t.Errorf("permeability is expected %v; want absent", m)
	}
}

// TestNullDetailSaysNull: the schema's refusal of a null reads as a null,
// not as Go's reflection of it.
func TestNullDetailSaysNull(t *testing.T) {
	s, offers, _ := causes(t)
	opts := score.OptionsFor(&s.Defaults)
	opts.Tools = offers["parallel_1"].Catalog
	calls := []fakeollama.ToolCall{fakeollama.Call("math_raise", "base", int64(4), "exponent", int64(2), "mod", nil), fakeollama.Call("math_raise", "base", int64(6), "exponent", int64(3))}
	sc := score.Score(transcript(t, fakeollama.Reply{ToolCalls: calls}), &s.Case("parallel_1").Expect, opts)
	if strings.Contains(sc.Detail, "reflect") || !strings.Contains(sc.Detail, "null") {
		t.Errorf("detail %q; want it to name the null plainly", sc.Detail)
	}
}
