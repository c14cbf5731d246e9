package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgrade/toolgrade/harness/servers"
)

func TestSchemaChangesRanked(t *testing.T) {
	tools := []servers.Tool{
		{Exposed: "a", Drops: []servers.Drop{
			{Path: "additionalProperties", Severity: servers.SeverityBenign},
			{Path: "properties.n.maximum", Severity: servers.SeverityBenign},
			{Path: "properties.s.minLength", Severity: servers.SeverityMinor},
		}},
		{Exposed: "b", Rewrites: []servers.Rewrite{{Path: "properties.p.oneOf", From: "oneOf", To: "anyOf"}, {Path: "allOf", From: "allOf", To: "merged"}},
			Drops: []servers.Drop{
				{Path: "additionalProperties", Severity: servers.SeverityBenign},
				{Path: "properties.o.required", Severity: servers.SeverityLost},
				{Path: "properties.t.default", Severity: servers.SeverityMinor},
				{Path: "properties.x.format", Severity: servers.SeverityLost},
			}},
	}
	var b strings.Builder
	printSchemaChanges(&b, tools)
	want := []string{
		"rewritten: b: properties.p.oneOf as anyOf, allOf merged (the same constraints in a form Ollama's tool format carries)",
		// Information lost comes first, though b is listed after a.
		"warning: b: information lost: Ollama's tool format drops properties.o.required, properties.x.format; the model never sees it, the validator still checks it",
		"warning: a: properties.s.minLength dropped by Ollama's tool format; the model never sees it",
		"warning: b: properties.t.default dropped by Ollama's tool format; the model never sees it",
		"note: 3 benign drops not listed: top-level additionalProperties: false (2 tools), integer bounds at ±(2^53−1), JavaScript's MAX_SAFE_INTEGER (1)",
	}
	if diff := cmp.Diff(want, strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")); diff != "" {
		t.Errorf("schema changes (-want +got):\n%s", diff)
	}
}
