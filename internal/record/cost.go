package record

import "time"

// Cost is what a model cost on the machine that ran it, for choosing
// between models: what the loaded model occupies, as Ollama's /api/ps
// reported it once the model was loaded, and how fast it ran, measured on
// the run's trials when the run finished (a resume measures again, over
// every session's trials). A zero field was not measured: a model loaded
// before toolgrade recorded it, or an Ollama that did not say.
type Cost struct {
	// Loaded is /api/ps's view of the loaded model; nil when the model was
	// not listed there.
	Loaded *Loaded `json:"loaded,omitempty"`
	// Trials counts the trials measured: those that ran (infrastructure
	// errors left out), truncated or not.
	Trials int `json:"trials,omitempty"`
	// PromptTokensPerSecond and EvalTokensPerSecond are Ollama's counts
	// over its durations (prompt_eval_count / prompt_eval_duration, and
	// eval_count / eval_duration), summed over every round of the trials
	// measured. A cached prompt prefix makes the prompt rate higher than a
	// cold prompt's.
	PromptTokensPerSecond float64 `json:"prompt_tokens_per_second,omitempty"`
	EvalTokensPerSecond   float64 `json:"eval_tokens_per_second,omitempty"`
	// P50 and P95 are the median and 95th percentile of a trial's wall
	// time (the whole conversation, tool calls included).
	P50 time.Duration `json:"p50_ns,omitempty"`
	P95 time.Duration `json:"p95_ns,omitempty"`
	// Truncated counts the trials measured whose prompt reached num_ctx.
	Truncated int `json:"truncated,omitempty"`
}

// Loaded is what Ollama's /api/ps lists for a loaded model.
type Loaded struct {
	// Size is the memory the loaded model takes, in bytes: weights, the
	// context's KV cache and the compute buffers, more than its file.
	Size int64 `json:"size"`
	// SizeVRAM is the part of Size in GPU memory; 0 on a CPU.
	SizeVRAM int64 `json:"size_vram"`
	// ContextLength is the context the model was loaded with.
	ContextLength int `json:"context_length,omitempty"`
}

// TruncatedShare is the share of the trials measured whose prompt was
// truncated; 0 when none were measured.
func (c *Cost) TruncatedShare() float64 {
	if c == nil || c.Trials == 0 {
		return 0
	}
	return float64(c.Truncated) / float64(c.Trials)
}

// withTrials is c with the measures of the trials of m, keeping what c
// knows of the loaded model.
func (c *Cost) withTrials(m *Cost) *Cost {
	out := &Cost{}
	if m != nil {
		*out = *m
	}
	if c != nil && out.Loaded == nil {
		out.Loaded = c.Loaded
	}
	return out
}

// WithMeasures returns m with the measures of its trials: at the model's
// level and, for each host of m.Hosts, that host's (by its name in
// perHost). What /api/ps reported is kept.
func (m Model) WithMeasures(all *Cost, perHost map[string]*Cost) Model {
	m.Cost = m.Cost.withTrials(all)
	hosts := make([]ModelHost, len(m.Hosts))
	copy(hosts, m.Hosts)
	for i := range hosts {
		if h := perHost[hosts[i].Host]; h != nil {
			hosts[i].Cost = hosts[i].Cost.withTrials(h)
		}
	}
	if m.Hosts != nil {
		m.Hosts = hosts
	}
	return m
}

// Updated is m described again (a resume checks each model anew): now's
// fields, with what was measured of m before (its load time and cost, and
// its hosts') kept where now has not measured it yet, so a session that
// stops before loading a model does not lose what an earlier one measured.
func (m Model) Updated(now Model) Model {
	if now.Load == 0 {
		now.Load = m.Load
	}
	if now.Cost == nil {
		now.Cost = m.Cost
	}
	if now.Hosts == nil {
		now.Hosts = m.Hosts
		return now
	}
	hosts := make([]ModelHost, len(now.Hosts))
	copy(hosts, now.Hosts)
	for i := range hosts {
		for _, old := range m.Hosts {
			if old.Host != hosts[i].Host {
				continue
			}
			if hosts[i].Load == 0 {
				hosts[i].Load = old.Load
			}
			if hosts[i].Cost == nil {
				hosts[i].Cost = old.Cost
			}
		}
	}
	now.Hosts = hosts
	return now
}
