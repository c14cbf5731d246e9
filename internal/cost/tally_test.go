package cost

import (
	"testing"
	"time"

	"github.com/toolgrade/toolgrade/internal/record"
)

func trial(model, host, outcome string, wall time.Duration, truncated bool) *record.Trial {
	return &record.Trial{Model: model, Host: host,
		Score: record.Score{Outcome: outcome, Truncated: truncated},
		Transcript: &record.Transcript{Wall: wall, Rounds: []record.Round{{Metrics: record.Metrics{
			PromptEvalCount: 100, PromptEvalDuration: 10 * time.Millisecond, EvalCount: 10, EvalDuration: 100 * time.Millisecond}}}}}
}

// TestTheTrialsMeasureTheCost: every trial that ran counts, truncated or
// not; an infrastructure error does not; a host's trials count for it and
// for the model.
func TestTheTrialsMeasureTheCost(t *testing.T) {
	r := NewRun()
	for i := 1; i <= 20; i++ {
		host := "a"
		if i > 15 {
			host = "b"
		}
		r.Add(trial("m", host, record.OutcomePass, time.Duration(i)*time.Second, i%4 == 0))
	}
	r.Add(trial("m", "a", record.OutcomeInfraError, time.Hour, false))
	// A copy of an earlier repeat took no model time: left out.
	r.Add(trial("m", "a", record.OutcomePass, time.Second, true).Copy(3, 3, time.Time{}))
	r.Add(trial("solo", "", record.OutcomeWrongTool, time.Second, false))
	c := r.Model("m")
	// Nearest rank: the 10th and the 19th of 1..20 s, within the
	// histogram's 1%.
	if c.Trials != 20 || c.Truncated != 5 || c.PromptTokensPerSecond != 10000 || c.EvalTokensPerSecond != 100 ||
		!near(c.P50, 10*time.Second) || !near(c.P95, 19*time.Second) {
		t.Errorf("model: %+v", c)
	}
	hs := r.Hosts("m")
	if len(hs) != 2 || hs["a"].Trials != 15 || hs["b"].Trials != 5 || !near(hs["b"].P50, 18*time.Second) {
		t.Errorf("hosts: a %+v, b %+v", hs["a"], hs["b"])
	}
	if r.Hosts("solo") != nil || r.Model("solo").Trials != 1 || r.Model("none") != nil {
		t.Errorf("solo %+v / %+v", r.Hosts("solo"), r.Model("solo"))
	}

	run := &record.Run{Models: []record.Model{
		{Name: "m", Cost: &record.Cost{Loaded: &record.Loaded{Size: 7}}, Hosts: []record.ModelHost{{Host: "a"}, {Host: "b"}}},
		{Name: "unrun", Cost: &record.Cost{Trials: 3}},
	}}
	r.Record(run)
	if m := run.Models[0]; m.Cost.Trials != 20 || m.Cost.Loaded.Size != 7 || m.Hosts[1].Cost.Trials != 5 || run.Models[1].Cost.Trials != 3 {
		t.Errorf("recorded: %+v / %+v", m.Cost, run.Models[1].Cost)
	}
}

func near(got, want time.Duration) bool {
	d := got - want
	return d >= -want/100 && d <= want/100
}
