package compare

import (
	"testing"
	"time"

	"github.com/toolgrade/toolgrade/internal/metric"
	"github.com/toolgrade/toolgrade/internal/record"
)

// TestRateByCall checks that a rate the summary counts by call (argument
// validity) carries that count beside the trial-level one it pairs, so a
// report can say why run's table reads differently: here n made 6 calls, 5
// valid (83% in run's table), in 2 trials, 1 of them all valid (50% here).
func TestRateByCall(t *testing.T) {
	calls := func(tr *record.Trial, known, valid int) *record.Trial {
		tr.Score.CallsToKnownTools, tr.Score.ValidCalls = known, valid
		return tr
	}
	r := writeRun(t, baseRun(), []*record.Trial{
		calls(trial("m", "", "a", 0, record.OutcomePass, time.Second), 3, 3),
		calls(trial("m", "", "b", 0, record.OutcomePass, time.Second), 3, 3),
		calls(trial("n", "", "a", 0, record.OutcomePass, time.Second), 3, 3),
		calls(trial("n", "", "b", 0, record.OutcomeInvalidArgs, time.Second), 3, 2),
	})
	c, _, err := Models(r, "m", "n", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range c.Groups[0].Rates {
		switch row.Metric {
		case metric.ArgValidity:
			if got := row.Rate.Current; got.K != 1 || got.N != 2 {
				t.Errorf("arg_validity by trial = %v, want 1/2", got)
			}
			if row.ByCall == nil || knOf(row.ByCall.Base) != newRate(6, 6) || knOf(row.ByCall.Current) != newRate(5, 6) {
				t.Errorf("arg_validity by call = %+v, want 6/6 → 5/6", row.ByCall)
			}
		case metric.Pass, metric.ToolSelection, metric.ArgAccuracy:
			if row.ByCall != nil {
				t.Errorf("%s counts trials in both views, but has a by-call count %+v", row.Metric, row.ByCall)
			}
		}
	}
}
