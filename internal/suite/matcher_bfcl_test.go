package suite

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// bfclMatcher parses one {bfcl: ...} matcher the way a suite writes it.
func bfclMatcher(t *testing.T, flow string) ArgMatcher {
	t.Helper()
	src := "cases:\n  - id: a\n    ask: q\n    expect:\n      tool: f\n      args:\n        p: " + flow + "\n"
	s, err := Parse([]byte(src), "b.yaml")
	if err != nil {
		t.Fatalf("%s: %v", flow, err)
	}
	return s.Cases[0].Expect.Calls[0].Args[0]
}

// jsonValue decodes an argument as score.decodeArgs does (numbers kept as
// written).
func jsonValue(t *testing.T, s string) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return v
}

// TestBFCLMatcher holds the verdicts BFCL's AST checker
// (bfcl_eval/eval_checker/ast_eval/ast_checker.py) gives, written down from
// its code: the accepted answer passes, and each perturbation fails with the
// error type BFCL reports (named in the comment), or passes where BFCL's
// rules let it.
func TestBFCLMatcher(t *testing.T) {
	tests := []struct {
		name, matcher, value string // value "" means the parameter is left out
		want                 bool
		why                  string // a substring of why, when not ok
	}{
		// Integers: type_checker wants an int; value_error:others otherwise.
		{"int accepted", "{bfcl: [5], type: integer}", "5", true, ""},
		{"int wrong value", "{bfcl: [5], type: integer}", "6", false, "want one of [5]"},
		{"int given as string", "{bfcl: [5], type: integer}", `"5"`, false, "type_error:simple"},
		{"int given as fraction", "{bfcl: [5], type: integer}", "5.5", false, "type_error:simple"},
		// 5.0 is a float to Python, so BFCL refuses it for an integer; but
		// Ollama's arguments never carry 5.0 (it re-encodes float64(5) as 5).
		{"int given as 5.0", "{bfcl: [5], type: integer}", "5.0", false, "type_error:simple"},
		// Floats: "Allow python auto conversion from int to float".
		{"float accepted", "{bfcl: [10.0], type: float}", "10.0", true, ""},
		{"int for float", "{bfcl: [10.0], type: float}", "10", true, ""},
		{"float wrong value", "{bfcl: [10.0], type: float}", "10.5", false, "want one of [10]"},
		// Optional parameters: "" among the accepted values.
		{"optional left out", `{bfcl: [cm, ""], type: string}`, "", true, ""},
		{"optional given", `{bfcl: [cm, ""], type: string}`, `"CM"`, true, ""},
		{"not optional left out", "{bfcl: [cm], type: string}", "", false, "not marked optional"}, // missing_optional
		{"required left out", `{bfcl: [cm, ""], type: string, required: true}`, "", false, "missing required"},
		// string_checker after standardize_string: space , . / - _ * ^ go,
		// case folds, ' becomes ".
		{"string standardized", `{bfcl: ["New York, NY"], type: string}`, `"new-york ny."`, true, ""},
		{"string quote folded", `{bfcl: ["it's"], type: string}`, `"it\"s"`, true, ""},
		{"string other punctuation kept", `{bfcl: ["New York"], type: string}`, `"New York!"`, false, "standardize_string"},
		{"string tab kept", `{bfcl: ["New York"], type: string}`, `"New\tYork"`, false, "standardize_string"},
		{"string wrong", `{bfcl: ["New York"], type: string}`, `"Newark"`, false, "standardize_string"},
		{"any wants a string", `{bfcl: [milk], type: any}`, "5", false, "type_error:simple"},
		// Booleans are their own type to type_checker.
		{"bool accepted", "{bfcl: [true], type: boolean}", "true", true, ""},
		{"bool given as 1", "{bfcl: [true], type: boolean}", "1", false, "type_error:simple"},
		// list_checker: in order, element by element, strings standardized.
		{"list accepted", "{bfcl: [[Paris, New York]], type: array, items: string}", `["paris", "new york"]`, true, ""},
		{"list order", "{bfcl: [[Paris, New York]], type: array, items: string}", `["New York", "Paris"]`, false, "lists in order"},
		{"list shorter", "{bfcl: [[Paris, New York]], type: array, items: string}", `["Paris"]`, false, "lists in order"},
		{"list element type", "{bfcl: [[Paris, New York]], type: array, items: string}", `["Paris", 5]`, false, "type_error:nested"},
		{"tuple as list", "{bfcl: [[3, 9]], type: tuple, items: integer}", `[3, 9]`, true, ""},
		// The nested type check is strict (ints in a list of floats fail)...
		{"ints in float list", "{bfcl: [[1.0, 2.0]], type: array, items: float}", `[1, 2]`, false, "type_error:nested"},
		// ...unless "" is accepted too: BFCL's loop lets a non-list accepted
		// value pass it, and then [1, 2] == [1.0, 2.0] in Python.
		{"ints in optional float list", `{bfcl: [[1.0, 2.0], ""], type: array, items: float}`, `[1, 2]`, true, ""},
		// list_checker turns an accepted "" into [] (it standardizes each
		// accepted value element by element), so an empty list matches.
		{"empty list when optional", `{bfcl: [[a], ""], type: array, items: string}`, `[]`, true, ""},
		{"empty list when not optional", `{bfcl: [[a]], type: array, items: string}`, `[]`, false, "lists in order"},
		{"empty list of dicts when optional", `{bfcl: [[{name: [x]}], ""], type: array, items: dict}`, `[]`, true, ""},
		// dict_checker: key by key, each key with its own accepted values.
		{"dict accepted", `{bfcl: [{total: [1000], currency: [EUR, ""]}], type: dict}`, `{"total": 1000, "currency": "eur"}`, true, ""},
		{"dict optional key left out", `{bfcl: [{total: [1000], currency: [EUR, ""]}], type: dict}`, `{"total": 1000}`, true, ""},
		{"dict unexpected key", `{bfcl: [{total: [1000]}], type: dict}`, `{"total": 1000, "tip": 5}`, false, "value_error:dict_key"},
		{"dict missing key", `{bfcl: [{total: [1000], currency: [EUR]}], type: dict}`, `{"total": 1000}`, false, "value_error:dict_key"},
		{"dict wrong value", `{bfcl: [{total: [1000]}], type: dict}`, `{"total": 999}`, false, "value_error:dict_value"},
		{"dict True == 1", `{bfcl: [{flag: [1]}], type: dict}`, `{"flag": true}`, true, ""},
		{"dict not a dict", `{bfcl: [{total: [1000]}], type: dict}`, `[1000]`, false, "type_error:simple"},
		// list_dict_checker: as many dictionaries, each by dict_checker.
		{"list of dicts", `{bfcl: [[{name: [Bakery], minutes: [5]}]], type: array, items: dict}`, `[{"name": "bakery", "minutes": 5}]`, true, ""},
		{"list of dicts count", `{bfcl: [[{name: [Bakery], minutes: [5]}]], type: array, items: dict}`, `[{"name": "Bakery", "minutes": 5}, {"name": "Bakery", "minutes": 5}]`, false, "list_dict_count"},
		{"list of dicts value", `{bfcl: [[{name: [Bakery], minutes: [5]}]], type: array, items: dict}`, `[{"name": "Bakery", "minutes": 6}]`, false, "dict_value"},
		// A "variable": an accepted value of another type than the
		// parameter's is compared as is.
		{"variable", "{bfcl: [x], type: integer}", `"x"`, true, ""},
		// Java: the value is a string, converted by java_type_converter.
		{"java long", "{bfcl: [5000], type: long, lang: java}", `"5000L"`, true, ""},
		{"java long without L", "{bfcl: [5000], type: long, lang: java}", `"5000"`, false, "type_error:simple"},
		{"java not a string", "{bfcl: [5000], type: long, lang: java}", `5000`, false, "type_error:java"},
		{"java double", "{bfcl: [0.5], type: double, lang: java}", `"0.5"`, true, ""},
		{"java float needs f", "{bfcl: [1.5], type: float, lang: java}", `"1.5"`, false, "type_error:simple"},
		{"java float", "{bfcl: [1.5], type: float, lang: java}", `"1.5f"`, true, ""},
		{"java boolean", "{bfcl: [true], type: boolean, lang: java}", `"true"`, true, ""},
		{"java String", "{bfcl: [session42], type: String, lang: java}", `"Session42"`, true, ""},
		// JavaScript: js_type_converter.
		{"js Bigint", "{bfcl: [123], type: Bigint, lang: javascript}", `"123n"`, true, ""},
		{"js String quoted", "{bfcl: ['#footer'], type: String, lang: javascript}", `"'#footer'"`, true, ""},
		{"js integer", "{bfcl: [20], type: integer, lang: javascript}", `"20"`, true, ""},
		{"js Boolean wrong", "{bfcl: [true], type: Boolean, lang: javascript}", `"false"`, false, "want one of [true]"},
		// Without type, the accepted values' type is the parameter's.
		{"inferred type", "{bfcl: [10.0]}", "10", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := bfclMatcher(t, tt.matcher)
			var v any
			if tt.value != "" {
				v = jsonValue(t, tt.value)
			}
			ok, why := m.Match(v, tt.value != "", MatchOptions{})
			if ok != tt.want {
				t.Fatalf("Match(%s) = %v (%s), want %v", tt.value, ok, why, tt.want)
			}
			if !ok && !strings.Contains(why, tt.why) {
				t.Errorf("why = %q, want it to contain %q", why, tt.why)
			}
		})
	}
}

// TestBFCLStrictArgs: a parameter the possible answer does not list is
// BFCL's simple_function_checker:unexpected_param, which strict args give.
func TestBFCLStrictArgs(t *testing.T) {
	ms := ArgMatchers{bfclMatcher(t, "{bfcl: [5], type: integer}")}
	ms[0].Key = "n"
	args := map[string]any{"n": json.Number("5"), "extra": "x"}
	if got := ms.Match(args, true, MatchOptions{}); len(got) != 1 || got[0].Key != "extra" {
		t.Errorf("strict: %v, want extra refused", got)
	}
}

func TestStandardizeString(t *testing.T) {
	for in, want := range map[string]string{
		"April 1, 2024": "april12024",
		"a/b-c_d*e^f.g": "abcdefg",
		"It's":          `it"s`,
		"Tab\there":     "tab\there",
		"Why?!":         "why?!",
	} {
		if got := StandardizeString(in); got != want {
			t.Errorf("StandardizeString(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestBFCLMatcherParseErrors(t *testing.T) {
	for _, tt := range []struct{ flow, want string }{
		{"{bfcl: []}", "b.yaml:7:19: cases[0].expect.args.p.bfcl: must list at least one accepted value"},
		{"{bfcl: [1], type: int}", `b.yaml:7:30: cases[0].expect.args.p.type: unknown BFCL type "int" for python`},
		{"{bfcl: [1], type: long}", `unknown BFCL type "long" for python`},
		{"{bfcl: [1], lang: cobol}", `must be one of python, java, javascript, not "cobol"`},
		{"{bfcl: [1], typo: x}", `unknown key "typo"`},
		{"{bfcl: 5}", "must be the list of accepted values"},
		{"{bfcl: [[1]], type: array, items: vector}", `unknown BFCL element type "vector"`},
	} {
		src := "cases:\n  - id: a\n    ask: q\n    expect:\n      tool: f\n      args:\n        p: " + tt.flow + "\n"
		_, err := Parse([]byte(src), "b.yaml")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.flow, err, tt.want)
		}
	}
}

func TestAnyToolParse(t *testing.T) {
	s, err := Parse([]byte("cases:\n  - {id: a, ask: q, expect: {any_tool: true}}\n"), "r.yaml")
	if err != nil || !s.Cases[0].Expect.AnyTool || s.Cases[0].Expect.Calls != nil {
		t.Fatalf("any_tool: %v %+v", err, s)
	}
	for _, e := range []string{"{any_tool: true, tool: f}", "{any_tool: true, no_tool: true}", "{any_tool: true, calls: [{tool: f}]}"} {
		_, err := Parse([]byte("cases:\n  - {id: a, ask: q, expect: "+e+"}\n"), "r.yaml")
		if err == nil || !strings.Contains(err.Error(), "any_tool: true expects a call to any tool") {
			t.Errorf("%s: %v", e, err)
		}
	}
}
