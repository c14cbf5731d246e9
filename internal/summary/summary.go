// Package summary is the model of a run's results: every number its reports
// show, per model and variant, accumulated from the trials by a Summarizer,
// and summary.json, which is a Summary written as JSON. The rates are the
// metric table's (package metric), judged once per trial by record.JudgeWith;
// rendering is package report's, checking gates package gate's.
package summary

import (
	"github.com/toolgrade/toolgrade/internal/curve"
	"github.com/toolgrade/toolgrade/internal/metric"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/stats"
	"slices"
)

// Summary is every number a run's reports show, per model and variant;
// summary.json is this value.
type Summary struct {
	// Format is the version of summary.json (record.Format).
	Format   string         `json:"format"`
	Suite    string         `json:"suite,omitempty"`
	Models   []ModelSummary `json:"models"`
	Warnings []string       `json:"warnings,omitempty"`
	// ServerRestarts counts, per server name, the restarts of servers that
	// crashed during the run (from run.json); servers never restarted are
	// left out.
	ServerRestarts map[string]int `json:"server_restarts,omitempty"`
	// StopEarly is run.json's early-stopping rule and the trials it saved;
	// nil when the run ran every repeat.
	StopEarly *record.RunStopEarly `json:"stop_early,omitempty"`
	// RescoredFrom is the run whose transcripts this one judged again
	// (`toolgrade rescore`); empty for a run that ran.
	RescoredFrom string `json:"rescored_from,omitempty"`
	// SkippedServers are run.json's servers that failed to connect, so
	// that the model was never offered their tools: why, and the cases
	// that needed them, whose trials are infrastructure errors. A run
	// recorded before the why was kept has the names alone.
	SkippedServers []record.RunSkippedServer `json:"skipped_servers,omitempty"`
	// SweepGrid is the grid points of a sweep run (run.json's catalogs that
	// carry sweep), which gates such as selection@60 name; Sweep the
	// curves through them, per model and axis (see package curve). Both
	// nil for a run that swept nothing.
	SweepGrid []curve.Point `json:"sweep_grid,omitempty"`
	Sweep     []curve.Curve `json:"sweep,omitempty"`

	// curves is the Summarizer's per-point tallies, which WithRun turns
	// into Sweep once it has run.json's grid; nil for a summary read back.
	curves *curve.Stats
}

// WithRun sets what the summary reports from run.json (server restarts,
// skipped servers, early stopping, rescoring) and returns s.
func (s *Summary) WithRun(run *record.Run) *Summary {
	s.WithRestarts(run.Servers)
	s.StopEarly = run.StopEarly
	if se := run.StopEarly; se != nil {
		rule := stats.SPRT{Threshold: se.Threshold, Delta: se.Delta, Alpha: se.Alpha, Beta: se.Beta}
		for i := range s.Models {
			for j := range s.Models[i].Cases {
				c := &s.Models[i].Cases[j]
				if c.Pass.N < run.Repeat && rule.Decide(c.Pass.K, c.Pass.N) != stats.Undecided {
					lo, hi := c.Pass.ClopperPearson(stats.StoppedLevel)
					c.Stopped = &StoppedInterval{Level: stats.StoppedLevel, Lo: lo, Hi: hi}
				}
			}
		}
	}
	if run.Rescored != nil {
		s.RescoredFrom = run.Rescored.From
	}
	s.SkippedServers = Skipped(run)
	if run.CostConfounded() && len(s.Models) > 1 && !slices.Contains(s.Warnings, record.ConfoundedNote) {
		s.Warnings = append(s.Warnings, record.ConfoundedNote)
	}
	if s.SweepGrid = curve.Grid(run.Catalogs); s.SweepGrid != nil && s.curves != nil {
		s.Sweep = curve.Build(run, s.curves)
	}
	return s
}

// Skipped is run.json's skipped servers, or for a run recorded before they
// were kept, its failed servers by name alone.
func Skipped(run *record.Run) []record.RunSkippedServer {
	if run.SkippedServers != nil {
		return run.SkippedServers
	}
	var out []record.RunSkippedServer
	for _, name := range run.FailedServers {
		out = append(out, record.RunSkippedServer{Name: name})
	}
	return out
}

// WithRestarts sets ServerRestarts from run.json's servers and returns s.
func (s *Summary) WithRestarts(servers []record.RunServer) *Summary {
	for _, srv := range servers {
		if srv.Restarts > 0 {
			if s.ServerRestarts == nil {
				s.ServerRestarts = map[string]int{}
			}
			s.ServerRestarts[srv.Name] += srv.Restarts
		}
	}
	return s
}

// ModelSummary is the results of one model with one variant of the tool
// descriptions.
type ModelSummary struct {
	Model string `json:"model"`
	// Variant is the tool-description variant; "" (omitted) is the servers'
	// own descriptions, shown as "base".
	Variant string `json:"variant,omitempty"`
	// Trials counts every trial; Scored leaves out infrastructure errors
	// and the trials excluded as truncated (Excluded), which no rate
	// counts.
	Trials int `json:"trials"`
	Scored int `json:"scored"`
	Infra  int `json:"infra_errors"`
	// NotRun counts the infrastructure errors that never ran: their case
	// expects a tool of a server that failed to connect
	// (record.FailureServerSkipped), so no retry was tried.
	NotRun int `json:"not_run,omitempty"`
	// Excluded counts the trials whose prompt reached num_ctx, kept out
	// of every rate (the model may never have seen its tools); 0 with
	// --keep-truncated, which counts them like any other.
	Excluded int `json:"truncated_excluded,omitempty"`
	// Outcomes counts the outcomes of the scored trials and the
	// infra_error ones; excluded trials are counted in Excluded alone.
	Outcomes map[string]int `json:"outcomes"`

	// The rates, one per rate of the metric table, each under its name
	// (see Rate); their JSON form is stats.Rate's (k, n, value, lo, hi).
	Pass        stats.Rate `json:"pass"`
	Selection   stats.Rate `json:"tool_selection"`
	ArgValidity stats.Rate `json:"arg_validity"`
	// ArgValidityShown is validity against the schema the model was shown:
	// calls that broke only constraints it was not shown count as valid.
	ArgValidityShown stats.Rate `json:"arg_validity_shown"`
	// ArgValidityCoerced is validity once arguments are coerced as a
	// lenient client would ("5" → 5, "true" → true): the calls valid as
	// sent and those valid if coerced.
	ArgValidityCoerced stats.Rate `json:"arg_validity_coerced"`
	ArgAccuracy        stats.Rate `json:"arg_accuracy"`
	Irrelevance        stats.Rate `json:"irrelevance"`
	RoundLimit         stats.Rate `json:"round_limit"`
	// FailedCall is the share of scored trials in which the model was
	// given an error for a call (lower is better); FailedCallPasses lists
	// the passes among them.
	FailedCall stats.Rate `json:"failed_call"`
	// State is the end-state rate: trials of scenarios with state checks
	// whose checks all passed; absent when no trial had checks.
	State stats.Rate `json:"state,omitzero"`
	// Judged is the judged-answer rate: answers the judge model passed,
	// of the trials whose answer it judged; JudgeAgreement the judge's
	// self-agreement over the answers judged more than once. Both are
	// absent when no trial was judged.
	Judged         stats.Rate `json:"judged,omitzero"`
	JudgeAgreement stats.Rate `json:"judge_agreement,omitzero"`
	// JudgeModel is the judge model of the row's judged trials (the last
	// one's, were there several); JudgeErrors counts the trials whose
	// judge failed and JudgeStale those whose verdict was judged against
	// a rubric the suite has since changed: no rate counts either.
	JudgeModel  string `json:"judge_model,omitempty"`
	JudgeErrors int    `json:"judge_errors,omitempty"`
	JudgeStale  int    `json:"judge_stale,omitempty"`
	// RepeatedCalls counts the calls of the scored trials that repeated
	// an earlier call of their trial with the same arguments.
	RepeatedCalls int `json:"calls_repeated,omitempty"`

	RoundsMean float64     `json:"rounds_mean"`
	Rounds     map[int]int `json:"rounds"`

	TrialLatency Latency `json:"trial_latency"`
	RoundLatency Latency `json:"round_latency"`

	PromptTokens    int     `json:"prompt_tokens"`
	EvalTokens      int     `json:"eval_tokens"`
	TokensPerSecond float64 `json:"tokens_per_second"`
	// WarmupSeconds is the model's load time at warm-up, before any trial.
	WarmupSeconds float64 `json:"warmup_load_seconds"`
	// LoadSeconds is the load time Ollama reported inside trials (a model
	// reloaded mid-run shows here), summed; trial latencies include it.
	LoadSeconds float64 `json:"load_seconds"`
	// Truncated counts the trials with a prompt that reached num_ctx,
	// excluded (Excluded) or kept.
	Truncated int `json:"truncated_prompts"`

	// Evidence is what the pass rate rests on: its cases (the unit of
	// evidence, a case's repeats being one cluster of every rate), its
	// scored trials, and the cases that ran more than once and of them
	// those whose repeats all passed or all failed. Reports say it as
	// "11 cases (110 trials, repeats agree on 11 of 11 cases)".
	Evidence stats.Evidence `json:"evidence"`

	// Repeat-based figures, when cases ran more than once.
	K        int      `json:"k,omitempty"`
	PassAtK  *float64 `json:"pass_at_k,omitempty"`
	PassHatK *float64 `json:"pass_hat_k,omitempty"`
	Stable   int      `json:"stable_pass_cases"`
	Failing  int      `json:"stable_fail_cases"`
	Flaky    []string `json:"flaky_cases,omitempty"`

	Failures []FailureGroup `json:"failures,omitempty"`
	// JudgeFailures are the answers the judge model failed against their
	// rubric (Outcome JudgedFail), the first few with the judge's reason;
	// nil when it failed none. Their outcomes are the scorer's, often
	// pass: these are no outcome's failures.
	JudgeFailures *FailureGroup `json:"judge_failures,omitempty"`
	// FailedCallPasses are the trials that passed although the model was
	// given an error for one of their calls (Outcome FailedCallPass), the
	// first few with the call's error and the answer; nil when none did.
	// Their answer rests on something other than that call's result.
	FailedCallPasses *FailureGroup `json:"failed_call_passes,omitempty"`

	// Cases are the results case by case, sorted by id.
	Cases []CaseResult `json:"cases"`
	// Tags are the results of the cases of each tag, sorted by tag; nil
	// when no trial had tags.
	Tags []TagResult `json:"tags,omitempty"`
	// BFCL is the leaderboard's figures for the cases tagged
	// bfcl_category:CATEGORY (toolgrade import bfcl); nil when none.
	BFCL *BFCLSummary `json:"bfcl,omitempty"`
}

// CaseResult is one case's trials: k passing of n scored (infrastructure
// errors counted apart), and every outcome.
type CaseResult struct {
	ID    string     `json:"id"`
	Pass  stats.Rate `json:"pass"`
	Infra int        `json:"infra_errors,omitempty"`
	// Truncated counts the trials excluded because a prompt reached
	// num_ctx.
	Truncated int            `json:"truncated_excluded,omitempty"`
	Outcomes  map[string]int `json:"outcomes"`
	// Stopped is set when --stop-early stopped the case before its last
	// repeat: Pass's Wilson interval then undercovers (the case stopped
	// because its run looked extreme), and Stopped holds the exact interval
	// that covers under the stopping rule. Nil for a case that ran every
	// repeat.
	Stopped *StoppedInterval `json:"stopped_early,omitempty"`
	// Judged is the judged rate of the case's answers (the answers the
	// judge passed against the case's rubric); nil when none was judged.
	Judged *stats.Rate `json:"judged,omitempty"`
}

// StoppedInterval is the interval stated for a case that stopped early: the
// Clopper-Pearson interval at Level (stats.StoppedLevel), which covers the
// true pass rate at least 95% of the time under the SPRT rule (checked by
// simulation in internal/stats).
type StoppedInterval struct {
	Level float64 `json:"level"`
	Lo    float64 `json:"lo"`
	Hi    float64 `json:"hi"`
}

// TagResult is the trials of the cases that carry one tag.
type TagResult struct {
	Tag string `json:"tag"`
	// Cases counts the cases with the tag.
	Cases int        `json:"cases"`
	Pass  stats.Rate `json:"pass"`
	Infra int        `json:"infra_errors,omitempty"`
	// Truncated counts the trials excluded because a prompt reached
	// num_ctx.
	Truncated int            `json:"truncated_excluded,omitempty"`
	Outcomes  map[string]int `json:"outcomes"`
}

// Label is the row's name in reports: the model, followed by its variant in
// parentheses when the run has variants ("base" for the servers' own).
func (m *ModelSummary) Label(variants bool) string {
	if !variants {
		return m.Model
	}
	v := m.Variant
	if v == "" {
		v = "base"
	}
	return m.Model + " (" + v + ")"
}

// HasVariants reports whether any row ran a variant other than the base.
func (s *Summary) HasVariants() bool {
	for i := range s.Models {
		if s.Models[i].Variant != "" {
			return true
		}
	}
	return false
}

func newRate(k, n int) stats.Rate { return stats.Rate{K: k, N: n} }

// Rate is the row's rate of metric n; the zero Rate when n names no rate of
// the table.
func (m *ModelSummary) Rate(n metric.Name) stats.Rate {
	if r := m.rate(n); r != nil {
		return *r
	}
	return stats.Rate{}
}

// rate is the field that holds the rate of metric n under n's name in
// summary.json; nil when n names no rate. It is the one place a metric of
// the table meets its field.
func (m *ModelSummary) rate(n metric.Name) *stats.Rate {
	switch n {
	case metric.Pass:
		return &m.Pass
	case metric.ToolSelection:
		return &m.Selection
	case metric.ArgValidity:
		return &m.ArgValidity
	case metric.ArgValidityShown:
		return &m.ArgValidityShown
	case metric.ArgValidityCoerced:
		return &m.ArgValidityCoerced
	case metric.ArgAccuracy:
		return &m.ArgAccuracy
	case metric.Irrelevance:
		return &m.Irrelevance
	case metric.RoundLimit:
		return &m.RoundLimit
	case metric.FailedCall:
		return &m.FailedCall
	case metric.State:
		return &m.State
	case metric.Judged:
		return &m.Judged
	case metric.JudgeAgreement:
		return &m.JudgeAgreement
	}
	return nil
}

// Seconds is the row's latency n (p50 or p95 of a scored trial's wall
// time), in seconds; 0 when n names no latency.
func (m *ModelSummary) Seconds(n metric.Name) float64 {
	switch n {
	case metric.P50:
		return m.TrialLatency.P50
	case metric.P95:
		return m.TrialLatency.P95
	}
	return 0
}

// Latency is a distribution's median and 95th percentile, in seconds.
type Latency struct {
	P50 float64 `json:"p50_s"`
	P95 float64 `json:"p95_s"`
}

// FailureGroup is the failing trials of one outcome: how many, and the first
// few by case and repeat.
type FailureGroup struct {
	Outcome  string    `json:"outcome"`
	Count    int       `json:"count"`
	Examples []Example `json:"examples"`
}

// FailedCallPass names the group of passes with a failed call
// (FailedCallPasses).
const FailedCallPass = "pass with a failed call"

// JudgedFail names the group of answers the judge failed (JudgeFailures).
const JudgedFail = "judged: fail"

// Example is one failing trial, as the report shows it.
type Example struct {
	Case   string `json:"case"`
	Repeat int    `json:"repeat"`
	Detail string `json:"detail,omitempty"`
	// Turn is the turn of a scenario the failure is about, from 1 (its
	// Detail begins "turn N: "); 0 for the whole case.
	Turn int `json:"turn,omitempty"`
}
