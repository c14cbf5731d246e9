package suite

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

func TestArgMatcherMatch(t *testing.T) {
	eq := func(v any) ArgMatcher { return ArgMatcher{Kind: MatchEquals, Value: v} }
	norm := MatchOptions{NormalizeStrings: true}
	tests := []struct {
		name    string
		m       ArgMatcher
		v       any
		absent  bool // the key is not there
		opts    MatchOptions
		want    bool
		wantWhy string // a substring of why, when not ok
	}{
		// Literals: numbers by value whatever their type.
		{name: "int equals int", m: eq(int64(5)), v: json.Number("5"), want: true},
		{name: "int equals float", m: eq(int64(5)), v: json.Number("5.0"), want: true},
		{name: "float equals int", m: eq(5.0), v: json.Number("5"), want: true},
		{name: "float64 value", m: eq(int64(5)), v: 5.0, want: true},
		{name: "go int value", m: eq(2.5), v: 2.5, want: true},
		{name: "int differs", m: eq(int64(5)), v: json.Number("6"), wantWhy: "got 6, want 5"},
		{name: "fraction differs", m: eq(int64(5)), v: json.Number("5.5"), wantWhy: "got 5.5, want 5"},
		{name: "big ints exact", m: eq(int64(9007199254740993)), v: json.Number("9007199254740992"), wantWhy: "want 9007199254740993"},
		{name: "big ints equal", m: eq(int64(9007199254740993)), v: json.Number("9007199254740993"), want: true},
		{name: "huge exponent", m: eq(int64(5)), v: json.Number("1e999999999"), wantWhy: "got 1e999999999"},
		{name: "number is not a string", m: eq(int64(5)), v: "5", wantWhy: `got "5", want 5`},
		{name: "string is not a number", m: eq("5"), v: json.Number("5"), wantWhy: `got 5, want "5"`},
		{name: "bool", m: eq(true), v: true, want: true},
		{name: "bool differs", m: eq(true), v: false, wantWhy: "got false, want true"},
		{name: "null", m: eq(nil), v: nil, want: true},
		{name: "null differs", m: eq(nil), v: "", wantWhy: `got "", want null`},
		{name: "string exact", m: eq("menu.txt"), v: "menu.txt", want: true},
		{name: "string case matters", m: eq("Menu.txt"), v: "menu.txt", wantWhy: `got menu.txt, want Menu.txt`},
		{name: "missing", m: eq("x"), absent: true, wantWhy: "missing"},

		// BFCL normalisation.
		{name: "normalized case", m: eq("New York"), v: "new york", opts: norm, want: true},
		{name: "normalized spaces and punctuation", m: eq("San Francisco, CA"), v: "sanfrancisco ca.", opts: norm, want: true},
		{name: "normalized bfcl set", m: eq("a-b_c/d*e^f"), v: "ABCDEF", opts: norm, want: true},
		{name: "normalized unicode punctuation", m: eq("l’été"), v: "l ete", opts: norm, wantWhy: "got"},
		{name: "normalized still differs", m: eq("New York"), v: "Newark", opts: norm, wantWhy: "got Newark"},
		{name: "not normalized", m: eq("New York"), v: "new york", wantWhy: `got "new york"`},
		{name: "normalized in lists", m: eq([]any{"A B", int64(1)}), v: []any{"ab", json.Number("1.0")}, opts: norm, want: true},

		// Nested literals.
		{name: "list equal", m: eq([]any{"a", int64(1)}), v: []any{"a", json.Number("1")}, want: true},
		{name: "list order matters", m: eq([]any{"a", "b"}), v: []any{"b", "a"}, wantWhy: "got [b, a], want [a, b]"},
		{name: "list length", m: eq([]any{"a"}), v: []any{"a", "a"}, wantWhy: "want [a]"},
		{name: "object equal", m: eq(map[string]any{"k": int64(1), "l": []any{true}}), v: map[string]any{"l": []any{true}, "k": json.Number("1.0")}, want: true},
		{name: "object extra key", m: eq(map[string]any{"k": int64(1)}), v: map[string]any{"k": json.Number("1"), "x": nil}, wantWhy: "got {k: 1, x: null}, want {k: 1}"},
		{name: "object missing key", m: eq(map[string]any{"k": int64(1), "x": nil}), v: map[string]any{"k": json.Number("1")}, wantWhy: "want {k: 1, x: null}"},
		{name: "object nested differs", m: eq(map[string]any{"a": map[string]any{"b": "c"}}), v: map[string]any{"a": map[string]any{"b": "d"}}, wantWhy: "got {a: {b: d}}"},
		{name: "object is not a list", m: eq(map[string]any{}), v: []any{}, wantWhy: "got [], want {}"},
		{name: "equals literal with matcher keys", m: eq(map[string]any{"contains": "x"}), v: map[string]any{"contains": "x"}, want: true},

		// contains
		{name: "contains", m: ArgMatcher{Kind: MatchContains, Substring: "dog"}, v: "Can I bring my dog", want: true},
		{name: "contains ignores case", m: ArgMatcher{Kind: MatchContains, Substring: "DOG"}, v: "dogs allowed?", want: true},
		{name: "contains fails", m: ArgMatcher{Kind: MatchContains, Substring: "dog"}, v: "cats", wantWhy: "cats does not contain dog"},
		{name: "contains needs a string", m: ArgMatcher{Kind: MatchContains, Substring: "5"}, v: json.Number("5"), wantWhy: "want a string containing"},
		{name: "contains missing", m: ArgMatcher{Kind: MatchContains, Substring: "dog"}, absent: true, wantWhy: "missing"},
		{name: "contains not normalized", m: ArgMatcher{Kind: MatchContains, Substring: "hot dog"}, v: "hotdog", opts: norm, wantWhy: "does not contain"},

		// regex: search semantics
		{name: "regex search", m: ArgMatcher{Kind: MatchRegex, Regex: regexp.MustCompile(`do+g`)}, v: "a doooog here", want: true},
		{name: "regex anchored", m: ArgMatcher{Kind: MatchRegex, Regex: regexp.MustCompile(`^dog$`)}, v: "a dog", wantWhy: `"a dog" does not match /^dog$/`},
		{name: "regex case", m: ArgMatcher{Kind: MatchRegex, Regex: regexp.MustCompile(`(?i)^DOG`)}, v: "dog", want: true},
		{name: "regex needs a string", m: ArgMatcher{Kind: MatchRegex, Regex: regexp.MustCompile(`5`)}, v: json.Number("5"), wantWhy: "want a string matching"},

		// one_of
		{name: "one_of", m: ArgMatcher{Kind: MatchOneOf, OneOf: []any{"menu.txt", "hours.txt"}}, v: "hours.txt", want: true},
		{name: "one_of numbers", m: ArgMatcher{Kind: MatchOneOf, OneOf: []any{int64(3), int64(5)}}, v: json.Number("5.0"), want: true},
		{name: "one_of normalized", m: ArgMatcher{Kind: MatchOneOf, OneOf: []any{"New York"}}, v: "NEW-YORK", opts: norm, want: true},
		{name: "one_of fails", m: ArgMatcher{Kind: MatchOneOf, OneOf: []any{"a", int64(1)}}, v: "b", wantWhy: "got b, want one of [a, 1]"},

		// number with tolerance
		{name: "number exact", m: ArgMatcher{Kind: MatchNumber, Number: 5}, v: json.Number("5"), want: true},
		{name: "number within", m: ArgMatcher{Kind: MatchNumber, Number: 37.5, Tolerance: 0.5}, v: json.Number("37.9"), want: true},
		{name: "number at the edge", m: ArgMatcher{Kind: MatchNumber, Number: 10, Tolerance: 0.5}, v: json.Number("10.5"), want: true},
		{name: "number outside", m: ArgMatcher{Kind: MatchNumber, Number: 37.5, Tolerance: 0.5}, v: json.Number("38.1"), wantWhy: "got 38.1, want 37.5 ± 0.5"},
		{name: "number without tolerance", m: ArgMatcher{Kind: MatchNumber, Number: 5}, v: json.Number("5.1"), wantWhy: "got 5.1, want 5"},
		{name: "number needs a number", m: ArgMatcher{Kind: MatchNumber, Number: 5, Tolerance: 1}, v: "5", wantWhy: `got "5", want a number`},

		// any and absent
		{name: "any", m: ArgMatcher{Kind: MatchAny}, v: "whatever", want: true},
		{name: "any null", m: ArgMatcher{Kind: MatchAny}, v: nil, want: true},
		{name: "any missing", m: ArgMatcher{Kind: MatchAny}, absent: true, wantWhy: "missing"},
		{name: "absent", m: ArgMatcher{Kind: MatchAbsent}, absent: true, want: true},
		{name: "absent present", m: ArgMatcher{Kind: MatchAbsent}, v: json.Number("3"), wantWhy: "got 3, want no such argument"},
		{name: "absent present null", m: ArgMatcher{Kind: MatchAbsent}, v: nil, wantWhy: "got null, want no such argument"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, why := tt.m.Match(tt.v, !tt.absent, tt.opts)
			if ok != tt.want {
				t.Fatalf("Match = %v (%q), want %v", ok, why, tt.want)
			}
			if ok && why != "" {
				t.Errorf("why = %q for a match", why)
			}
			if !ok && !strings.Contains(why, tt.wantWhy) {
				t.Errorf("why = %q, want it to contain %q", why, tt.wantWhy)
			}
		})
	}
}

func TestArgMatcherString(t *testing.T) {
	tests := []struct {
		m    ArgMatcher
		want string
	}{
		{ArgMatcher{Kind: MatchContains, Substring: "dog"}, "{contains: dog}"},
		{ArgMatcher{Kind: MatchContains, Substring: "a: b"}, `{contains: "a: b"}`},
		{ArgMatcher{Kind: MatchRegex, Regex: regexp.MustCompile(`^a+$`)}, `{regex: "^a+$"}`},
		{ArgMatcher{Kind: MatchOneOf, OneOf: []any{"x", int64(2), nil}}, "{one_of: [x, 2, null]}"},
		{ArgMatcher{Kind: MatchNumber, Number: 5}, "{number: 5}"},
		{ArgMatcher{Kind: MatchNumber, Number: 37.5, Tolerance: 0.5}, "{number: 37.5, tolerance: 0.5}"},
		{ArgMatcher{Kind: MatchAny}, "{any: true}"},
		{ArgMatcher{Kind: MatchAbsent}, "{absent: true}"},
		{ArgMatcher{Kind: MatchEquals, Value: map[string]any{"b": "true", "a": []any{1.5}}}, `{a: [1.5], b: "true"}`},
	}
	for _, tt := range tests {
		if got := tt.m.String(); got != tt.want {
			t.Errorf("String() = %s, want %s", got, tt.want)
		}
	}
}

func TestArgMatchersMatch(t *testing.T) {
	ms := ArgMatchers{
		{Key: "query", Kind: MatchContains, Substring: "dog"},
		{Key: "top_k", Kind: MatchAny},
		{Key: "debug", Kind: MatchAbsent},
	}
	args := map[string]any{"query": "cats", "zeta": true, "alpha": json.Number("1")}
	got := ms.Match(args, false, MatchOptions{})
	want := []Mismatch{{"query", "cats does not contain dog"}, {"top_k", "missing"}}
	if !equalMismatches(got, want) {
		t.Errorf("Match = %v, want %v", got, want)
	}
	got = ms.Match(args, true, MatchOptions{})
	want = append(want, Mismatch{"alpha", "got 1, not expected (strict args)"}, Mismatch{"zeta", "got true, not expected (strict args)"})
	if !equalMismatches(got, want) {
		t.Errorf("strict Match = %v, want %v", got, want)
	}
	if got := ms.Match(map[string]any{"query": "Dog?", "top_k": nil}, true, MatchOptions{}); len(got) != 0 {
		t.Errorf("Match of a fitting object = %v", got)
	}
	if got := (ArgMatchers{}).Match(map[string]any{"x": 1}, true, MatchOptions{}); len(got) != 1 {
		t.Errorf("strict with no args named must reject any argument, got %v", got)
	}
}

func equalMismatches(a, b []Mismatch) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestTextMatcher(t *testing.T) {
	tests := []struct {
		m       TextMatcher
		s       string
		want    bool
		wantWhy string
	}{
		{TextMatcher{Kind: MatchContains, Substring: "terrace"}, "Dogs are welcome on the Terrace.", true, ""},
		{TextMatcher{Kind: MatchContains, Substring: "terrace"}, "No dogs.", false, `answer "No dogs." does not contain terrace`},
		{TextMatcher{Kind: MatchRegex, Regex: regexp.MustCompile(`\b5432\b`)}, "The port is 5432.", true, ""},
		{TextMatcher{Kind: MatchRegex, Regex: regexp.MustCompile(`^Paris$`)}, "Paris.", false, "does not match /^Paris$/"},
		{TextMatcher{Kind: MatchOneOf, OneOf: []string{"Paris", "Paris."}}, "  paris.\n", true, ""},
		{TextMatcher{Kind: MatchOneOf, OneOf: []string{"Paris"}}, "It is Paris", false, `answer "It is Paris" is not one of [Paris]`},
	}
	for _, tt := range tests {
		ok, why := tt.m.Match(tt.s)
		if ok != tt.want || (!ok && !strings.Contains(why, tt.wantWhy)) {
			t.Errorf("%s.Match(%q) = %v, %q; want %v, %q", tt.m, tt.s, ok, why, tt.want, tt.wantWhy)
		}
	}
	long := strings.Repeat("x", 500)
	_, why := TextMatcher{Kind: MatchContains, Substring: "y"}.Match(long)
	if len(why) > 300 {
		t.Errorf("why is not shortened: %d bytes", len(why))
	}
}

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"San Francisco, CA": "sanfranciscoca",
		"a-b_c/d*e^f.g":     "abcdefg",
		"'quoted' \"x\"":    "quotedx",
		"Tab\tand\nline":    "tabandline",
		"ÉTÉ":               "été",
	} {
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}
