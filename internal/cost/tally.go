// Package cost measures what a model cost on the machine that ran it from
// the trials of a run: the speed Ollama reported (prompt and eval tokens a
// second), the trials' wall time (p50, p95) and the share of trials whose
// prompt was truncated. The run records it in run.json when it finishes
// (record.Cost), and `toolgrade choose` measures a run recorded before that
// the same way.
package cost

import (
	"time"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/stats"
)

// Tally counts trials of one model (on one host, or on all).
type Tally struct {
	trials, truncated  int
	prompt, eval       int
	promptDur, evalDur time.Duration
	wall               stats.Histogram
}

// Add counts t: a trial that ran, whatever its score; an infrastructure
// error (record.OutcomeInfraError) says nothing of the model's speed and is
// left out, as is a copy of an earlier repeat (record.Trial.CopyOf), which
// took no model time.
func (c *Tally) Add(t *record.Trial) {
	if t.Score.Outcome == record.OutcomeInfraError || t.Transcript == nil || t.IsCopy() {
		return
	}
	c.trials++
	if t.Score.Truncated {
		c.truncated++
	}
	c.wall.Add(t.Transcript.Wall.Seconds())
	for _, r := range t.Transcript.Rounds {
		c.prompt += r.Metrics.PromptEvalCount
		c.promptDur += r.Metrics.PromptEvalDuration
		c.eval += r.Metrics.EvalCount
		c.evalDur += r.Metrics.EvalDuration
	}
}

// Cost is what the trials counted measure; nil when none were counted.
// Loaded is left nil: only Ollama's /api/ps knows it.
func (c *Tally) Cost() *record.Cost {
	if c.trials == 0 {
		return nil
	}
	out := &record.Cost{
		Trials:    c.trials,
		Truncated: c.truncated,
		P50:       seconds(c.wall.Quantile(0.5)),
		P95:       seconds(c.wall.Quantile(0.95)),
	}
	if c.promptDur > 0 {
		out.PromptTokensPerSecond = float64(c.prompt) / c.promptDur.Seconds()
	}
	if c.evalDur > 0 {
		out.EvalTokensPerSecond = float64(c.eval) / c.evalDur.Seconds()
	}
	return out
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// Run tallies the trials of a run per model and per host of each model.
type Run struct {
	models map[string]*Tally
	hosts  map[string]map[string]*Tally
}

// NewRun is an empty tally of a run.
func NewRun() *Run {
	return &Run{models: map[string]*Tally{}, hosts: map[string]map[string]*Tally{}}
}

// Add counts t in its model's tally and, when it names its host, in that
// host's.
func (r *Run) Add(t *record.Trial) {
	m := r.models[t.Model]
	if m == nil {
		m = &Tally{}
		r.models[t.Model] = m
	}
	m.Add(t)
	if t.Host == "" {
		return
	}
	hs := r.hosts[t.Model]
	if hs == nil {
		hs = map[string]*Tally{}
		r.hosts[t.Model] = hs
	}
	h := hs[t.Host]
	if h == nil {
		h = &Tally{}
		hs[t.Host] = h
	}
	h.Add(t)
}

// Model is what model's trials measure; nil when it has none.
func (r *Run) Model(model string) *record.Cost {
	if m := r.models[model]; m != nil {
		return m.Cost()
	}
	return nil
}

// Hosts is what model's trials measure on each host, by host name; nil
// when its trials name no host (one Ollama).
func (r *Run) Hosts(model string) map[string]*record.Cost {
	hs := r.hosts[model]
	if hs == nil {
		return nil
	}
	out := map[string]*record.Cost{}
	for name, h := range hs {
		if c := h.Cost(); c != nil {
			out[name] = c
		}
	}
	return out
}

// Record writes what the trials measure into the models of run (run.json),
// keeping what /api/ps reported of each (see record.Model.WithMeasures). A
// model with no trial counted keeps its cost as it was.
func (r *Run) Record(run *record.Run) {
	for i, m := range run.Models {
		all := r.Model(m.Name)
		if all == nil {
			continue
		}
		run.Models[i] = m.WithMeasures(all, r.Hosts(m.Name))
	}
}
