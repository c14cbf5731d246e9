package summary

import (
	"cmp"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/toolgrade/toolgrade/internal/curve"
	"github.com/toolgrade/toolgrade/internal/metric"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/stats"
)

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
	// rates are the metric table's rates, which every row tallies in
	// this order.
	rates []metric.Metric
}

// rowKey is one row of the summary.
type rowKey struct{ model, variant string }

// outcomeAcc tallies one case's or tag's trials.
type outcomeAcc struct {
	pass, scored, infra, truncated int
	outcomes                       map[string]int
	// judged tallies the answers the judge passed of those it judged.
	judged tally
	// cases tallies the pass rate case by case (by the row's numbering of
	// its cases), for a tag's interval: a case's repeats are one cluster.
	// Nil for a case's own group.
	cases *stats.RateCases
}

func (a *outcomeAcc) add(caseIdx int, outcome string, j *record.Judgements) {
	if a.outcomes == nil {
		a.outcomes = map[string]int{}
	}
	if j.Excluded {
		a.truncated++
		return
	}
	a.outcomes[outcome]++
	if j.Judged.Defined {
		a.judged.n++
		if j.Judged.OK {
			a.judged.k++
		}
	}
	switch outcome {
	case record.OutcomeInfraError:
		a.infra++
		return
	case record.OutcomePass:
		a.pass++
	}
	a.scored++
	if a.cases != nil {
		a.cases.Add(caseIdx, outcome == record.OutcomePass)
	}
}

// passRate is the group's pass rate: over its cases' clusters for a tag,
// over the trials of its one case for a case.
func (a *outcomeAcc) passRate() stats.Rate {
	if a.cases != nil {
		return a.cases.Rate()
	}
	return newRate(a.pass, a.scored)
}

// judgedRate is the judged rate of the group's answers; nil when the judge
// gave none a verdict.
func (a *outcomeAcc) judgedRate() *stats.Rate {
	if a.judged.n == 0 {
		return nil
	}
	r := newRate(a.judged.k, a.judged.n)
	return &r
}

// tally is one rate's k of n.
type tally struct{ k, n int }

type modelAcc struct {
	s ModelSummary
	// rates are the Summarizer's rates' tallies case by case, in its
	// order: a case's repeats are one cluster of every rate. caseIdx
	// numbers the row's cases for them, once for every rate.
	rates   []stats.RateCases
	caseIdx map[string]int
	// ids, byCase and cases are per case, by its number: its id, its
	// outcomes, and its scored trials' passes (cases[i].N 0 when it had
	// none), so a trial looks its case up once.
	ids                []string
	byCase             []outcomeAcc
	cases              []stats.CaseCount
	rounds             stats.Counts
	trialLat, roundLat stats.Histogram
	evalDur            time.Duration
	examples           map[string][]Example
	judgeFails         []Example // answers the judge failed, as examples
	failedPasses       []Example // passes with a failed call, as examples
	failedPassN        int
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
		curves: curve.NewStats(), rates: metric.Select(metric.Rate, 0)}
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
		rates:    make([]stats.RateCases, len(s.rates)),
		caseIdx:  map[string]int{},
		examples: map[string][]Example{},
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
	s.AddJudged(t, record.JudgeWith(t, s.Judge))
}

// AddJudged is Add for a reader that judged t already, with s.Judge: a
// comparison whose gates summarize the run it reads judges each trial
// once for both.
func (s *Summarizer) AddJudged(t *record.Trial, j record.Judgements) {
	m := s.row(t.Model, t.Variant)
	ci := m.index(t.CaseID)
	s.curves.AddJudgedAt(t, j, ci)
	sc := t.Score
	m.s.Trials++
	m.addGroups(t, ci, &j)
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
		if tr := t.Transcript; tr != nil && tr.Failure != nil && tr.Failure.Kind == record.FailureServerSkipped {
			m.s.NotRun++
		}
		m.addExample(t)
		m.addBFCL(t, nil)
		return
	}
	m.s.Scored++
	if sc.Outcome != record.OutcomePass {
		m.addExample(t)
	}
	m.addCase(t, ci)
	m.addBFCL(t, &j)
	for i := range s.rates {
		k, n := s.rates[i].Count(&j)
		if n > 0 {
			m.rates[i].AddCounts(ci, k, n)
		}
	}
	m.s.RepeatedCalls += j.RepeatedCalls
	m.addJudged(t, &j)
	if j.Pass.OK && j.FailedCall.OK {
		m.failedPassN++
		m.failedPasses = keepFirst(m.failedPasses, Example{Case: t.CaseID, Repeat: t.Repeat, Detail: FailedCallDetail(t)})
	}
	m.rounds.Add(sc.Rounds)
	if !t.IsCopy() { // a copy of an earlier repeat took no model time
		m.addCosts(t.Transcript)
	}
}

// index is case id's number in the row, for the per-case tallies.
func (m *modelAcc) index(id string) int {
	i, ok := m.caseIdx[id]
	if !ok {
		i = len(m.caseIdx)
		m.caseIdx[id] = i
		m.ids = append(m.ids, id)
		m.byCase = append(m.byCase, outcomeAcc{})
		m.cases = append(m.cases, stats.CaseCount{})
	}
	return i
}

// byID is the row's case numbers in the order of their ids.
func (m *modelAcc) byID() []int {
	out := make([]int, len(m.ids))
	for i := range out {
		out[i] = i
	}
	slices.SortFunc(out, func(a, b int) int { return strings.Compare(m.ids[a], m.ids[b]) })
	return out
}

// addJudged counts what the judge model did with a scored trial's answer
// beyond the rates: its model, its errors, its stale verdicts.
func (m *modelAcc) addJudged(t *record.Trial, j *record.Judgements) {
	if t.Judged == nil {
		return
	}
	m.s.JudgeModel = t.Judged.Model
	if j.JudgeError {
		m.s.JudgeErrors++
	}
	if j.JudgeStale {
		m.s.JudgeStale++
	}
	if j.Judged.Defined && !j.Judged.OK {
		// The reason of the first judgement that failed it.
		reason := ""
		for _, v := range t.Judged.Verdicts {
			if v.Verdict == record.VerdictFail {
				reason = v.Reason
				break
			}
		}
		m.judgeFails = keepFirst(m.judgeFails, Example{Case: t.CaseID, Repeat: t.Repeat, Detail: reason})
	}
}

// addCase counts a scored trial in its case's repeats, for pass@k.
func (m *modelAcc) addCase(t *record.Trial, ci int) {
	cc := &m.cases[ci]
	cc.N++
	if t.Score.Outcome == record.OutcomePass {
		cc.C++
	}
}

// addCosts counts a scored trial's latencies, tokens and load time.
func (m *modelAcc) addCosts(tr *record.Transcript) {
	if tr == nil {
		return
	}
	m.trialLat.Add(tr.Wall.Seconds())
	for _, r := range tr.Rounds {
		m.roundLat.Add(r.Wall.Seconds())
		m.s.PromptTokens += r.Metrics.PromptEvalCount
		m.s.EvalTokens += r.Metrics.EvalCount
		m.evalDur += r.Metrics.EvalDuration
		m.s.LoadSeconds += r.Metrics.LoadDuration.Seconds()
	}
}

// addGroups counts the trial in its case and in each of its tags.
func (m *modelAcc) addGroups(t *record.Trial, ci int, j *record.Judgements) {
	m.byCase[ci].add(ci, t.Score.Outcome, j)
	for _, tag := range t.Tags {
		g := m.byTag[tag]
		if g == nil {
			g = &outcomeAcc{cases: &stats.RateCases{}}
			m.byTag[tag] = g
			m.tagCases[tag] = map[string]bool{}
		}
		g.add(ci, t.Score.Outcome, j)
		m.tagCases[tag][t.CaseID] = true
	}
}

// addExample keeps the failing trials that sort first by case and repeat, so
// the report does not depend on the order parallel trials finished in.
func (m *modelAcc) addExample(t *record.Trial) {
	ex := Example{Case: t.CaseID, Repeat: t.Repeat, Detail: t.Score.Detail, Turn: t.Score.Turn}
	m.examples[t.Score.Outcome] = keepFirst(m.examples[t.Score.Outcome], ex)
}

// keepFirst inserts ex into list, sorted by case and repeat, keeping the
// first maxExamples.
func keepFirst(list []Example, ex Example) []Example {
	i, _ := slices.BinarySearchFunc(list, ex, compareExample)
	if i >= maxExamples {
		return list
	}
	list = slices.Insert(list, i, ex)
	if len(list) > maxExamples {
		list = list[:maxExamples]
	}
	return list
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
	out.Warnings = append(out.Warnings, rowWarnings(out.Models, out.HasVariants())...)
	return out
}

// summarize turns one row's tallies into its results.
func (s *Summarizer) summarize(m *modelAcc) ModelSummary {
	ms := m.s
	ms.WarmupSeconds = s.warmup[ms.Model]
	for i, r := range s.rates {
		*ms.rate(r.Name) = m.rates[i].Rate()
	}
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
	if n := ms.Judged.N - ms.Judged.K; n > 0 {
		ms.JudgeFailures = &FailureGroup{Outcome: JudgedFail, Count: n, Examples: m.judgeFails}
	}
	if m.failedPassN > 0 {
		ms.FailedCallPasses = &FailureGroup{Outcome: FailedCallPass, Count: m.failedPassN, Examples: m.failedPasses}
	}
	ms.Cases = []CaseResult{}
	for _, ci := range m.byID() {
		c, id := &m.byCase[ci], m.ids[ci]
		ms.Cases = append(ms.Cases, CaseResult{ID: id, Pass: newRate(c.pass, c.scored), Infra: c.infra, Truncated: c.truncated, Outcomes: c.outcomes, Judged: c.judgedRate()})
	}
	for _, tag := range slices.Sorted(maps.Keys(m.byTag)) {
		g := m.byTag[tag]
		ms.Tags = append(ms.Tags, TagResult{Tag: tag, Cases: len(m.tagCases[tag]), Pass: g.passRate(), Infra: g.infra, Truncated: g.truncated, Outcomes: g.outcomes})
	}
	ms.BFCL = m.bfclSummary()
	return ms
}

// repeats fills pass@k, pass^k and the stable/flaky labels. k is the smallest
// number of scored repeats any case has, so every case counts alike.
func (s *Summarizer) repeats(m *modelAcc, ms *ModelSummary) {
	k := -1
	var counts []stats.CaseCount
	for _, ci := range m.byID() {
		cc, id := &m.cases[ci], m.ids[ci]
		if cc.N == 0 {
			continue // no scored trial
		}
		if k < 0 || cc.N < k {
			k = cc.N
		}
		counts = append(counts, *cc)
		ms.Evidence.Cases++
		ms.Evidence.Trials += cc.N
		if cc.N > 1 {
			ms.Evidence.Repeated++
			if cc.C == 0 || cc.C == cc.N {
				ms.Evidence.Agree++
			}
		}
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
