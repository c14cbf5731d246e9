package toolschema

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestChangeLinesRanked(t *testing.T) {
	tools := []Tool{
		{Exposed: "a", Drops: []Drop{
			{Path: "additionalProperties", Severity: SeverityBenign},
			{Path: "properties.n.maximum", Severity: SeverityBenign},
			{Path: "properties.s.minLength", Severity: SeverityMinor},
		}},
		{Exposed: "b", Rewrites: []Rewrite{{Path: "properties.p.oneOf", From: "oneOf", To: "anyOf"}, {Path: "allOf", From: "allOf", To: "merged"}},
			Drops: []Drop{
				{Path: "additionalProperties", Severity: SeverityBenign},
				{Path: "properties.o.required", Severity: SeverityLost},
				{Path: "properties.t.default", Severity: SeverityMinor},
				{Path: "properties.u.title", Severity: SeverityMinor},
				{Path: "properties.x.format", Severity: SeverityLost},
			}},
	}
	want := []string{
		"rewritten: b: properties.p.oneOf as anyOf, allOf merged (the same constraints in a form Ollama's tool format carries)",
		// Information lost comes first, though b is listed after a.
		"warning: b: information lost: Ollama's tool format drops properties.o.required, properties.x.format; the model never sees them, the validator still checks them",
		"warning: a: properties.s.minLength dropped by Ollama's tool format; the model never sees it",
		"warning: b: properties.t.default, properties.u.title dropped by Ollama's tool format; the model never sees them",
		"note: 3 benign drops not listed: top-level additionalProperties: false (2 tools); integer bounds at ±(2^53−1), JavaScript's MAX_SAFE_INTEGER (1 bound)",
	}
	if diff := cmp.Diff(want, ChangeLines(tools)); diff != "" {
		t.Errorf("schema changes (-want +got):\n%s", diff)
	}
}

// TestBenignLineNamesOnlyWhatThereIs: a kind of benign drop the tools do
// not have is not listed with a count of 0, and counts agree in number.
func TestBenignLineNamesOnlyWhatThereIs(t *testing.T) {
	closed := func(name string) Tool {
		return Tool{Exposed: name, Drops: []Drop{{Path: "additionalProperties", Severity: SeverityBenign}}}
	}
	if got, want := benignLine([]Tool{closed("a"), closed("b"), closed("c")}), "note: 3 benign drops not listed: top-level additionalProperties: false (3 tools)"; got != want {
		t.Errorf("benign line\n got %q\nwant %q", got, want)
	}
	if got, want := benignLine([]Tool{closed("a")}), "note: 1 benign drop not listed: top-level additionalProperties: false (1 tool)"; got != want {
		t.Errorf("benign line\n got %q\nwant %q", got, want)
	}
	if strings.Contains(benignLine([]Tool{closed("a")}), "(0") {
		t.Error("a kind with no drop is listed")
	}
	if got := benignLine(nil); got != "" {
		t.Errorf("no drops: %q", got)
	}
}
