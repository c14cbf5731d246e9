package srcpos

import (
	"bytes"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestYAMLSyntax: a syntax error is reported at the character that is
// wrong, not at the line yaml.v3 names (the start of the construct around
// it, counted from 0 for its parser's errors), under it the line with a
// caret, and for the usual mistakes what to do instead.
func TestYAMLSyntax(t *testing.T) {
	for _, tt := range []struct {
		name, src string
		want      []string // the message, the line, the caret
	}{
		{"tab in a case", "cases:\n  - id: a\n    expect:\n      tool: x\n\targs: {}\n", []string{
			"f:5:1: YAML: found a tab character that violates indentation; YAML indents with spaces, not tabs",
			"    5 | \targs: {}",
			"      | ^",
		}},
		{"tab at the start of a value", "a:\n\tb: 1\n", []string{
			"f:2:1: YAML: found character that cannot start any token; YAML indents with spaces, not tabs",
			"    2 | \tb: 1",
			"      | ^",
		}},
		{"dedented key in a list item", "cases:\n  - id: a\n    ask: b\n  expect: c\n", []string{
			`f:4:3: YAML: did not find expected '-' indicator; this line is indented as the items of the list above: indent it further to put it in the item, or begin a new item with "- "`,
			"    4 |   expect: c",
			"      |   ^",
		}},
		{"stray key", "cases:\n  - id: a\n    ask: b\n stray: 1\n", []string{
			"f:4:2: YAML: did not find expected key; this line is indented by 1 space, which lines up with no block above it",
			"    4 |  stray: 1",
			"      |  ^",
		}},
		{"key between an item's keys and the list", "cases:\n  - id: a\n    expect:\n   tool: x\n", []string{
			"f:4:4: YAML: did not find expected '-' indicator; this line is indented by 3 spaces, which lines up with no block above it",
			"    4 |    tool: x",
			"      |    ^",
		}},
		{"item among a mapping's keys: no hint, the message says it", "a:\n  b: 1\n  - x\n", []string{
			"f:3:3: YAML: did not find expected key",
			"    3 |   - x",
			"      |   ^",
		}},
		{"stray list item", "name: x\ncases:\n  - a\n - b\n", []string{
			"f:4:2: YAML: did not find expected key; this line is indented by 1 space, which lines up with no block above it",
			"    4 |  - b",
			"      |  ^",
		}},
		{"over-indented key", "cases:\n  - id: a\n      ask: b\n", []string{
			"f:3:10: YAML: mapping values are not allowed in this context; this line is indented more than the keys above it, so it reads as more of the value on the line before",
			"    3 |       ask: b",
			"      |          ^",
		}},
		{"colon in a value", "cases:\n  - id: a\n    ask: what: now\n", []string{
			`f:3:14: YAML: mapping values are not allowed in this context; quote a value that holds ": "`,
			"    3 |     ask: what: now",
			"      |              ^",
		}},
		{"colon in a value on line 1", "a: b: c\n", []string{
			`f:1:5: YAML: mapping values are not allowed in this context; quote a value that holds ": "`,
			"    1 | a: b: c",
			"      |     ^",
		}},
		{"unclosed inner mapping", "cases:\n  - id: a\n    expect:\n      args: {query: {contains: dog}\n      answer: {contains: x}\n  - id: b\n", []string{
			"f:5:7: YAML: did not find expected ',' or '}' (is a , or } missing? the { at line 4, column 13 is still open here)",
			"    5 |       answer: {contains: x}",
			"      |       ^",
		}},
		{"unclosed list before a key", "models: [a, b\ncases:\n  - id: a\n", []string{
			"f:2:1: YAML: did not find expected ',' or ']' (is a , or ] missing? the [ at line 1, column 9 is still open here)",
			"    2 | cases:",
			"      | ^",
		}},
		{"wrong closer", "a: [1, {b: 2]\n", []string{
			"f:1:13: YAML: did not find expected ',' or '}' (is a , or } missing? the { at line 1, column 8 is still open here)",
			"    1 | a: [1, {b: 2]",
			"      |             ^",
		}},
		{"unclosed list at the end", "name: x\ncases: [a\n", []string{
			"f:2:8: YAML: did not find expected ',' or ']' (this [ is never closed)",
			"    2 | cases: [a",
			"      |        ^",
		}},
		{"unclosed quote", "cases:\n  - id: a\n    ask: \"hi\n    expect: x\n  - id: b\n", []string{
			`f:3:10: YAML: found unexpected end of stream (this " string is never closed)`,
			`    3 |     ask: "hi`,
			"      |          ^",
		}},
		{"junk after a quoted value", "a: \"x\" y\n", []string{
			"f:1:8: YAML: did not find expected key",
			`    1 | a: "x" y`,
			"      |        ^",
		}},
		{"bad character", "a: @x\n", []string{
			"f:1:4: YAML: found character that cannot start any token",
			"    1 | a: @x",
			"      |    ^",
		}},
		{"control character", "a: \"x\x01\"\n", []string{
			"f:1:6: YAML: control characters are not allowed",
			"    1 | a: \"x\uFFFD\"",
			"      |      ^",
		}},
		{"unknown anchor", "a: 1\nb: *nope\n", []string{
			"f:2:4: YAML: unknown anchor 'nope' referenced",
			"    2 | b: *nope",
			"      |    ^",
		}},
		{"caret after a tab and wide text", "a: [\"é\",\t{b: 1]\n", []string{
			"f:1:15: YAML: did not find expected ',' or '}' (is a , or } missing? the { at line 1, column 10 is still open here)",
			"    1 | a: [\"é\",\t{b: 1]",
			"      |         \t     ^",
		}},
	} {
		var n yaml.Node
		err := yaml.Unmarshal([]byte(tt.src), &n)
		if err == nil {
			t.Fatalf("%s: %q parsed", tt.name, tt.src)
		}
		got := YAMLSyntax("f", []byte(tt.src), err).Error()
		if want := strings.Join(tt.want, "\n"); got != want {
			t.Errorf("%s: yaml.v3 says %q\ngot\n%s\nwant\n%s", tt.name, err, got, want)
		}
	}
}

// TestYAMLSyntaxLongLine: a long line is shown as a window around the
// column.
func TestYAMLSyntaxLongLine(t *testing.T) {
	src := "a: " + strings.Repeat("x", 200) + ": y\n"
	var n yaml.Node
	err := yaml.Unmarshal([]byte(src), &n)
	lines := strings.Split(YAMLSyntax("f", []byte(src), err).Error(), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "f:1:204: ") {
		t.Fatalf("got %q", lines)
	}
	text, caret := lines[1], lines[2]
	if !strings.HasPrefix(text, "    1 | …xxx") || !strings.HasSuffix(text, "xx: y") {
		t.Errorf("text %q", text)
	}
	if i := strings.IndexByte(caret, '^'); i != len([]rune(text[:strings.Index(text, ":")])) {
		t.Errorf("the caret is not under the ':'\n%s\n%s", text, caret)
	}
}

// TestYAMLSyntaxFarFromItsContext: yaml.v3 names the line of the list of
// cases for a key dedented in the last of thousands; the search from there
// finds it.
func TestYAMLSyntaxFarFromItsContext(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("cases:\n")
	for range 3000 {
		b.WriteString("  - id: c\n    ask: q\n    expect: {tool: t, args: {a: 1}}\n")
	}
	b.WriteString("  - id: last\n    ask: q\n  expect: {no_tool: true}\n")
	var n yaml.Node
	err := yaml.Unmarshal(b.Bytes(), &n)
	if !strings.HasPrefix(err.Error(), "yaml: line 1: ") {
		t.Fatalf("yaml.v3 now says %v", err)
	}
	got := YAMLSyntax("f", b.Bytes(), err).Error()
	if want := "f:9004:3: YAML: did not find expected '-' indicator"; !strings.HasPrefix(got, want) {
		t.Errorf("got %s, want %s...", got, want)
	}
}

// TestYAMLSyntaxAfterAnEmptyItem: a line under a "- " with nothing after it
// is compared with that item without reading past its line's end (found by
// the suite's fuzz target: an index out of range).
func TestYAMLSyntaxAfterAnEmptyItem(t *testing.T) {
	src := []byte("00000:\n  - \n       {}\n    00")
	var n yaml.Node
	err := yaml.Unmarshal(src, &n)
	if err == nil {
		t.Fatal("yaml.v3 now reads it")
	}
	if got := YAMLSyntax("f", src, err).Error(); !strings.HasPrefix(got, "f:4:5: YAML: ") {
		t.Errorf("got %s", got)
	}
}
