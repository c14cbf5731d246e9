package tgtest

import (
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgrade/toolgrade/internal/suite"
)

// Each matcher is the one a suite file gets from what its String writes, so
// a Go case is judged exactly as the same case written in YAML.
func TestMatchersMirrorTheSuites(t *testing.T) {
	for _, m := range []Matcher{
		Equals(2), Equals(2.5), Equals("x y"), Equals(nil), Equals(true),
		Equals(map[string]any{"a": []int{1, 2}, "b": "x y"}),
		Equals(struct {
			City string `json:"city"`
		}{"Paris"}),
		Contains("paris"), Regex("^Par(is)?$"),
		OneOf("celsius", "fahrenheit"), OneOf(1, 2.5, nil),
		Number(3, 0.5), Number(-1, 0),
		Any(), Absent(),
		BFCL([]any{"", 5}, &BFCLOptions{Type: "integer"}),
		BFCL([]any{"a"}, &BFCLOptions{Lang: "java", Type: "String", Required: true}),
		BFCL([]any{[]any{1, 2}}, &BFCLOptions{Type: "array", Items: "integer"}),
	} {
		if m.err != nil {
			t.Fatalf("%v: %v", m, m.err)
		}
		yaml := "cases:\n  - id: c\n    ask: q\n    expect: {tool: t, args: {k: " + m.String() + "}}\n"
		s, err := suite.Parse([]byte(yaml), "m.yaml")
		if err != nil {
			t.Fatalf("%v: %v", m, err)
		}
		got := s.Cases[0].Expect.Calls[0].Args[0]
		got.Pos, got.KeyPos, got.Key = suite.Pos{}, suite.Pos{}, ""
		if d := cmp.Diff(got, m.m, cmp.Comparer(func(a, b *regexp.Regexp) bool {
			return (a == nil) == (b == nil) && (a == nil || a.String() == b.String())
		})); d != "" {
			t.Errorf("%v (-suite +tgtest):\n%s", m, d)
		}
	}
}

func TestSubtestName(t *testing.T) {
	for in, want := range map[string]string{
		"What is 2+2?":         "What_is_2+2?",
		"tab\there":            "tab_here",
		"bell\a":               `bell\a`,
		"already_fine":         "already_fine",
		"non\u00a0breaking":    "non_breaking",
		"nul\x00byte":          `nul\x00byte`,
		"ideographic\u3000gap": "ideographic_gap",
	} {
		if got := subtestName(in); got != want {
			t.Errorf("subtestName(%q) = %q, want %q", in, got, want)
		}
		if again := subtestName(want); again != want {
			t.Errorf("subtestName is not idempotent on %q: %q", want, again)
		}
	}
}
