// Package compare pairs the trials of two sides (two runs, two models of one
// run, or two variants of one run) by case and repeat and judges every rate,
// latency and cost difference, in benchstat's manner: a verdict only when a
// paired test supports it. The result is plain data: reports render it, gates
// read its counts, and it never holds a transcript.
package compare

import (
	"github.com/toolgrade/toolgrade/internal/metric"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/stats"
)

// Format names the JSON schema of a Comparison; its number changes only
// when a field changes meaning or goes away.
const Format = "toolgrade.compare/1"

// DefaultAlpha is the significance level when Options.Alpha is zero.
const DefaultAlpha = 0.05

// Modes of a comparison.
const (
	ModeRuns     = "runs"     // two run directories
	ModeModels   = "models"   // two models of one run, same variant, case and repeat
	ModeVariants = "variants" // two variants of one run, same model, case and repeat
)

// Verdicts of a row, as benchstat prints them.
const (
	Better = "better"
	Worse  = "worse"
	Same   = "~" // no detectable difference at Alpha
)

// Options tune a comparison.
type Options struct {
	// Alpha is the significance level of every test; 0 means DefaultAlpha.
	Alpha float64
	// KeepTruncated pairs the trials whose prompt reached num_ctx like any
	// other (--keep-truncated), whatever the runs recorded; false judges as
	// the runs recorded (record.JudgeOptionsOf: kept only when every run
	// compared kept them), and leaves every pair with such a trial out,
	// counted in Group.Truncated.
	KeepTruncated bool
	// Margin, above 0, judges every rate's non-inferiority at that margin
	// (0.05 for 5 points): is the current side not worse than the base by
	// more than it? See RateRow.NonInferiority. 0 takes the margin the
	// suite set (run.json's; the current run's in ModeRuns), if any.
	Margin float64
	// Current, when set, is given the trials of the current side's run as
	// the comparison reads them (of the current run in ModeRuns, else of
	// the one run, every model and variant), so that a caller that needs
	// the run for more (the summary compare's gates judge) reads it once.
	// Nil gives nothing.
	Current Sink
}

// Sink takes a run's trials as a comparison reads them: Add gets each
// trial key's last line, slim, in file order, with the judgements the
// comparison made of it (record.JudgeWith, with the options of the runs
// compared and KeepTruncated), so that a trial is judged once; Reset is
// called when the read starts over (record.ReadLastSlim), to forget what
// Add was given. Add may not keep the trial past the call: the read
// reuses its memory.
type Sink interface {
	Reset()
	Add(*record.Trial, record.Judgements)
}

// sink is Current, nil for nil options.
func (o *Options) sink() Sink {
	if o == nil {
		return nil
	}
	return o.Current
}

// judge is the options the trials of runs are judged with.
func (o *Options) judge(runs ...*record.Run) record.JudgeOptions {
	j := record.JudgeOptionsOf(runs...)
	if o != nil && o.KeepTruncated {
		j.KeepTruncated = true
	}
	return j
}

func (o *Options) alpha() float64 {
	if o == nil || o.Alpha == 0 {
		return DefaultAlpha
	}
	return o.Alpha
}

// Comparison is the whole result of one comparison.
type Comparison struct {
	Format string  `json:"format"`
	Mode   string  `json:"mode"`
	Alpha  float64 `json:"alpha"`
	// Margin is the non-inferiority margin the rates were judged at; 0
	// (absent) when none was asked.
	Margin float64 `json:"margin,omitempty"`
	// Base and Current name the two sides: run directories, models or
	// variants ("base" for the servers' own catalog).
	Base    string `json:"base"`
	Current string `json:"current"`
	// Dirs are the run directories: base and current in ModeRuns, the one
	// run otherwise.
	Dirs []string `json:"dirs"`
	// Drift lists every setting that differs between the sides; Catalog
	// the differences of the tool catalogs, tool by tool.
	Drift   []Drift         `json:"drift"`
	Catalog []CatalogChange `json:"catalog_changes"`
	// ChangedCases are the case ids whose question or expectation changed
	// between the runs: their trials are not paired.
	ChangedCases []string `json:"changed_cases"`
	// Groups are the comparisons, one per model × variant that both sides
	// have (ModeRuns), per variant (ModeModels) or per model (ModeVariants).
	Groups []Group `json:"groups"`
	// Warnings are things the reader should know (too few pairs, a side
	// missing a model).
	Warnings []string `json:"warnings,omitempty"`
}

// Drift is one setting that differs between the sides.
type Drift struct {
	Field   string `json:"field"`
	Base    string `json:"base"`
	Current string `json:"current"`
}

// CatalogChange is one difference between the tool catalogs two sides sent.
type CatalogChange struct {
	// Variant is the variant whose catalogs differ ("base" for the
	// servers' own); in ModeVariants, "a→b".
	Variant string `json:"variant"`
	// Tool is the tool's name; empty for the system prompt.
	Tool string `json:"tool,omitempty"`
	// Param is the parameter, for parameter changes.
	Param string `json:"param,omitempty"`
	// Change is one of: tool added, tool removed, description, parameter
	// added, parameter removed, parameter description, parameter schema,
	// required, schema, system prompt, catalog added, catalog removed.
	Change  string `json:"change"`
	Base    string `json:"base,omitempty"`
	Current string `json:"current,omitempty"`
}

// Group is the comparison of the trials that share a model and a variant
// (the fields the mode holds fixed).
type Group struct {
	// Model and Variant say what the group holds fixed: both in ModeRuns,
	// Variant in ModeModels, Model in ModeVariants ("" is a field the mode
	// varies, or the base variant).
	Model   string `json:"model,omitempty"`
	Variant string `json:"variant,omitempty"`
	// Pairs counts the trial pairs; Scored those with no infra_error and
	// no trial excluded as truncated on either side, which every rate,
	// latency and cost figure is made of.
	Pairs  int `json:"pairs"`
	Scored int `json:"scored_pairs"`
	// Infra counts the infra_error trials among the pairs, per side.
	Infra SidePair[int] `json:"infra_errors"`
	// Truncated counts, per side, the trials among the pairs excluded
	// because a prompt reached num_ctx (none with KeepTruncated).
	Truncated SidePair[int] `json:"truncated_excluded"`
	// Unpaired are the trials present on one side only, by case.
	Unpaired      []Unpaired    `json:"unpaired"`
	UnpairedCount SidePair[int] `json:"unpaired_count"`
	// ChangedTrials counts the trials left out because their case changed.
	ChangedTrials SidePair[int] `json:"changed_trials"`

	Rates   []RateRow      `json:"rates"`
	Latency []LatencyRow   `json:"latency"`
	Cost    SidePair[Cost] `json:"cost"`

	// Cases are the regressed and fixed cases, regressions first.
	Cases []CaseChange `json:"cases"`
	// Evidence is what the pass rate's pairs rest on: "11 cases (110
	// trials, repeats agree on 11 of 11 cases)".
	Evidence stats.Evidence `json:"evidence"`
	// Regressions and Fixes count Cases by kind; SupportedRegressions
	// counts the regressions whose own paired test (McNemar over the
	// case's repeats) has p < Alpha: with one repeat, none can be.
	Regressions          int `json:"regressions"`
	SupportedRegressions int `json:"supported_regressions"`
	Fixes                int `json:"fixes"`
}

// SidePair is one figure on both sides.
type SidePair[T any] struct {
	Base    T `json:"base"`
	Current T `json:"current"`
}

// RateRow is one rate on both sides and the paired test of its change. A
// group has one per rate the metric table marks Paired, in its order.
type RateRow struct {
	// Metric is the rate's name, as summary.json spells it.
	Metric metric.Name `json:"metric"`
	// LowerIsBetter is the table's: true for round_limit.
	LowerIsBetter bool                 `json:"lower_is_better,omitempty"`
	Rate          SidePair[stats.Rate] `json:"rate"`
	// Delta is Current's value minus Base's.
	Delta float64 `json:"delta"`
	// Worse and Better count the discordant pairs (the metric defined on
	// both sides, met on one only) that moved each way.
	Worse  int `json:"worse_pairs"`
	Better int `json:"better_pairs"`
	// Evidence is what the pairs on which the rate is defined on both
	// sides rest on: their cases, the pairs, and the cases whose repeats
	// all came out the same pair of verdicts. Deff is the design effect of
	// the paired difference over the cases (1 with one repeat a case): the
	// tests count the pairs as Deff times fewer independent ones.
	Evidence stats.Evidence `json:"evidence"`
	Deff     float64        `json:"deff,omitempty"`
	// P is McNemar's p-value of the discordant pairs: exact over
	// independent pairs, and over clustered pairs the same test on their
	// effective counts (the clustered McNemar test, stats.McNemarCounts).
	P       float64 `json:"p"`
	Verdict string  `json:"verdict"`
	// TooFew is true when there are so few discordant pairs that even
	// all of them one way could not reach Alpha: no verdict is possible.
	TooFew bool `json:"too_few,omitempty"`
	// ByCall is the rate counted call by call over the same pairs, as the
	// summary and run's table count the validity rates, when that reads
	// differently from Rate, which judges each trial as a whole (valid when
	// all its calls were) so that trials can be paired. Nil otherwise.
	ByCall *SidePair[stats.Rate] `json:"by_call,omitempty"`
	// NonInferiority is the rate judged at the comparison's margin, beside
	// the McNemar verdict; nil when no margin was asked or no pair defines
	// the rate on both sides.
	NonInferiority *NonInferiority `json:"noninferiority,omitempty"`

	// pairs are the pairs defined on both sides, case by case (see
	// PairedCounts), and components their variance components.
	pairs      stats.PairedCounts
	components stats.Components
}

// LatencyRow is one latency distribution on both sides, judged with a
// Mann-Whitney U test (lower is better).
type LatencyRow struct {
	// Name is "trial" (a conversation's wall time) or "round" (one
	// /api/chat request's).
	Name string `json:"name"`
	// Dist is the trials' (or rounds') latencies on each side.
	Dist SidePair[Dist] `json:"dist"`
	// Cases is how many latencies the test compares on each side: one a
	// case, its median over its repeats (copies left out), since a
	// case's repeats are one cluster. P and Verdict are the Mann-Whitney
	// U test over them (unpaired: a case's latency is compared with the
	// other side's distribution of cases, not with its own pair).
	Cases SidePair[int] `json:"cases"`
	// Delta is the relative change of the median, Current/Base − 1.
	Delta   float64 `json:"delta"`
	P       float64 `json:"p"`
	Verdict string  `json:"verdict"`
	TooFew  bool    `json:"too_few,omitempty"`
}

// Dist is a latency distribution, in seconds.
type Dist struct {
	N   int     `json:"n"`
	P50 float64 `json:"p50_s"`
	P95 float64 `json:"p95_s"`
}

// Cost is what one side spent over the scored pairs.
type Cost struct {
	PromptTokens int `json:"prompt_tokens"`
	EvalTokens   int `json:"eval_tokens"`
	// EvalPerTrial is the mean of eval tokens per trial.
	EvalPerTrial    float64 `json:"eval_tokens_per_trial"`
	TokensPerSecond float64 `json:"tokens_per_second"`
	// LoadSeconds is the load time Ollama reported inside trials, summed.
	LoadSeconds float64 `json:"load_seconds"`
	// Model is the side's model as run.json describes it, when the side
	// has one model.
	Model *ModelInfo `json:"model,omitempty"`
}

// ModelInfo is what run.json says of a model.
type ModelInfo struct {
	Name          string `json:"name"`
	Digest        string `json:"digest,omitempty"`
	ParameterSize string `json:"parameter_size,omitempty"`
	Quantization  string `json:"quantization,omitempty"`
	// WarmupSeconds is the load time of the warm-up request.
	WarmupSeconds float64 `json:"warmup_load_seconds"`
}

// Regression and fix kinds of CaseChange.
const (
	KindRegression = "regression"
	KindFix        = "fix"
)

// CaseChange is one case that regressed (passed in more of its paired
// repeats on Base than on Current) or was fixed (the other way).
type CaseChange struct {
	Case string `json:"case"`
	Kind string `json:"kind"`
	// Pass is k/n of the case's scored pairs on each side.
	Pass SidePair[stats.Rate] `json:"pass"`
	// Repeat, Outcome and Detail describe the first pair (lowest repeat)
	// that moved the case's way; Detail is Current's for a regression and
	// Base's for a fix: the failing side's.
	Repeat  int              `json:"repeat"`
	Outcome SidePair[string] `json:"outcome"`
	Detail  string           `json:"detail,omitempty"`
	// P is the McNemar p-value of the case's own discordant repeats;
	// Supported is P < Alpha.
	P         float64 `json:"p"`
	Supported bool    `json:"supported"`
}

// Unpaired is one case's trials present on one side only.
type Unpaired struct {
	// Side is "base" or "current": the side that has them.
	Side    string `json:"side"`
	Case    string `json:"case"`
	Repeats []int  `json:"repeats"`
}

// Rate returns the group's row of a metric, named as the table names it
// or by an alias (selection), or nil.
func (g *Group) Rate(name metric.Name) *RateRow {
	if m, ok := metric.Lookup(string(name)); ok {
		name = m.Name
	}
	for i := range g.Rates {
		if g.Rates[i].Metric == name {
			return &g.Rates[i]
		}
	}
	return nil
}

// Regressions sums the regressed cases over every group, and those whose
// own repeats support them (see Group.SupportedRegressions): what a gate
// such as --max-regressions counts.
func (c *Comparison) Regressions() (all, supported int) {
	for i := range c.Groups {
		all += c.Groups[i].Regressions
		supported += c.Groups[i].SupportedRegressions
	}
	return all, supported
}
