package suite

import (
	"strings"
	"testing"
)

// firstSuite is README's first suite, as a new user saves it.
const firstSuite = `name: first
servers: servers.json
models: [scripted-good, scripted-weak]   # with a real Ollama: models you pulled, e.g. qwen3:8b
defaults:
  system: "You answer questions about our restaurant. Use the tools to look things up."
  options: {temperature: 0, seed: 42}
cases:
  - id: dog
    ask: "Can I bring my dog?"
    expect:
      tool: search
      args: {query: {contains: dog}}
      answer: {contains: terrace}
  - id: menu
    ask: "Show me the whole menu."
    expect:
      tool: get_document
      args: {name: menu.txt}
  - id: off-topic
    ask: "What is the capital of France?"
    expect: {no_tool: true}
`

// TestSyntaxErrorsOfAFirstSuite: the mistakes of a first suite are reported
// at the line and column of the character that is wrong, with the line and
// a caret under it; yaml.v3 names the line before (a tab) or the first case
// (a dedented key).
func TestSyntaxErrorsOfAFirstSuite(t *testing.T) {
	lines := strings.SplitAfter(firstSuite, "\n")
	edit := func(line int, text string) string { // line is 1-based
		l := append([]string(nil), lines...)
		l[line-1] = text
		return strings.Join(l, "")
	}
	for _, tt := range []struct {
		name, src string
		want      []string
	}{
		{"a tab on line 18", edit(18, "\targs: {name: menu.txt}\n"), []string{
			"first.yaml:18:1: YAML: found a tab character that violates indentation; YAML indents with spaces, not tabs",
			"   18 | \targs: {name: menu.txt}",
			"      | ^",
		}},
		{"expect: dedented on line 16", edit(16, "  expect:\n"), []string{
			`first.yaml:16:3: YAML: did not find expected '-' indicator; this line is indented as the items of the list above: indent it further to put it in the item, or begin a new item with "- "`,
			"   16 |   expect:",
			"      |   ^",
		}},
		{"a stray key after the last case", edit(21, "    expect: {no_tool: true}\n  note: capitals\n"), []string{
			`first.yaml:22:3: YAML: did not find expected '-' indicator; this line is indented as the items of the list above: indent it further to put it in the item, or begin a new item with "- "`,
			"   22 |   note: capitals",
			"      |   ^",
		}},
		{"a key indented less than the next", edit(17, "     tool: get_document\n"), []string{
			"first.yaml:18:11: YAML: mapping values are not allowed in this context; this line is indented more than the keys above it, so it reads as more of the value on the line before",
			"   18 |       args: {name: menu.txt}",
			"      |           ^",
		}},
		{"a missing }", edit(12, "      args: {query: {contains: dog}\n"), []string{
			"first.yaml:13:7: YAML: did not find expected ',' or '}' (is a , or } missing? the { at line 12, column 13 is still open here)",
			"   13 |       answer: {contains: terrace}",
			"      |       ^",
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.src), "first.yaml")
			if err == nil {
				t.Fatal("parsed")
			}
			if got, want := err.Error(), strings.Join(tt.want, "\n"); got != want {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// TestMatcherTypo: an expected value that is an object whose one key is
// near a matcher's name is a mistyped matcher, reported where it is written
// when the suite loads (before any server or model), not read as a literal
// object that the tool's schema then rejects at the tool: line.
func TestMatcherTypo(t *testing.T) {
	src := strings.Replace(firstSuite, "args: {query: {contains: dog}}", "args: {query: {regexp: dog}}", 1)
	_, err := Parse([]byte(src), "first.yaml")
	want := `first.yaml:12:22: cases[0].expect.args.query: unknown matcher "regexp" (did you mean "regex"?); to expect the object {regexp: ...} itself, write {equals: {regexp: ...}}`
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
	for _, typo := range []struct{ key, want string }{{"contain", "contains"}, {"oneof", "one_of"}, {"equal", "equals"}, {"absnet", "absent"}} {
		if !IsMatcherTypo(typo.key) || closest(typo.key, matcherKeys) != typo.want {
			t.Errorf("%s is not taken for %s", typo.key, typo.want)
		}
	}
	// Far from every matcher's name, a one-key object is still no literal.
	src = strings.Replace(firstSuite, "args: {query: {contains: dog}}", "args: {query: {startswith: dog}}", 1)
	_, err = Parse([]byte(src), "first.yaml")
	want = `first.yaml:12:22: cases[0].expect.args.query: {startswith: dog} is not a matcher: the matchers are equals, contains, regex, one_of, number (with tolerance), any and absent; write {equals: {startswith: dog}} for a literal object`
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
	// Written as equals, or beside other keys, an object is a literal.
	for _, args := range []string{"{query: {equals: {regexp: dog}}}", "{query: {regexp: dog, flags: i}}", "{query: {equals: {name: dog}}}"} {
		src := strings.Replace(firstSuite, "args: {query: {contains: dog}}", "args: "+args, 1)
		s, err := Parse([]byte(src), "first.yaml")
		if err != nil {
			t.Errorf("%s: %v", args, err)
			continue
		}
		if m := s.Cases[0].Expect.Calls[0].Args[0]; m.Kind != MatchEquals {
			t.Errorf("%s reads as a %s matcher", args, m.Kind)
		}
	}
}
