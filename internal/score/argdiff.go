package score

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolgrade/toolgrade/internal/suite"
)

// argsDiff explains a pair whose arguments do not match, for people: the
// call, then one line per argument that differs, what was expected against
// what the model sent, values in JSON (the form the model wrote them in).
// One differing argument stays on the call's line, so that one-line views
// (compare's regressions, a JUnit message) show it whole.
func (sc *scorer) argsDiff(p pair) string {
	ms := sc.mismatches(p.want, p.call)
	if len(ms) == 0 {
		return ""
	}
	call := sc.calls[p.call]
	head := fmt.Sprintf("%s (call %d)", call.Name, p.call+1)
	got, err := decodeArgs(call.Arguments)
	if err != nil {
		return head + ": " + err.Error()
	}
	lines := make([]string, len(ms))
	for i, m := range ms {
		lines[i] = argLine(m, p.want.Args, got)
	}
	if len(lines) == 1 {
		return head + ": " + lines[0]
	}
	return fmt.Sprintf("%s: %d arguments differ\n  %s", head, len(lines), strings.Join(lines, "\n  "))
}

// argLine is one differing argument: "key: expected X, got Y".
func argLine(m suite.Mismatch, want suite.ArgMatchers, got map[string]any) string {
	if m.Key == "" {
		return m.Why // the arguments as a whole (not JSON, not an object)
	}
	v, present := got[m.Key]
	gotText := "(missing)"
	if present {
		gotText = jsonText(v)
	}
	matcher, named := want.Get(m.Key)
	if !named {
		return fmt.Sprintf("%s: expected no such argument (strict args), got %s", m.Key, gotText)
	}
	line := fmt.Sprintf("%s: expected %s, got %s", m.Key, expectedText(matcher), gotText)
	// BFCL's rules have reasons of their own (a type, a missing optional
	// marker) that the values alone do not show.
	if matcher.Kind == suite.MatchBFCL && !strings.HasPrefix(m.Why, "got ") {
		line += " (" + m.Why + ")"
	}
	return line
}

// expectedText says what a matcher accepts, literals in JSON.
func expectedText(m suite.ArgMatcher) string {
	switch m.Kind {
	case suite.MatchEquals:
		return jsonText(m.Value)
	case suite.MatchContains:
		return "a string containing " + jsonText(m.Substring) + " (any case)"
	case suite.MatchRegex:
		return "a string matching /" + m.Regex.String() + "/"
	case suite.MatchOneOf:
		return "one of " + jsonText(m.OneOf)
	case suite.MatchNumber:
		if m.Tolerance == 0 {
			return jsonText(m.Number)
		}
		return jsonText(m.Number) + " ± " + jsonText(m.Tolerance)
	case suite.MatchAny:
		return "any value"
	case suite.MatchAbsent:
		return "no such argument"
	case suite.MatchBFCL:
		return "one of " + jsonText(m.BFCL.Accepted)
	}
	return m.String()
}

// jsonText is v as compact JSON, HTML characters left as they are and cut
// to a readable length.
func jsonText(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return suite.Flow(v)
	}
	const max = 200
	s := strings.TrimSuffix(b.String(), "\n")
	if r := []rune(s); len(r) > max {
		return string(r[:max]) + "…"
	}
	return s
}
