package score

import (
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/record"
)

func TestCallNamesInText(t *testing.T) {
	listed := func(n string) bool { return n == "search" || n == "get_document" }
	tests := []struct {
		name, text string
		want       []string
	}{
		{"qwen tag", `<tool_call>{"name": "search", "arguments": {"query": "dog"}}</tool_call>`, []string{"search"}},
		{"bare json", `{"name": "get_document", "parameters": {"name": "a"}}`, []string{"get_document"}},
		{"openai wrapper in a list", `[{"function": {"name": "search", "arguments": "{}"}}]`, []string{"search"}},
		{"cut json", `{"name": "search", "arguments": {"query": "do`, []string{"search"}},
		{"llama function tag", `<function=search>{"query": "dog"}</function>`, []string{"search"}},
		{"mistral", `[TOOL_CALLS]search[ARGS]{"query": "dog"}`, []string{"search"}},
		{"python tag", `<|python_tag|>search.call(query="dog")`, []string{"search"}},
		{"functiongemma", `<start_function_call>call:get_document{name:<escape>a<escape>}<end_function_call>`, []string{"get_document"}},
		{"kimi", `<|tool_calls_section_begin|><|tool_call_begin|>functions.search:0<|tool_call_argument_begin|>{}`, []string{"search"}},
		{"deepseek", "<｜tool▁call▁begin｜>function<｜tool▁sep｜>search\n```json\n{}\n```", []string{"search"}},
		{"a tag of an unknown shape, a listed name after it", `<tool_call> please run get_document for me`, []string{"get_document"}},
		{"two calls", `{"name": "search", "arguments": {}} then {"name": "get_document", "arguments": {}}`, []string{"search", "get_document"}},
		{"prose", "I should search for dogs.", nil},
	}
	for _, tt := range tests {
		got := callNamesInText(tt.text, listed)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: callNamesInText(%q) = %q, want %q", tt.name, tt.text, got, tt.want)
		}
	}
}

// stubTools resolves the names it has and validates each tool's arguments
// with a function; with coerce set it is a Coercer too.
type stubTools struct {
	tools map[string]func(args map[string]any) error
}

func (c stubTools) Names() []string { return slices.Sorted(maps.Keys(c.tools)) }

func (c stubTools) Resolve(name string) (string, bool) {
	_, ok := c.tools[name]
	return name, ok
}

func (c stubTools) ValidateArgs(exposed string, args json.RawMessage) error {
	var m map[string]any
	if err := json.Unmarshal(args, &m); err != nil {
		return err
	}
	return c.tools[exposed](m)
}

// coercingTools coerces a string top_k to a number.
type coercingTools struct{ stubTools }

func (c coercingTools) Coerce(exposed string, args json.RawMessage) (json.RawMessage, bool) {
	s := string(args)
	out := strings.Replace(s, `"top_k": "5"`, `"top_k": 5`, 1)
	return json.RawMessage(out), out != s
}

func searchSchema(args map[string]any) error {
	if _, ok := args["top_k"].(float64); !ok && args["top_k"] != nil {
		return errors.New("top_k: want a number")
	}
	return nil
}

func TestCallInThinkingUsesTheCatalog(t *testing.T) {
	cat := stubTools{tools: map[string]func(map[string]any) error{"lookup": searchSchema}}
	tr := thinking(conv("Maybe."), `<tool_call>{"name": "lookup", "arguments": {}}</tool_call>`)
	// lookup is no tool the case expects, but the catalog lists it.
	got := Score(tr, expect(t, toolForm), Options{Tools: cat})
	if got.Outcome != record.OutcomeCallInThinking || !strings.Contains(got.Detail, "lookup") {
		t.Errorf("with the catalog: %s (%s), want call_in_thinking naming lookup", got.Outcome, got.Detail)
	}
	if got := Score(tr, expect(t, toolForm), Options{}); got.Outcome != record.OutcomeNoCall {
		t.Errorf("without a catalog, a tool the case does not expect: %s, want no_call", got.Outcome)
	}
	// A no_tool case that called nothing is judged on its answer alone.
	if got := Score(thinking(conv("Paris."), `{"name": "search", "arguments": {}}`), expect(t, noTool), Options{}); got.Outcome != record.OutcomePass {
		t.Errorf("no_tool case: %s, want pass", got.Outcome)
	}
}

func TestValidIfCoerced(t *testing.T) {
	strK := tc{name: "search", args: `{"query": "dog", "top_k": "5"}`, kind: record.ExecInvalidArgs, err: "top_k: want a number"}
	wordK := tc{name: "search", args: `{"query": "dog", "top_k": "five"}`, kind: record.ExecInvalidArgs, err: "top_k: want a number"}
	tr := conv(terrace, one(strK), one(wordK), one(searchDog))
	base := stubTools{tools: map[string]func(map[string]any) error{"search": searchSchema}}

	got := Score(tr, expect(t, toolForm), Options{Tools: coercingTools{base}})
	if got.ValidCalls != 1 || got.ValidCoercedCalls != 2 || got.CallsToKnownTools != 3 {
		t.Errorf("coercing catalog: valid %d, valid if coerced %d of %d; want 1, 2 of 3", got.ValidCalls, got.ValidCoercedCalls, got.CallsToKnownTools)
	}
	if got.Outcome != record.OutcomeInvalidArgs || got.Detail != "search: top_k: want a number (valid if coerced)" {
		t.Errorf("got %s (%s): strict validity decides the outcome, want invalid_args, the detail saying valid if coerced", got.Outcome, got.Detail)
	}
	// A catalog that cannot coerce leaves the count out (Judge reads it
	// as ValidCalls).
	if got := Score(tr, expect(t, toolForm), Options{Tools: base}); got.ValidCoercedCalls != 0 {
		t.Errorf("catalog without Coerce: ValidCoercedCalls = %d, want 0", got.ValidCoercedCalls)
	}
	// Nothing coerces into validity: the count stays out too.
	only := conv(terrace, one(wordK))
	if got := Score(only, expect(t, toolForm), Options{Tools: coercingTools{base}}); got.ValidCoercedCalls != 0 || strings.Contains(got.Detail, "coerced") {
		t.Errorf("no call valid if coerced: ValidCoercedCalls = %d, detail %q; want 0 and no word of coercion", got.ValidCoercedCalls, got.Detail)
	}
}

func TestRepeatedCalls(t *testing.T) {
	dogAgain := tc{name: "search", args: `{ "top_k": 5.0,  "query": "can I bring my dog" }`}
	tests := []struct {
		name string
		t    *record.Transcript
		want int
	}{
		{"no repeat", conv("ok", one(searchDog), one(searchCat)), 0},
		{"same arguments in another order and spelling", conv("ok", one(searchDog), one(dogAgain)), 1},
		{"every later repeat counts", conv("ok", one(searchDog), one(searchDog), one(searchCat), one(dogAgain)), 2},
		{"a repeat within one response", conv("ok", one(hours, hours)), 1},
		{"same arguments, other tool", conv("ok", one(tc{name: "a", args: `{}`}), one(tc{name: "b", args: `{}`})), 0},
	}
	for _, tt := range tests {
		if got := Score(tt.t, expect(t, `{tool: search}`), Options{}).RepeatedCalls; got != tt.want {
			t.Errorf("%s: RepeatedCalls = %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestRoundLimitRepeatingDetail(t *testing.T) {
	long := tc{name: "search", args: `{"query": "` + strings.Repeat("dog ", 60) + `"}`}
	tr := roundLimit(conv("", one(long), one(long)))
	got := Score(tr, expect(t, `{tool: search}`), Options{})
	if got.Outcome != record.OutcomeRoundLimit || !strings.HasPrefix(got.Detail, `repeating search({"query":"dog dog`) {
		t.Fatalf("got %s (%s), want round_limit repeating search(...)", got.Outcome, got.Detail)
	}
	if n := len([]rune(got.Detail)); n > len("repeating ")+maxCallShown || !strings.HasSuffix(got.Detail, "…)") {
		t.Errorf("Detail %q (%d runes) is not cut to %d with …)", got.Detail, n, maxCallShown)
	}
	// The last round repeats nothing: the trial was not looping at the end.
	tr = roundLimit(conv("", one(searchDog), one(searchDog), one(searchCat)))
	if got := Score(tr, expect(t, `{tool: search}`), Options{}); !strings.HasPrefix(got.Detail, "still calling tools") {
		t.Errorf("Detail = %q, want still calling tools", got.Detail)
	}
}
