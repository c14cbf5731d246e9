package suite

import (
	"strings"
	"testing"
)

// TestSchemaHints reads schema_hints from defaults and variants: a
// variant's own value replaces the suite's, none turns hints off, and the
// zero value is off.
func TestSchemaHints(t *testing.T) {
	const cases = "cases:\n  - {id: c, ask: q, expect: {no_tool: true}}\n"
	s, err := Parse([]byte(`defaults: {schema_hints: description}
variants:
  - {name: plain, schema_hints: none}
  - {name: terse, system: Be terse.}
`+cases), "s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got := s.SchemaHints(nil); got != HintsDescription {
		t.Errorf("base: %q", got)
	}
	if got := s.SchemaHints(s.Variant("plain")); got != "" {
		t.Errorf("plain: %q", got)
	}
	if got := s.SchemaHints(s.Variant("terse")); got != HintsDescription {
		t.Errorf("terse inherits: %q", got)
	}

	s, err = Parse([]byte("variants:\n  - {name: hints, schema_hints: description}\n"+cases), "s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if s.SchemaHints(nil) != "" || s.SchemaHints(s.Variant("hints")) != HintsDescription {
		t.Errorf("off by default, on for the variant: %q %q", s.SchemaHints(nil), s.SchemaHints(s.Variant("hints")))
	}

	_, err = Parse([]byte("defaults: {schema_hints: yes}\nvariants:\n  - {name: h, schema_hints: [x]}\n"+cases), "s.yaml")
	for _, want := range []string{
		`s.yaml:1:26: defaults.schema_hints: must be none or description, not "yes"`,
		`s.yaml:3:29: variants[0].schema_hints: must be none or description, not a list`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v\nwant it to contain %s", err, want)
		}
	}
}
