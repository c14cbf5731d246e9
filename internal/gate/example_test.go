package gate_test

import (
	"os"

	"github.com/toolgrade/toolgrade/internal/gate"
	"github.com/toolgrade/toolgrade/internal/gate/expr"
	"github.com/toolgrade/toolgrade/internal/stats"
	"github.com/toolgrade/toolgrade/internal/summary"
)

func Example() {
	gates, err := expr.Parse("pass>=0.9", "qwen3:8b:round_limit<=0.05")
	if err != nil {
		panic(err)
	}
	// One model's summary: 11 of 25 trials passed, 1 hit the round limit.
	sum := &summary.Summary{Models: []summary.ModelSummary{{
		Model:      "qwen3:8b",
		Pass:       stats.Rate{K: 11, N: 25},
		RoundLimit: stats.Rate{K: 1, N: 25},
	}}}
	gate.Write(os.Stdout, gate.Check(sum, gates, gate.OnPoint))
	// On the pessimistic end, 1/25 may well be 19.5%.
	gate.Write(os.Stdout, gate.Check(sum, gates[1:], gate.OnLower))
	// Output:
	// gate held: qwen3:8b round_limit 4% [0–20] <= 5%
	// gate failed: qwen3:8b pass 44% [26–63] < 90%
	// gate failed: qwen3:8b round_limit 4% [0–20]: upper bound 19.5% > 5%
}
