package reports

import (
	"cmp"
	"slices"
	"time"

	"github.com/toolgrade/toolgrade/harness/record"
	"github.com/toolgrade/toolgrade/harness/stats"
)

// Summary is every number a run's reports show, per model; summary.json is
// this value.
type Summary struct {
	Suite    string         `json:"suite,omitempty"`
	Models   []ModelSummary `json:"models"`
	Warnings []string       `json:"warnings,omitempty"`
	// ServerRestarts counts, per server name, the restarts of servers that
	// crashed during the run (from run.json); servers never restarted are
	// left out.
	ServerRestarts map[string]int `json:"server_restarts,omitempty"`
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

// ModelSummary is one model's results.
type ModelSummary struct {
	Model string `json:"model"`
	// Trials counts every trial; Scored leaves out infrastructure errors,
	// which no rate counts.
	Trials   int            `json:"trials"`
	Scored   int            `json:"scored"`
	Infra    int            `json:"infra_errors"`
	Outcomes map[string]int `json:"outcomes"`

	Pass        Rate `json:"pass"`
	Selection   Rate `json:"tool_selection"`
	ArgValidity Rate `json:"arg_validity"`
	ArgAccuracy Rate `json:"arg_accuracy"`
	Irrelevance Rate `json:"irrelevance"`
	RoundLimit  Rate `json:"round_limit"`

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
	Truncated   int     `json:"truncated_prompts"`

	// Repeat-based figures, when cases ran more than once.
	K        int      `json:"k,omitempty"`
	PassAtK  *float64 `json:"pass_at_k,omitempty"`
	PassHatK *float64 `json:"pass_hat_k,omitempty"`
	Stable   int      `json:"stable_pass_cases"`
	Failing  int      `json:"stable_fail_cases"`
	Flaky    []string `json:"flaky_cases,omitempty"`

	Failures []FailureGroup `json:"failures,omitempty"`
}

// Rate is a proportion with its 95% Wilson interval.
type Rate struct {
	K     int     `json:"k"`
	N     int     `json:"n"`
	Value float64 `json:"value"`
	Lo    float64 `json:"lo"`
	Hi    float64 `json:"hi"`
}

func newRate(k, n int) Rate {
	r := stats.Rate{K: k, N: n}
	lo, hi := r.Wilson95()
	return Rate{K: k, N: n, Value: r.Value(), Lo: lo, Hi: hi}
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
// number of models and cases, never with the number of trials.
type Summarizer struct {
	Suite  string
	models map[string]*modelAcc
	order  []string
}

type modelAcc struct {
	s                  ModelSummary
	pass, selK, selN   int
	argAccK, argAccN   int
	validK, validN     int
	irrK, irrN, limitK int
	rounds             stats.Counts
	trialLat, roundLat stats.Histogram
	evalDur            time.Duration
	cases              map[string]*stats.CaseCount
	examples           map[string][]Example
}

// NewSummarizer returns an empty Summarizer; models are the run's models in
// order, from run.json (models that only appear in trials are added as they
// appear).
func NewSummarizer(suite string, models []record.Model) *Summarizer {
	s := &Summarizer{Suite: suite, models: map[string]*modelAcc{}}
	for _, m := range models {
		s.model(m.Name).s.WarmupSeconds = m.Load.Seconds()
	}
	return s
}

func (s *Summarizer) model(name string) *modelAcc {
	if m, ok := s.models[name]; ok {
		return m
	}
	m := &modelAcc{
		s:        ModelSummary{Model: name, Outcomes: map[string]int{}},
		cases:    map[string]*stats.CaseCount{},
		examples: map[string][]Example{},
	}
	s.models[name] = m
	s.order = append(s.order, name)
	return m
}

// Add counts one trial.
func (s *Summarizer) Add(t *record.Trial) {
	m := s.model(t.Model)
	sc := t.Score
	m.s.Trials++
	m.s.Outcomes[sc.Outcome]++
	if sc.Outcome == record.OutcomeInfraError {
		m.s.Infra++
		m.addExample(t)
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
	if sc.CallExpected {
		m.selN++
		if sc.ToolCorrect {
			m.selK++
			m.argAccN++
			if sc.ArgsCorrect {
				m.argAccK++
			}
		}
	} else {
		m.irrN++
		if sc.Outcome == record.OutcomePass || sc.Outcome == record.OutcomeWrongAnswer || sc.Outcome == record.OutcomeEmptyAnswer {
			// The model rightly called no tool; what it said is judged apart.
			m.irrK++
		}
	}
	m.validN += sc.CallsToKnownTools
	m.validK += sc.ValidCalls
	if sc.Outcome == record.OutcomeRoundLimit || (t.Transcript != nil && t.Transcript.RoundLimitHit) {
		m.limitK++
	}
	if sc.Truncated {
		m.s.Truncated++
	}
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
	out := &Summary{Suite: s.Suite}
	for _, name := range s.order {
		m := s.models[name]
		ms := m.s
		ms.Pass = newRate(m.pass, ms.Scored)
		ms.Selection = newRate(m.selK, m.selN)
		ms.ArgAccuracy = newRate(m.argAccK, m.argAccN)
		ms.ArgValidity = newRate(m.validK, m.validN)
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
		out.Models = append(out.Models, ms)
		out.Warnings = append(out.Warnings, warnings(&ms)...)
	}
	return out
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
