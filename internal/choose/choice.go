// Package choose answers "which model should I run?" from one run of
// several models: every model's quality rates with their intervals beside
// what it cost on the machine that ran it, the Pareto frontier (no other
// model is at least as good and at least as cheap), and one recommendation
// stated with its test: the cheapest model of the frontier shown not worse
// than the reference (by default the best) by more than a margin (see
// compare.NonInferiority), or, when the data cannot decide, how many paired
// trials would. With more than one cheaper model on the frontier, they are
// judged from the costliest to the cheapest, stopping at the first not shown
// not worse (see Choice.Tested).
package choose

import (
	"github.com/toolgrade/toolgrade/internal/compare"
	"github.com/toolgrade/toolgrade/internal/metric"
	"github.com/toolgrade/toolgrade/internal/stats"
)

// Format is the version of choose's JSON.
const Format = "1"

// DefaultMargin is the margin a candidate is judged at when none is given:
// five percentage points.
const DefaultMargin = 0.05

// Choice is the whole answer: the table, the frontier and the
// recommendation.
type Choice struct {
	Format string `json:"format"`
	// Dir is the run directory; Suite the suite it ran.
	Dir   string `json:"dir"`
	Suite string `json:"suite,omitempty"`
	// Metric is the rate the recommendation judges (pass), Margin the
	// margin it is judged at (0.05 for 5 points) and Level the confidence
	// level of its interval.
	Metric metric.Name `json:"metric"`
	Margin float64     `json:"margin"`
	Level  float64     `json:"level"`
	// Variant is the catalog whose trials are compared ("" is the servers'
	// own, shown as base); the run's other variants are left out.
	Variant string `json:"variant,omitempty"`
	// Reference is the model the others are judged against: the one given,
	// or the best on Metric (the most expensive of those tied).
	Reference      string `json:"reference"`
	ReferenceGiven bool   `json:"reference_given,omitempty"`
	// Tested are the models judged against the reference for the
	// recommendation, in order: the frontier's models cheaper than the
	// reference, from the costliest to the cheapest, until the first not
	// shown not worse (a fixed-sequence procedure: each judged at the full
	// level, the chance of any wrong "not worse" that of one test).
	Tested []string `json:"tested,omitempty"`
	// Candidate is the model the recommendation states: the cheapest of
	// Tested shown not worse, else the one the walk stopped at; "" when
	// nothing is cheaper than the reference.
	Candidate string `json:"candidate,omitempty"`
	// CostBy says what "cheaper" orders by: "memory" (the loaded size
	// /api/ps listed) when every model has it, else "p50" (a trial's
	// median wall time).
	CostBy string `json:"cost_by"`
	// Models are the run's models, in run order.
	Models         []Row          `json:"models"`
	Recommendation Recommendation `json:"recommendation"`
	// Warnings are what the reader should know (a run with variants, a
	// model without trials, an older run without memory).
	Warnings []string `json:"warnings,omitempty"`
}

// Row is one model: its quality, its cost, where it stands.
type Row struct {
	Model         string `json:"model"`
	ParameterSize string `json:"parameter_size,omitempty"`
	Quantization  string `json:"quantization,omitempty"`
	// Trials counts the model's trials of the variant; Scored those every
	// rate counts (no infrastructure error, no truncated prompt kept out).
	Trials int `json:"trials"`
	Scored int `json:"scored"`
	// Rates are the rates of the metric table's columns, in its order.
	Rates []Rate `json:"rates"`
	Cost  Cost   `json:"cost"`
	// Frontier is true when no other model is at least as good on Metric
	// and at least as cheap on every cost both have (p50, memory), and
	// better or cheaper on one; DominatedBy names such a model otherwise.
	Frontier    bool   `json:"frontier"`
	DominatedBy string `json:"dominated_by,omitempty"`
	Reference   bool   `json:"reference,omitempty"`
	Candidate   bool   `json:"candidate,omitempty"`
	// Versus is the model judged against the reference on Metric; nil for
	// the reference.
	Versus *Versus `json:"versus,omitempty"`
}

// Rate is one rate of a row.
type Rate struct {
	Metric        metric.Name `json:"metric"`
	Label         string      `json:"label"`
	LowerIsBetter bool        `json:"lower_is_better,omitempty"`
	Rate          stats.Rate  `json:"rate"`
}

// Cost is what a model cost, measured on the trials compared and, for its
// memory, as /api/ps listed it once loaded (run.json).
type Cost struct {
	// P50 and P95 are a trial's wall time, in seconds.
	P50 float64 `json:"p50_s"`
	P95 float64 `json:"p95_s"`
	// PromptTokensPerSecond and EvalTokensPerSecond are Ollama's counts
	// over its durations.
	PromptTokensPerSecond float64 `json:"prompt_tokens_per_second"`
	EvalTokensPerSecond   float64 `json:"eval_tokens_per_second"`
	// Size is the memory the loaded model took, SizeVRAM the part on the
	// GPU, in bytes; Size 0: unknown (a run recorded before toolgrade
	// measured it).
	Size     int64 `json:"size_bytes,omitempty"`
	SizeVRAM int64 `json:"size_vram_bytes,omitempty"`
	// LoadSeconds is the warm-up's load time.
	LoadSeconds float64 `json:"load_s,omitempty"`
	// TruncatedShare is the share of the trials measured whose prompt
	// reached num_ctx.
	TruncatedShare float64 `json:"truncated_share"`
}

// Versus is a model judged against the reference on the choice's metric,
// over their paired trials (same case and repeat): compare's judgement at
// the margin, the model being the current side, and the difference test
// beside it.
type Versus struct {
	compare.NonInferiority
	// Test and P are the difference test's verdict (McNemar: better,
	// worse or ~) and its p-value, a question apart.
	Test string  `json:"test"`
	P    float64 `json:"p"`
}

// Kinds of recommendation.
const (
	// KindCandidate: the candidate is not worse than the reference by more
	// than the margin, and cheaper: run it.
	KindCandidate = "candidate"
	// KindReference: keep the reference, because the candidate is worse
	// by more than the margin, or nothing cheaper is on the frontier.
	KindReference = "reference"
	// KindUndecided: the data cannot tell; Pairs says how many would.
	KindUndecided = "undecided"
	// KindOnly: the run has one model.
	KindOnly = "only"
)

// Recommendation is the one model recommended, and why.
type Recommendation struct {
	// Model is the model to run; "" when undecided.
	Model string `json:"model,omitempty"`
	Kind  string `json:"kind"`
	// Text is the recommendation in one sentence, with its test and cost.
	Text string `json:"text"`
	// CasesNeeded and MoreCases are, when undecided, the cases that would
	// decide (a case is the unit of evidence) and how many more than the
	// run has; PairsNeeded and MorePairs the paired trials those cases
	// make at the run's repeats. 0 when no number would.
	CasesNeeded int `json:"cases_needed,omitempty"`
	MoreCases   int `json:"more_cases,omitempty"`
	PairsNeeded int `json:"pairs_needed,omitempty"`
	MorePairs   int `json:"more_pairs,omitempty"`
}

// Row returns the row of model; nil when the choice has none.
func (c *Choice) Row(model string) *Row {
	for i := range c.Models {
		if c.Models[i].Model == model {
			return &c.Models[i]
		}
	}
	return nil
}

// Rate returns the row's rate of name; the zero Rate when it has none.
func (r *Row) Rate(name metric.Name) stats.Rate {
	for _, x := range r.Rates {
		if x.Metric == name {
			return x.Rate
		}
	}
	return stats.Rate{}
}
