package suite

import (
	"strings"
	"testing"
)

const hashSuite = `name: h
defaults:
  system: "Be brief."
cases:
  - id: dog
    ask: "Can I bring my dog?"
    tags: [search]
    expect:
      tool: search
      args: {query: {contains: dog}, top_k: {any: true}, n: 3, where: {a: 1, b: [x]}}
      answer: {regex: "terrace"}
  - id: other
    ask: "Anything else?"
    expect: {no_tool: true}
`

func caseHash(t *testing.T, src string) string {
	t.Helper()
	s, err := Parse([]byte(src), "h.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return s.CaseHash(s.Case("dog"))
}

// TestCaseHashChangesWithWhatTheCaseAsks: each edit that changes what a trial
// of the case sends or how it is judged changes its hash; edits that do not
// (positions, tags, another case) keep it.
func TestCaseHashChangesWithWhatTheCaseAsks(t *testing.T) {
	base := caseHash(t, hashSuite)
	if len(base) != 64 || strings.Trim(base, "0123456789abcdef") != "" {
		t.Fatalf("hash %q is not hex SHA-256", base)
	}
	same := map[string]string{
		"a comment moves every position": "# moved\n" + hashSuite,
		"tags":                           strings.Replace(hashSuite, "tags: [search]", "tags: [other]", 1),
		"another case":                   strings.Replace(hashSuite, "Anything else?", "Nothing else?", 1),
		"argument key order in a map":    strings.Replace(hashSuite, "{a: 1, b: [x]}", "{b: [x], a: 1}", 1),
	}
	for what, src := range same {
		if got := caseHash(t, src); got != base {
			t.Errorf("%s changed the hash", what)
		}
	}
	changed := map[string]string{
		"the question":      strings.Replace(hashSuite, "my dog?", "my cat?", 1),
		"the system prompt": strings.Replace(hashSuite, "Be brief.", "Be long.", 1),
		"the tool":          strings.Replace(hashSuite, "tool: search", "tool: find", 1),
		"a matcher's kind":  strings.Replace(hashSuite, "{contains: dog}", "{regex: dog}", 1),
		"a literal":         strings.Replace(hashSuite, "n: 3", "n: 4", 1),
		"a literal's type":  strings.Replace(hashSuite, "n: 3", `n: "3"`, 1),
		"a nested literal":  strings.Replace(hashSuite, "b: [x]", "b: [y]", 1),
		"the answer":        strings.Replace(hashSuite, `{regex: "terrace"}`, `{regex: "garden"}`, 1),
		"max_rounds":        strings.Replace(hashSuite, "      tool: search\n", "      tool: search\n      max_rounds: 2\n", 1),
		"execute":           strings.Replace(hashSuite, "  - id: dog\n", "  - id: dog\n    execute: false\n", 1),
		"strict args":       strings.Replace(hashSuite, "      tool: search\n", "      tool: search\n      strict_args: true\n", 1),
		"normalize_strings": strings.Replace(hashSuite, "defaults:\n", "defaults:\n  normalize_strings: true\n", 1),
	}
	for what, src := range changed {
		if src == hashSuite {
			t.Fatalf("%s: the edit did not apply", what)
		}
		if got := caseHash(t, src); got == base {
			t.Errorf("changing %s kept the hash", what)
		}
	}
}

// TestCaseHashIsPinned: recorded runs keep their case hashes; a change to
// what CaseHash encodes must be deliberate (and breaks comparisons with older
// runs).
func TestCaseHashIsPinned(t *testing.T) {
	if got := caseHash(t, hashSuite); got != "15c0daf1a592d3f66af91eb678f5a20f066325715e38aea2117740a98b31f9ae" {
		t.Errorf("CaseHash = %s", got)
	}
}

// CaseHashes holds each case's own hash, by id.
func TestCaseHashes(t *testing.T) {
	s, err := Parse([]byte(hashSuite), "h.yaml")
	if err != nil {
		t.Fatal(err)
	}
	got := s.CaseHashes()
	if len(got) != 2 || got["dog"] != s.CaseHash(s.Case("dog")) || got["other"] != s.CaseHash(s.Case("other")) || got["dog"] == got["other"] {
		t.Errorf("CaseHashes = %v", got)
	}
}
