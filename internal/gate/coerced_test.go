package gate

import (
	"testing"

	"github.com/toolgrade/toolgrade/internal/gate/expr"
	"github.com/toolgrade/toolgrade/internal/metric"
	"github.com/toolgrade/toolgrade/internal/stats"
	"github.com/toolgrade/toolgrade/internal/summary"
)

// TestCoercedValidityGate: arg_validity_coerced judges validity if coerced,
// not strict validity.
func TestCoercedValidityGate(t *testing.T) {
	g, err := expr.ParseOne("arg_validity_coerced>=90%")
	if err != nil {
		t.Fatal(err)
	}
	if g.Metric != metric.ArgValidityCoerced {
		t.Fatalf("metric %q, want %q", g.Metric, metric.ArgValidityCoerced)
	}
	s := &summary.Summary{Models: []summary.ModelSummary{{
		Model:              "m",
		ArgValidity:        stats.Rate{K: 5, N: 10},
		ArgValidityCoerced: stats.Rate{K: 10, N: 10},
	}}}
	res := Check(s, []expr.Gate{g}, OnPoint)
	if len(res) != 1 || !res[0].Held || res[0].Value != 1 {
		t.Errorf("Check = %+v, want it held at 1", res)
	}
	strict, _ := expr.ParseOne("arg_validity>=90%")
	if res := Check(s, []expr.Gate{strict}, OnPoint); res[0].Held {
		t.Errorf("arg_validity>=90%% held at %v", res[0].Value)
	}
}
