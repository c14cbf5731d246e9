package suite

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	errLineRE = regexp.MustCompile(`^fuzz\.yaml:[1-9][0-9]*:[1-9][0-9]*: `)
	// The source line and caret a syntax error shows under its message.
	excerptRE = regexp.MustCompile(`^ +([1-9][0-9]*)? \| `)
)

// FuzzParse checks that no input makes Parse panic, and that every error it
// reports is located: each line of the message starts with the file name and
// a line:col, or is the source line (and caret) under one.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"example.yaml", "inline.yaml"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		"",
		"cases: &a [*a]\n",
		"cases:\n  - {id: a, ask: q, expect: {tool: t, args: {a: {regex: \"(\"}, <<: {b: 1}}}}\n",
		"defaults: {options: {stop: [\"\\n\"], seed: 1}, keep_alive: 1e300}\ncases: [{id: a, ask: [{role: user, content: x}], expect: {no_tool: true}}]\n",
		"a: b: c\n",
		"\xff\xfe",
		"cases:\n\t- x\n",
		"---\n---\n",
		"cases: [{id: a, ask: q, expect: {calls: [{tool: x, args: {n: {number: .inf}}}], any_order: true}}]\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data, "fuzz.yaml")
		if err == nil {
			if s == nil {
				t.Fatal("Parse returned neither a suite nor an error")
			}
			return
		}
		if s != nil {
			t.Fatal("Parse returned a suite and an error")
		}
		var es Errors
		if !errors.As(err, &es) || len(es) == 0 {
			t.Fatalf("error %T is not a non-empty Errors: %v", err, err)
		}
		for _, line := range strings.Split(err.Error(), "\n") {
			if !errLineRE.MatchString(line) && !excerptRE.MatchString(line) {
				t.Fatalf("error line %q does not start with fuzz.yaml:line:col", line)
			}
		}
	})
}
