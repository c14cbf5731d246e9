package gate

import (
	"testing"

	"github.com/toolgrade/toolgrade/internal/gate/expr"
	"github.com/toolgrade/toolgrade/internal/summary"
)

func TestUnknownNamesAModelOrVariantTheRunLacks(t *testing.T) {
	s := &summary.Summary{Models: []summary.ModelSummary{{Model: "qwen3:8b"}, {Model: "qwen3:8b", Variant: "terse"}, {Model: "llama3.2:3b"}}}
	for _, c := range []struct{ gate, want string }{
		{"pass>=0.9", ""},
		{"qwen3:8b@base:pass>=0.9", ""},
		{"qwen3:8b@terse:pass>=0.9", ""},
		{"qwen3:8:pass>=0.9", `gate qwen3:8:pass>=0.9: the run has no model "qwen3:8" (did you mean "qwen3:8b"? models: qwen3:8b, llama3.2:3b)`},
		{"qwen3:8b@tres:pass>=0.9", `gate qwen3:8b@tres:pass>=0.9: the run has no variant "tres" (did you mean "terse"? variants: base, terse)`},
		{"mistral:pass>=0.9", `gate mistral:pass>=0.9: the run has no model "mistral" (models: qwen3:8b, llama3.2:3b)`},
	} {
		g, err := expr.ParseOne(c.gate)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if err := Unknown(s, []expr.Gate{g}); err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.gate, got, c.want)
		}
	}
	if err := Unknown(&summary.Summary{}, nil); err != nil {
		t.Errorf("no rows: %v", err)
	}
}
