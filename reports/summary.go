package reports

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	"github.com/toolgrade/toolgrade/internal/curve"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/stats"
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
// early stopping, rescoring) and returns s.
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
	if s.SweepGrid = curve.Grid(run.Catalogs); s.SweepGrid != nil && s.curves != nil {
		s.Sweep = curve.Build(run, s.curves)
	}
	return s
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
	// Excluded counts the trials whose prompt reached num_ctx, kept out
	// of every rate (the model may never have seen its tools); 0 with
	// --keep-truncated, which counts them like any other.
	Excluded int `json:"truncated_excluded,omitempty"`
	// Outcomes counts the outcomes of the scored trials and the
	// infra_error ones; excluded trials are counted in Excluded alone.
	Outcomes map[string]int `json:"outcomes"`

	// The rates; their JSON form is stats.Rate's (k, n, value, lo, hi).
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

	// Repeat-based figures, when cases ran more than once.
	K        int      `json:"k,omitempty"`
	PassAtK  *float64 `json:"pass_at_k,omitempty"`
	PassHatK *float64 `json:"pass_hat_k,omitempty"`
	Stable   int      `json:"stable_pass_cases"`
	Failing  int      `json:"stable_fail_cases"`
	Flaky    []string `json:"flaky_cases,omitempty"`

	Failures []FailureGroup `json:"failures,omitempty"`

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

// Example is one failing trial, as the report shows it.
type Example struct {
	Case   string `json:"case"`
	Repeat int    `json:"repeat"`
	Detail string `json:"detail,omitempty"`
}

// maxExamples bounds how many failing trials of one outcome are kept, so a
// summary's memory does not grow with the number of trials.
const maxExamples = 5

// Summarizer accumulates trials into a Summary in memory that grows with the
// number of models, variants and cases, never with the number of trials.
type Summarizer struct {
	Suite string
	// Judge says which trials the rates count; the zero value excludes
	// those whose prompt reached num_ctx (--keep-truncated keeps them).
	Judge  record.JudgeOptions
	models map[rowKey]*modelAcc
	// order lists the models in run order; variants holds each model's
	// variants as they appear.
	order    []string
	variants map[string][]string
	warmup   map[string]float64
	drift    []string // record.Model.HostDrift of the run's models
	curves   *curve.Stats
}

// rowKey is one row of the summary.
type rowKey struct{ model, variant string }

// outcomeAcc tallies one case's or tag's trials.
type outcomeAcc struct {
	pass, scored, infra, truncated int
	outcomes                       map[string]int
}

func (a *outcomeAcc) add(outcome string, j *record.Judgements) {
	if a.outcomes == nil {
		a.outcomes = map[string]int{}
	}
	if j.Excluded {
		a.truncated++
		return
	}
	a.outcomes[outcome]++
	switch outcome {
	case record.OutcomeInfraError:
		a.infra++
	case record.OutcomePass:
		a.pass++
		a.scored++
	default:
		a.scored++
	}
}

type modelAcc struct {
	s                  ModelSummary
	pass, selK, selN   int
	argAccK, argAccN   int
	validK, validN     int
	validShownK        int
	validCoercedK      int
	irrK, irrN, limitK int
	rounds             stats.Counts
	trialLat, roundLat stats.Histogram
	evalDur            time.Duration
	cases              map[string]*stats.CaseCount
	examples           map[string][]Example
	byCase             map[string]*outcomeAcc
	byTag              map[string]*outcomeAcc
	tagCases           map[string]map[string]bool
	bfcl               map[string]*bfclAcc // by BFCL category; nil until one is seen
}

// NewSummarizer returns an empty Summarizer; models are the run's models in
// order, from run.json (models that only appear in trials are added as they
// appear). Rows are per model, then per variant: the base first, the others
// by name.
func NewSummarizer(suite string, models []record.Model) *Summarizer {
	s := &Summarizer{Suite: suite, models: map[rowKey]*modelAcc{}, variants: map[string][]string{}, warmup: map[string]float64{},
		curves: curve.NewStats()}
	for _, m := range models {
		// Hosts of a pool that ran one model on different builds make its
		// trials less comparable: say so in every report.
		s.drift = append(s.drift, m.HostDrift()...)
		s.warmup[m.Name] = m.Load.Seconds()
		s.row(m.Name, "")
	}
	return s
}

func (s *Summarizer) row(model, variant string) *modelAcc {
	k := rowKey{model, variant}
	if m, ok := s.models[k]; ok {
		return m
	}
	m := &modelAcc{
		s:        ModelSummary{Model: model, Variant: variant, Outcomes: map[string]int{}},
		cases:    map[string]*stats.CaseCount{},
		examples: map[string][]Example{},
		byCase:   map[string]*outcomeAcc{},
		byTag:    map[string]*outcomeAcc{},
		tagCases: map[string]map[string]bool{},
	}
	s.models[k] = m
	if _, ok := s.variants[model]; !ok {
		s.order = append(s.order, model)
	}
	s.variants[model] = append(s.variants[model], variant)
	return m
}

// Add counts one trial.
func (s *Summarizer) Add(t *record.Trial) {
	// The judgements are the record's, made once, so this report, compare
	// and the gates cannot count differently.
	j := record.JudgeWith(t, s.Judge)
	s.curves.AddJudged(t, j)
	m := s.row(t.Model, t.Variant)
	sc := t.Score
	m.s.Trials++
	m.addGroups(t, &j)
	if sc.Truncated && !j.Infra {
		m.s.Truncated++
	}
	if j.Excluded {
		m.s.Excluded++
		return
	}
	m.s.Outcomes[sc.Outcome]++
	if j.Infra {
		m.s.Infra++
		m.addExample(t)
		m.addBFCL(t, nil)
		return
	}
	m.s.Scored++
	if sc.Outcome == record.OutcomePass {
		m.pass++
	} else {
		m.addExample(t)
	}
	cc := m.cases[t.CaseID]
	if cc == nil {
		cc = &stats.CaseCount{}
		m.cases[t.CaseID] = cc
	}
	cc.N++
	if sc.Outcome == record.OutcomePass {
		cc.C++
	}
	m.addBFCL(t, &j)
	count := func(jd record.Judgement, k, n *int) {
		if jd.Defined {
			*n++
			if jd.OK {
				*k++
			}
		}
	}
	count(j.Selection, &m.selK, &m.selN)
	count(j.ArgAccuracy, &m.argAccK, &m.argAccN)
	count(j.Irrelevance, &m.irrK, &m.irrN)
	var limitN int
	count(j.RoundLimit, &m.limitK, &limitN)
	m.validN += j.KnownCalls
	m.validK += j.ValidCalls
	m.validShownK += j.ValidVisibleCalls
	m.validCoercedK += j.ValidCoercedCalls
	m.s.RepeatedCalls += j.RepeatedCalls
	m.rounds.Add(sc.Rounds)
	if tr := t.Transcript; tr != nil {
		m.trialLat.Add(tr.Wall.Seconds())
		for _, r := range tr.Rounds {
			m.roundLat.Add(r.Wall.Seconds())
			m.s.PromptTokens += r.Metrics.PromptEvalCount
			m.s.EvalTokens += r.Metrics.EvalCount
			m.evalDur += r.Metrics.EvalDuration
			m.s.LoadSeconds += r.Metrics.LoadDuration.Seconds()
		}
	}
}

// addGroups counts the trial in its case and in each of its tags.
func (m *modelAcc) addGroups(t *record.Trial, j *record.Judgements) {
	c := m.byCase[t.CaseID]
	if c == nil {
		c = &outcomeAcc{}
		m.byCase[t.CaseID] = c
	}
	c.add(t.Score.Outcome, j)
	for _, tag := range t.Tags {
		g := m.byTag[tag]
		if g == nil {
			g = &outcomeAcc{}
			m.byTag[tag] = g
			m.tagCases[tag] = map[string]bool{}
		}
		g.add(t.Score.Outcome, j)
		m.tagCases[tag][t.CaseID] = true
	}
}

// addExample keeps the failing trials that sort first by case and repeat, so
// the report does not depend on the order parallel trials finished in.
func (m *modelAcc) addExample(t *record.Trial) {
	ex := Example{Case: t.CaseID, Repeat: t.Repeat, Detail: t.Score.Detail}
	list := m.examples[t.Score.Outcome]
	i, _ := slices.BinarySearchFunc(list, ex, compareExample)
	if i >= maxExamples {
		return
	}
	list = slices.Insert(list, i, ex)
	if len(list) > maxExamples {
		list = list[:maxExamples]
	}
	m.examples[t.Score.Outcome] = list
}

func compareExample(a, b Example) int {
	return cmp.Or(cmp.Compare(a.Case, b.Case), cmp.Compare(a.Repeat, b.Repeat))
}

// Summary returns the numbers so far.
func (s *Summarizer) Summary() *Summary {
	out := &Summary{Format: record.Format, Suite: s.Suite, curves: s.curves}
	for _, model := range s.order {
		variants := slices.Clone(s.variants[model])
		slices.Sort(variants) // "" (the base) first
		for _, v := range variants {
			m := s.models[rowKey{model, v}]
			// A model listed in run.json but run only with other variants
			// has no base row.
			if v == "" && m.s.Trials == 0 && len(variants) > 1 {
				continue
			}
			out.Models = append(out.Models, s.summarize(m))
		}
	}
	out.Warnings = append(out.Warnings, s.drift...)
	variants := out.HasVariants()
	for i := range out.Models {
		out.Warnings = append(out.Warnings, warnings(&out.Models[i], variants)...)
	}
	return out
}

// summarize turns one row's tallies into its results.
func (s *Summarizer) summarize(m *modelAcc) ModelSummary {
	ms := m.s
	ms.WarmupSeconds = s.warmup[ms.Model]
	ms.Pass = newRate(m.pass, ms.Scored)
	ms.Selection = newRate(m.selK, m.selN)
	ms.ArgAccuracy = newRate(m.argAccK, m.argAccN)
	ms.ArgValidity = newRate(m.validK, m.validN)
	ms.ArgValidityShown = newRate(m.validShownK, m.validN)
	ms.ArgValidityCoerced = newRate(m.validCoercedK, m.validN)
	ms.Irrelevance = newRate(m.irrK, m.irrN)
	ms.RoundLimit = newRate(m.limitK, ms.Scored)
	ms.RoundsMean = m.rounds.Mean()
	ms.Rounds = map[int]int{}
	for _, vc := range m.rounds.Sorted() {
		ms.Rounds[vc.Value] = vc.Count
	}
	ms.TrialLatency = Latency{P50: m.trialLat.Quantile(0.5), P95: m.trialLat.Quantile(0.95)}
	ms.RoundLatency = Latency{P50: m.roundLat.Quantile(0.5), P95: m.roundLat.Quantile(0.95)}
	if m.evalDur > 0 {
		ms.TokensPerSecond = float64(ms.EvalTokens) / m.evalDur.Seconds()
	}
	s.repeats(m, &ms)
	for _, o := range record.Outcomes {
		if o == record.OutcomePass || ms.Outcomes[o] == 0 {
			continue
		}
		ms.Failures = append(ms.Failures, FailureGroup{Outcome: o, Count: ms.Outcomes[o], Examples: m.examples[o]})
	}
	ms.Cases = []CaseResult{}
	for _, id := range slices.Sorted(maps.Keys(m.byCase)) {
		c := m.byCase[id]
		ms.Cases = append(ms.Cases, CaseResult{ID: id, Pass: newRate(c.pass, c.scored), Infra: c.infra, Truncated: c.truncated, Outcomes: c.outcomes})
	}
	for _, tag := range slices.Sorted(maps.Keys(m.byTag)) {
		g := m.byTag[tag]
		ms.Tags = append(ms.Tags, TagResult{Tag: tag, Cases: len(m.tagCases[tag]), Pass: newRate(g.pass, g.scored), Infra: g.infra, Truncated: g.truncated, Outcomes: g.outcomes})
	}
	ms.BFCL = m.bfclSummary()
	return ms
}

// repeats fills pass@k, pass^k and the stable/flaky labels. k is the smallest
// number of scored repeats any case has, so every case counts alike.
func (s *Summarizer) repeats(m *modelAcc, ms *ModelSummary) {
	if len(m.cases) == 0 {
		return
	}
	ids := make([]string, 0, len(m.cases))
	k := -1
	for id, cc := range m.cases {
		ids = append(ids, id)
		if k < 0 || cc.N < k {
			k = cc.N
		}
	}
	slices.Sort(ids)
	counts := make([]stats.CaseCount, 0, len(ids))
	for _, id := range ids {
		cc := m.cases[id]
		counts = append(counts, *cc)
		switch stats.Label(cc.N, cc.C) {
		case stats.StablePass:
			ms.Stable++
		case stats.StableFail:
			ms.Failing++
		default:
			ms.Flaky = append(ms.Flaky, id)
		}
	}
	if k >= 2 {
		at, ok1 := stats.MeanPassAtK(counts, k)
		hat, ok2 := stats.MeanPassHatK(counts, k)
		if ok1 && ok2 {
			ms.K, ms.PassAtK, ms.PassHatK = k, &at, &hat
		}
	}
}

// ReadSummary reads a summary.json written by WriteJSON; name names it in
// errors. One written in a newer major format is refused (record.FormatError);
// fields a newer minor format added are ignored.
func ReadSummary(r io.Reader, name string) (*Summary, error) {
	var s Summary
	if err := json.NewDecoder(r).Decode(&s); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := record.CheckFormat(s.Format); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &s, nil
}
