package toolschema

import (
	"fmt"
	"strings"

	"github.com/toolgrade/toolgrade/internal/termtext"
)

// ChangeLines says what the conversion to Ollama's tool format did to each
// tool's schema, one line each, ranked: the rewrites that kept the meaning,
// then the information lost (per tool), then the lesser drops (per tool),
// then the benign ones as one summary line, since every zod-built server
// emits them. The lines hold the servers' names as they are: escape them
// for a terminal.
func ChangeLines(tools []Tool) []string {
	var out []string
	for _, t := range tools {
		if len(t.Rewrites) == 0 {
			continue
		}
		var l []string
		for _, r := range t.Rewrites {
			if r.To == "merged" {
				l = append(l, r.Path+" merged")
			} else {
				l = append(l, r.Path+" as "+r.To)
			}
		}
		out = append(out, fmt.Sprintf("rewritten: %s: %s (the same constraints in a form Ollama's tool format carries)", t.Exposed, strings.Join(l, ", ")))
	}
	for _, t := range tools {
		if l := t.dropsOf(SeverityLost); len(l) > 0 {
			out = append(out, fmt.Sprintf("warning: %s: information lost: Ollama's tool format drops %s; the model never sees %s, the validator still checks %[3]s",
				t.Exposed, strings.Join(l, ", "), termtext.Plural(len(l), "it", "them")))
		}
	}
	for _, t := range tools {
		if l := t.dropsOf(SeverityMinor); len(l) > 0 {
			out = append(out, fmt.Sprintf("warning: %s: %s dropped by Ollama's tool format; the model never sees %s",
				t.Exposed, strings.Join(l, ", "), termtext.Plural(len(l), "it", "them")))
		}
	}
	if l := benignLine(tools); l != "" {
		out = append(out, l)
	}
	return out
}

// benignLine counts the benign drops by kind, naming only the kinds there
// are; "" for none.
func benignLine(tools []Tool) string {
	var closed, bounds int
	for _, t := range tools {
		for _, p := range t.dropsOf(SeverityBenign) {
			if p == "additionalProperties" {
				closed++
			} else {
				bounds++
			}
		}
	}
	var kinds []string
	if closed > 0 {
		kinds = append(kinds, "top-level additionalProperties: false ("+termtext.Count(closed, "tool")+")")
	}
	if bounds > 0 {
		kinds = append(kinds, "integer bounds at ±(2^53−1), JavaScript's MAX_SAFE_INTEGER ("+termtext.Count(bounds, "bound")+")")
	}
	if len(kinds) == 0 {
		return ""
	}
	return fmt.Sprintf("note: %s not listed: %s", termtext.Count(closed+bounds, "benign drop"), strings.Join(kinds, "; "))
}

// dropsOf is the paths t dropped with severity s.
func (t Tool) dropsOf(s Severity) []string {
	var l []string
	for _, d := range t.Drops {
		if d.Severity == s {
			l = append(l, d.Path)
		}
	}
	return l
}
