package tgtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"

	"github.com/toolgrade/toolgrade/internal/suite"
)

// Matcher is an expectation on one argument of the expected call (a value
// of Args) or on the final answer (Case.Answer). Build one with Equals,
// Contains, Regex, OneOf, Number, Any, Absent or BFCL: they are the matchers
// of a suite file's expect:, judged by the same scorer. The zero Matcher
// expects nothing; it is how Case.Answer is left unset.
type Matcher struct {
	m suite.ArgMatcher
	// err says why the matcher could not be built (a bad regex, a value
	// JSON cannot hold); NewSuite reports it with the case and key.
	err error
}

// Equals matches an argument equal to v: numbers by value whatever their Go
// type (5 equals 5.0), strings exactly, lists in order, objects key by key
// with the same keys. v is compared as encoding/json writes it, so a struct
// or a []int is compared as the JSON object or list it encodes to. A suite
// writes it as a bare value or {equals: v}.
func Equals(v any) Matcher {
	j, err := jsonShape(v)
	if err != nil {
		return Matcher{err: fmt.Errorf("Equals: %w", err)}
	}
	return Matcher{m: suite.ArgMatcher{Kind: suite.MatchEquals, Value: j}}
}

// Contains matches a string argument, or an answer, that contains s
// ignoring case; {contains: s} in a suite. s must not be empty.
func Contains(s string) Matcher {
	if s == "" {
		return Matcher{err: fmt.Errorf("Contains: the text is empty")}
	}
	return Matcher{m: suite.ArgMatcher{Kind: suite.MatchContains, Substring: s}}
}

// Regex matches a string argument, or an answer, in which the RE2 pattern
// finds a match (anchor it with ^ and $ to match the whole string);
// {regex: pattern} in a suite.
func Regex(pattern string) Matcher {
	if pattern == "" {
		return Matcher{err: fmt.Errorf("Regex: the pattern is empty")}
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return Matcher{err: fmt.Errorf("Regex: %w", err)}
	}
	return Matcher{m: suite.ArgMatcher{Kind: suite.MatchRegex, Regex: re}}
}

// OneOf matches an argument equal (as Equals compares) to one of vs, or an
// answer equal to one of them ignoring case and surrounding space (for an
// answer every v must be a string); {one_of: [...]} in a suite. vs must not
// be empty.
func OneOf(vs ...any) Matcher {
	if len(vs) == 0 {
		return Matcher{err: fmt.Errorf("OneOf: no values")}
	}
	m := suite.ArgMatcher{Kind: suite.MatchOneOf}
	for _, v := range vs {
		j, err := jsonShape(v)
		if err != nil {
			return Matcher{err: fmt.Errorf("OneOf: %w", err)}
		}
		m.OneOf = append(m.OneOf, j)
	}
	return Matcher{m: m}
}

// Number matches a numeric argument within tolerance of n: |v-n| <=
// tolerance; {number: n, tolerance: t} in a suite. A tolerance of zero asks
// for n exactly; a negative one is an error.
func Number(n, tolerance float64) Matcher {
	if tolerance < 0 {
		return Matcher{err: fmt.Errorf("Number: the tolerance %v is negative", tolerance)}
	}
	return Matcher{m: suite.ArgMatcher{Kind: suite.MatchNumber, Number: n, Tolerance: tolerance}}
}

// Any matches an argument that is present, whatever its value (null
// included); {any: true} in a suite. An argument Args does not name is free
// already: Any asks that it be there.
func Any() Matcher { return Matcher{m: suite.ArgMatcher{Kind: suite.MatchAny}} }

// Absent matches when the argument is not there at all; {absent: true} in a
// suite.
func Absent() Matcher { return Matcher{m: suite.ArgMatcher{Kind: suite.MatchAbsent}} }

// BFCLOptions say how BFCL reads and types a parameter. A nil *BFCLOptions
// is the zero value: Python, the type of the first accepted value, not
// required.
type BFCLOptions struct {
	// Type is the parameter's BFCL type as the function document gives it
	// (string, integer, float, boolean, array, tuple, dict, any for Python;
	// Java's and JavaScript's scalar type names with Lang); empty: the type
	// of the first accepted value other than "".
	Type string
	// Items is the element type of an array or tuple; empty: none given.
	Items string
	// Lang is "python" (empty), "java" or "javascript": Java and JavaScript
	// values arrive as strings and are converted first, as BFCL does.
	Lang string
	// Required says the function requires the parameter: leaving it out is
	// invalid even when "" is accepted. False: "" among the accepted values
	// lets it be left out.
	Required bool
}

// BFCL matches a parameter as the Berkeley Function-Calling Leaderboard's
// AST checker judges it against its possible answers accepted ("" among
// them: the parameter may be left out); {bfcl: [...], type: T} in a suite.
func BFCL(accepted []any, o *BFCLOptions) Matcher {
	if o == nil {
		o = &BFCLOptions{}
	}
	if len(accepted) == 0 {
		return Matcher{err: fmt.Errorf("BFCL: no accepted values")}
	}
	langs := []string{"", suite.BFCLPython, suite.BFCLJava, suite.BFCLJavaScript}
	switch {
	case !slices.Contains(langs, o.Lang):
		return Matcher{err: fmt.Errorf("BFCL: Lang must be python, java or javascript, not %q", o.Lang)}
	case o.Type != "" && !suite.BFCLTypeKnown(o.Lang, o.Type):
		return Matcher{err: fmt.Errorf("BFCL: unknown type %q", o.Type)}
	case o.Items != "" && !suite.BFCLTypeKnown(suite.BFCLPython, o.Items):
		return Matcher{err: fmt.Errorf("BFCL: unknown element type %q", o.Items)}
	}
	spec := &suite.BFCLSpec{Type: o.Type, Items: o.Items, Lang: o.Lang, Required: o.Required}
	for _, v := range accepted {
		j, err := jsonShape(v)
		if err != nil {
			return Matcher{err: fmt.Errorf("BFCL: %w", err)}
		}
		spec.Accepted = append(spec.Accepted, j)
	}
	return Matcher{m: suite.ArgMatcher{Kind: suite.MatchBFCL, BFCL: spec}}
}

// String shows the matcher as a suite file writes it, e.g. {contains: dog};
// Equals shows as its value, the zero Matcher as "{}".
func (m Matcher) String() string {
	if m.m.Kind == "" {
		return "{}"
	}
	return m.m.String()
}

// isZero reports whether m is the zero Matcher: no expectation.
func (m Matcher) isZero() bool { return m.m.Kind == "" && m.err == nil }

// answer returns m as an expectation on the final answer, which takes
// Contains, Regex and OneOf of strings only.
func (m Matcher) answer() (*suite.TextMatcher, error) {
	if m.err != nil {
		return nil, m.err
	}
	t := &suite.TextMatcher{Kind: m.m.Kind, Substring: m.m.Substring, Regex: m.m.Regex}
	switch m.m.Kind {
	case suite.MatchContains, suite.MatchRegex:
		return t, nil
	case suite.MatchOneOf:
		for _, v := range m.m.OneOf {
			s, ok := v.(string)
			if !ok {
				return nil, fmt.Errorf("OneOf: an answer is text, and %s is not", suite.Flow(v))
			}
			t.OneOf = append(t.OneOf, s)
		}
		return t, nil
	}
	return nil, fmt.Errorf("an answer takes Contains, Regex or OneOf, not %s", m)
}

// jsonShape returns v in the shapes a parsed suite holds values in (nil,
// bool, int64, float64, string, []any, map[string]any), through its JSON
// encoding, so any Go value compares as the JSON a model would send.
func jsonShape(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var out any
	if err := d.Decode(&out); err != nil {
		return nil, err
	}
	return numbers(out), nil
}

// numbers turns the json.Numbers of a decoded value into int64 when they
// are integers that fit, float64 otherwise, as the suite parser does.
func numbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case []any:
		for i := range x {
			x[i] = numbers(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = numbers(x[k])
		}
	}
	return v
}
