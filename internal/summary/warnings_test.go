package summary

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgrade/toolgrade/internal/stats"
)

// TestWarningsOncePerMessage: a sweep whose every point ran too few trials
// warns once, naming the models and points, not once a point (the sweep
// page opened with eight identical lines).
func TestWarningsOncePerMessage(t *testing.T) {
	row := func(model, variant string, scored, infra int) ModelSummary {
		return ModelSummary{Model: model, Variant: variant, Trials: scored + infra, Scored: scored, Infra: infra, Pass: stats.Rate{N: scored}}
	}
	var sweep []ModelSummary
	for _, m := range []string{"good", "weak"} {
		for _, v := range []string{"", "decoys=10", "decoys=30"} {
			sweep = append(sweep, row(m, v, 4, 0))
		}
	}
	sweep[4].Infra, sweep[4].Trials = 1, 5 // weak at decoys=10
	got := rowWarnings(sweep, true)
	want := []string{
		"good and weak at base, decoys=10, decoys=30 (6 rows): only 4 scored trials: the intervals are wide; add cases or --repeat",
		"weak (decoys=10): 1 trial hit an infrastructure error (Ollama or MCP failures, after retries); it is kept out of every rate",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}

	uneven := []ModelSummary{row("good", "", 4, 0), row("good", "decoys=10", 4, 0), row("weak", "decoys=10", 4, 0), row("weak", "decoys=30", 3, 0)}
	want = []string{
		"good at base, decoys=10; weak at decoys=10 (3 rows): only 4 scored trials: the intervals are wide; add cases or --repeat",
		"weak (decoys=30): only 3 scored trials: the intervals are wide; add cases or --repeat",
	}
	if diff := cmp.Diff(want, rowWarnings(uneven, true)); diff != "" {
		t.Errorf("warnings of uneven rows (-want +got):\n%s", diff)
	}

	plain := []ModelSummary{row("good", "", 4, 0), row("weak", "", 4, 0)}
	want = []string{"good, weak (2 models): only 4 scored trials: the intervals are wide; add cases or --repeat"}
	if diff := cmp.Diff(want, rowWarnings(plain, false)); diff != "" {
		t.Errorf("warnings without variants (-want +got):\n%s", diff)
	}
}
