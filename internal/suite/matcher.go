package suite

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/toolgrade/toolgrade/internal/termtext"
)

// MatcherKind names the kind of an ArgMatcher or TextMatcher; the values are
// the keys written in the suite.
type MatcherKind string

// Matcher kinds.
const (
	MatchEquals   MatcherKind = "equals"   // a literal, written bare or as {equals: v}
	MatchContains MatcherKind = "contains" // a string containing the text, ignoring case
	MatchRegex    MatcherKind = "regex"    // a string the RE2 regex finds a match in
	MatchOneOf    MatcherKind = "one_of"   // equal to one of the literals
	MatchNumber   MatcherKind = "number"   // a number within tolerance of Number
	MatchAny      MatcherKind = "any"      // present, any value (null included)
	MatchAbsent   MatcherKind = "absent"   // the key must not be there
)

// MatchOptions tune how values are compared.
type MatchOptions struct {
	// NormalizeStrings compares literal strings (equals and one_of, at any
	// depth) after lower-casing them and removing every Unicode space and
	// punctuation character and '^': a superset of BFCL's rule, which strips
	// space , . / - _ * ^ and folds quotes. contains and regex are unaffected.
	NormalizeStrings bool
}

// ArgMatcher is the expectation on one argument of an expected call.
type ArgMatcher struct {
	// Key is the argument's name.
	Key string
	// Pos is where the expected value is written, KeyPos the argument's
	// name.
	Pos    Pos
	KeyPos Pos
	Kind   MatcherKind
	// Value is the literal of MatchEquals in JSON's shapes: nil, bool, int64,
	// float64, string, []any or map[string]any.
	Value any
	// Substring is the text of MatchContains.
	Substring string
	// Regex is the compiled pattern of MatchRegex.
	Regex *regexp.Regexp
	// OneOf are the literals of MatchOneOf, in Value's shapes.
	OneOf []any
	// Number and Tolerance define MatchNumber: |v-Number| <= Tolerance.
	Number, Tolerance float64
	// BFCL is the spec of MatchBFCL; nil for the other kinds.
	BFCL *BFCLSpec
}

// Match reports whether v, the argument's value (present says whether the key
// was there at all), satisfies m, and when not, why in a few words. v is in
// the shapes encoding/json decodes to; json.Number and Go integer types are
// accepted for numbers.
func (m ArgMatcher) Match(v any, present bool, opts MatchOptions) (ok bool, why string) {
	if m.Kind == MatchAbsent {
		if present {
			return false, fmt.Sprintf("got %s, want no such argument", Flow(v))
		}
		return true, ""
	}
	if m.Kind == MatchBFCL {
		// BFCL's own rules decide, presence included ("" accepted).
		return m.BFCL.match(v, present)
	}
	if !present {
		return false, "missing"
	}
	switch m.Kind {
	case MatchAny:
		return true, ""
	case MatchEquals:
		if equal(m.Value, v, opts) {
			return true, ""
		}
		return false, fmt.Sprintf("got %s, want %s", Flow(v), Flow(m.Value))
	case MatchContains:
		s, isStr := v.(string)
		if !isStr {
			return false, fmt.Sprintf("got %s, want a string containing %s", Flow(v), Flow(m.Substring))
		}
		if strings.Contains(strings.ToLower(s), strings.ToLower(m.Substring)) {
			return true, ""
		}
		return false, fmt.Sprintf("%s does not contain %s", Flow(s), Flow(m.Substring))
	case MatchRegex:
		s, isStr := v.(string)
		if !isStr {
			return false, fmt.Sprintf("got %s, want a string matching /%s/", Flow(v), m.Regex)
		}
		if m.Regex.MatchString(s) {
			return true, ""
		}
		return false, fmt.Sprintf("%s does not match /%s/", Flow(s), m.Regex)
	case MatchOneOf:
		for _, w := range m.OneOf {
			if equal(w, v, opts) {
				return true, ""
			}
		}
		return false, fmt.Sprintf("got %s, want one of %s", Flow(v), Flow(m.OneOf))
	case MatchNumber:
		f, isNum := toFloat(v)
		if !isNum {
			return false, fmt.Sprintf("got %s, want a number", Flow(v))
		}
		if math.Abs(f-m.Number) <= m.Tolerance {
			return true, ""
		}
		if m.Tolerance == 0 {
			return false, fmt.Sprintf("got %s, want %s", Flow(v), Flow(m.Number))
		}
		return false, fmt.Sprintf("got %s, want %s ± %s", Flow(v), Flow(m.Number), Flow(m.Tolerance))
	}
	return false, fmt.Sprintf("unknown matcher kind %q", m.Kind)
}

// String shows the matcher the way a suite writes it, e.g. {contains: dog};
// a literal shows as itself.
func (m ArgMatcher) String() string {
	switch m.Kind {
	case MatchEquals:
		// An object a suite would read as a matcher (one key, or a
		// matcher's key) is written as equals, so it reads back the same.
		if obj, ok := m.Value.(map[string]any); ok && (len(obj) == 1 || hasMatcherKey(obj)) {
			return "{equals: " + Flow(m.Value) + "}"
		}
		return Flow(m.Value)
	case MatchContains:
		return "{contains: " + Flow(m.Substring) + "}"
	case MatchRegex:
		return "{regex: " + Flow(m.Regex.String()) + "}"
	case MatchOneOf:
		return "{one_of: " + Flow(m.OneOf) + "}"
	case MatchNumber:
		if m.Tolerance == 0 {
			return "{number: " + Flow(m.Number) + "}"
		}
		return "{number: " + Flow(m.Number) + ", tolerance: " + Flow(m.Tolerance) + "}"
	case MatchAny:
		return "{any: true}"
	case MatchAbsent:
		return "{absent: true}"
	case MatchBFCL:
		return m.BFCL.String()
	}
	return "{" + string(m.Kind) + "}"
}

// ArgMatchers are the expectations on a call's arguments, in the order the
// keys are written.
type ArgMatchers []ArgMatcher

// Mismatch is one argument that failed its expectation.
type Mismatch struct {
	Key string
	Why string
}

// Get returns the matcher for key.
func (ms ArgMatchers) Get(key string) (ArgMatcher, bool) {
	for _, m := range ms {
		if m.Key == key {
			return m, true
		}
	}
	return ArgMatcher{}, false
}

// Match checks an argument object and returns what failed: the named keys in
// written order, then (with strict) the keys not named, sorted. None means a
// match.
func (ms ArgMatchers) Match(args map[string]any, strict bool, opts MatchOptions) []Mismatch {
	var out []Mismatch
	for _, m := range ms {
		v, present := args[m.Key]
		if ok, why := m.Match(v, present, opts); !ok {
			out = append(out, Mismatch{Key: m.Key, Why: why})
		}
	}
	if strict {
		var extra []string
		for k := range args {
			if _, named := ms.Get(k); !named {
				extra = append(extra, k)
			}
		}
		slices.Sort(extra)
		for _, k := range extra {
			out = append(out, Mismatch{Key: k, Why: fmt.Sprintf("got %s, not expected (strict args)", Flow(args[k]))})
		}
	}
	return out
}

// Literals returns the literal expectations (MatchEquals) as an object, the
// part of the arguments known exactly, e.g. for checking against a tool's
// input schema.
func (ms ArgMatchers) Literals() map[string]any {
	out := map[string]any{}
	for _, m := range ms {
		if m.Kind == MatchEquals {
			out[m.Key] = m.Value
		}
	}
	return out
}

// TextMatcher is the expectation on a final answer.
type TextMatcher struct {
	// Pos is where the matcher is written.
	Pos Pos
	// Kind is MatchContains, MatchRegex or MatchOneOf.
	Kind MatcherKind
	// Substring is the text of MatchContains, found ignoring case.
	Substring string
	// Regex is the pattern of MatchRegex, with search semantics (anchor it
	// to match the whole answer).
	Regex *regexp.Regexp
	// OneOf are the answers MatchOneOf accepts; the answer matches one when
	// equal to it ignoring case and surrounding whitespace.
	OneOf []string
}

// Match reports whether s satisfies m, and when not, why.
func (m TextMatcher) Match(s string) (bool, string) {
	switch m.Kind {
	case MatchContains:
		if strings.Contains(strings.ToLower(s), strings.ToLower(m.Substring)) {
			return true, ""
		}
		return false, fmt.Sprintf("answer %s does not contain %s", Flow(termtext.Excerpt(s, 200)), Flow(m.Substring))
	case MatchRegex:
		if m.Regex.MatchString(s) {
			return true, ""
		}
		return false, fmt.Sprintf("answer %s does not match /%s/", Flow(termtext.Excerpt(s, 200)), m.Regex)
	case MatchOneOf:
		t := strings.TrimSpace(s)
		for _, w := range m.OneOf {
			if strings.EqualFold(t, strings.TrimSpace(w)) {
				return true, ""
			}
		}
		return false, fmt.Sprintf("answer %s is not one of %s", Flow(termtext.Excerpt(s, 200)), Flow(m.OneOf))
	}
	return false, fmt.Sprintf("unknown matcher kind %q", m.Kind)
}

// String shows the matcher the way a suite writes it.
func (m TextMatcher) String() string {
	switch m.Kind {
	case MatchContains:
		return "{contains: " + Flow(m.Substring) + "}"
	case MatchRegex:
		return "{regex: " + Flow(m.Regex.String()) + "}"
	case MatchOneOf:
		return "{one_of: " + Flow(m.OneOf) + "}"
	}
	return "{" + string(m.Kind) + "}"
}

// equal compares an expected literal with an actual value: numbers by value
// whatever their Go type, strings optionally normalised, lists in order,
// objects key by key with the same key set.
func equal(want, got any, opts MatchOptions) bool {
	if wf, ok := numeric(want); ok {
		gf, ok := numeric(got)
		return ok && wf.equal(gf)
	}
	switch w := want.(type) {
	case nil:
		return got == nil
	case bool:
		g, ok := got.(bool)
		return ok && g == w
	case string:
		g, ok := got.(string)
		if !ok {
			return false
		}
		if opts.NormalizeStrings {
			return Normalize(w) == Normalize(g)
		}
		return w == g
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !equal(w[i], g[i], opts) {
				return false
			}
		}
		return true
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for k, wv := range w {
			gv, ok := g[k]
			if !ok || !equal(wv, gv, opts) {
				return false
			}
		}
		return true
	}
	return false
}

// Normalize is BFCL's string normalisation, widened to all of Unicode: lower
// case, with whitespace, punctuation and '^' removed.
func Normalize(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.IsSpace(r) || unicode.IsPunct(r) || r == '^' {
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// number is a JSON number held exactly when it is an integer that fits in 64
// bits, so large integers compare exactly and 5 equals 5.0.
type number struct {
	isInt bool
	i     int64
	f     float64
}

func (a number) equal(b number) bool {
	if a.isInt && b.isInt {
		return a.i == b.i
	}
	return a.float() == b.float()
}

func (a number) float() float64 {
	if a.isInt {
		return float64(a.i)
	}
	return a.f
}

// numeric reads a number in any of the forms values arrive in.
func numeric(v any) (number, bool) {
	switch x := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return number{isInt: true, i: i}, true
		}
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil && !isRangeErr(err) {
			return number{}, false
		}
		return fromFloat(f), true
	case float64:
		return fromFloat(x), true
	case float32:
		return fromFloat(float64(x)), true
	case int:
		return number{isInt: true, i: int64(x)}, true
	case int8:
		return number{isInt: true, i: int64(x)}, true
	case int16:
		return number{isInt: true, i: int64(x)}, true
	case int32:
		return number{isInt: true, i: int64(x)}, true
	case int64:
		return number{isInt: true, i: x}, true
	case uint:
		return fromUint(uint64(x)), true
	case uint8:
		return number{isInt: true, i: int64(x)}, true
	case uint16:
		return number{isInt: true, i: int64(x)}, true
	case uint32:
		return number{isInt: true, i: int64(x)}, true
	case uint64:
		return fromUint(x), true
	}
	return number{}, false
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// fromFloat keeps integral floats as integers so they compare exactly with
// integers beyond 2^53.
func fromFloat(f float64) number {
	if f == math.Trunc(f) && f >= -(1<<63) && f < 1<<63 {
		return number{isInt: true, i: int64(f)}
	}
	return number{f: f}
}

func fromUint(u uint64) number {
	if u <= math.MaxInt64 {
		return number{isInt: true, i: int64(u)}
	}
	return number{f: float64(u)}
}

func toFloat(v any) (float64, bool) {
	n, ok := numeric(v)
	return n.float(), ok
}

// Flow renders a value compactly in YAML flow style, the way a suite would
// write it: single words bare, other strings quoted, lists and objects
// inline with object keys sorted.
func Flow(v any) string {
	var b strings.Builder
	flow(&b, v)
	return b.String()
}

func flow(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case string:
		if plain(x) {
			b.WriteString(x)
		} else {
			b.WriteString(strconv.Quote(x))
		}
	case json.Number:
		b.WriteString(string(x))
	case float64:
		b.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			flow(b, e)
		}
		b.WriteByte(']')
	case []string:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			flow(b, e)
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			flow(b, k)
			b.WriteString(": ")
			flow(b, x[k])
		}
		b.WriteByte('}')
	default:
		fmt.Fprint(b, x)
	}
}

// plainRE is the strings Flow leaves unquoted: single words, with a few
// harmless marks, that YAML reads back as the same string and that cannot
// blur into the text of a message around them.
var plainRE = regexp.MustCompile(`^[\p{L}_][\p{L}\p{N}_.\-/]*$`)

func plain(s string) bool {
	if !plainRE.MatchString(s) {
		return false
	}
	switch strings.ToLower(s) {
	case "true", "false", "null", "yes", "no", "on", "off", "y", "n":
		return false
	}
	return true
}

func hasMatcherKey(obj map[string]any) bool {
	for k := range obj {
		if IsMatcherKey(k) {
			return true
		}
	}
	return false
}
