package summary

import (
	"maps"
	"slices"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/stats"
)

// BFCLSummary is the Berkeley Function-Calling Leaderboard's figures for
// the cases of one row tagged bfcl_category:CATEGORY: per category, the
// share of trials BFCL would call valid (record.Judgements.BFCL), then the
// leaderboard's summary columns, aggregated as its generate_leaderboard_csv
// (bfcl_eval/eval_checker/eval_runner_helper.py) aggregates them.
type BFCLSummary struct {
	// Categories are sorted by name.
	Categories []BFCLCategory `json:"categories"`
	// BFCLColumns are the summary columns of the verdicts as received.
	BFCLColumns
	// RoundTrip is the summary columns at each end of the range Ollama's
	// round trip of numbers leaves open; nil when no verdict is open.
	RoundTrip *BFCLRoundTrip `json:"round_trip,omitempty"`
}

// BFCLRoundTrip is how much of a row's BFCL figures Ollama's encoding of
// numbers leaves open: its open trials, and the summary columns with every
// open trial invalid (Low) and with every one valid (High).
type BFCLRoundTrip struct {
	Trials int         `json:"trials"`
	Low    BFCLColumns `json:"low"`
	High   BFCLColumns `json:"high"`
}

// BFCLColumns are the leaderboard's summary columns.
type BFCLColumns struct {
	// NonLiveAST is "Non-Live AST Acc": the unweighted mean of simple (the
	// unweighted mean of simple python, java and javascript), multiple,
	// parallel and parallel_multiple. Nil when one of them has no scored
	// trial: BFCL shows N/A then.
	NonLiveAST *float64 `json:"non_live_ast,omitempty"`
	// Live is "Live Acc": live_simple, live_multiple, live_parallel and
	// live_parallel_multiple weighted by their trials; nil when one is
	// missing.
	Live *float64 `json:"live,omitempty"`
	// Irrelevance is "Irrelevance Detection": the unweighted mean of
	// irrelevance and live_irrelevance; nil when one is missing.
	Irrelevance *float64 `json:"irrelevance,omitempty"`
	// Relevance is "Relevance Detection": live_relevance; nil when missing.
	Relevance *float64 `json:"relevance,omitempty"`
}

// BFCLCategory is one BFCL category's trials in one row.
type BFCLCategory struct {
	Category string `json:"category"`
	Cases    int    `json:"cases"`
	// Accuracy is BFCL's: valid trials of the scored ones (infrastructure
	// errors are left out, as from every rate).
	Accuracy stats.Rate     `json:"accuracy"`
	Infra    int            `json:"infra_errors,omitempty"`
	Outcomes map[string]int `json:"outcomes"`
	// RoundTrip counts the scored trials whose verdict Ollama's round trip
	// of numbers leaves open (record.BFCLVerdict.RoundTrip); Low and High
	// are the accuracy with all of them invalid and all of them valid.
	RoundTrip int      `json:"round_trip,omitempty"`
	Low       *float64 `json:"low,omitempty"`
	High      *float64 `json:"high,omitempty"`
	// ValidNotPass and PassNotValid count the scored trials BFCL calls
	// valid that toolgrade does not pass (its schema check, say, refused
	// an enum BFCL never checks), and the reverse.
	ValidNotPass int `json:"valid_not_pass,omitempty"`
	PassNotValid int `json:"pass_not_valid,omitempty"`
}

// bfclAcc tallies one category of one row.
type bfclAcc struct {
	valid, scored, infra int
	// openValid and openInvalid split the open trials by their verdict as
	// received; validNotPass and passNotValid count the disagreements.
	openValid, openInvalid     int
	validNotPass, passNotValid int
	outcomes                   map[string]int
	cases                      map[string]bool
}

// addBFCL counts a trial of a BFCL-tagged case; j is its judgement, nil for
// an infrastructure error.
func (m *modelAcc) addBFCL(t *record.Trial, j *record.Judgements) {
	cat := record.BFCLCategory(t.Tags)
	if cat == "" {
		return
	}
	if m.bfcl == nil {
		m.bfcl = map[string]*bfclAcc{}
	}
	a := m.bfcl[cat]
	if a == nil {
		a = &bfclAcc{outcomes: map[string]int{}, cases: map[string]bool{}}
		m.bfcl[cat] = a
	}
	a.outcomes[t.Score.Outcome]++
	a.cases[t.CaseID] = true
	switch {
	case j == nil || j.BFCL == nil:
		a.infra++
	default:
		a.scored++
		pass := t.Score.Outcome == record.OutcomePass
		switch {
		case j.BFCL.OK && !pass:
			a.validNotPass++
		case !j.BFCL.OK && pass:
			a.passNotValid++
		}
		if j.BFCL.OK {
			a.valid++
		}
		switch {
		case j.BFCLRoundTrip && j.BFCL.OK:
			a.openValid++
		case j.BFCLRoundTrip:
			a.openInvalid++
		}
	}
}

// bfclSummary turns a row's tallies into its BFCL figures; nil when the row
// has no BFCL-tagged trial.
func (m *modelAcc) bfclSummary() *BFCLSummary {
	if len(m.bfcl) == 0 {
		return nil
	}
	out := &BFCLSummary{}
	rates, low, high := map[string]stats.Rate{}, map[string]stats.Rate{}, map[string]stats.Rate{}
	open := 0
	for _, cat := range slices.Sorted(maps.Keys(m.bfcl)) {
		a := m.bfcl[cat]
		r := newRate(a.valid, a.scored)
		rates[cat] = r
		low[cat], high[cat] = newRate(a.valid-a.openValid, a.scored), newRate(a.valid+a.openInvalid, a.scored)
		c := BFCLCategory{Category: cat, Cases: len(a.cases), Accuracy: r, Infra: a.infra, Outcomes: a.outcomes,
			RoundTrip: a.openValid + a.openInvalid, ValidNotPass: a.validNotPass, PassNotValid: a.passNotValid}
		if c.RoundTrip > 0 {
			lo, hi := low[cat].Value(), high[cat].Value()
			c.Low, c.High = &lo, &hi
		}
		open += c.RoundTrip
		out.Categories = append(out.Categories, c)
	}
	out.BFCLColumns = bfclColumns(rates)
	if open > 0 {
		lo, hi := bfclColumns(low), bfclColumns(high)
		out.RoundTrip = &BFCLRoundTrip{Trials: open, Low: lo, High: hi}
	}
	return out
}

// bfclColumns aggregates per-category accuracies into the leaderboard's
// summary columns, as its generate_leaderboard_csv does.
func bfclColumns(rates map[string]stats.Rate) BFCLColumns {
	var out BFCLColumns
	// BFCL v3 names the simple categories simple, java and javascript; v4
	// simple_python, simple_java and simple_javascript.
	get := func(names ...string) (stats.Rate, bool) {
		for _, n := range names {
			if r, ok := rates[n]; ok && !r.Empty() {
				return r, true
			}
		}
		return stats.Rate{}, false
	}
	unweighted := func(groups ...[]string) *float64 {
		sum := 0.0
		for _, g := range groups {
			r, ok := get(g...)
			if !ok {
				return nil
			}
			sum += r.Value()
		}
		v := sum / float64(len(groups))
		return &v
	}
	if simple := unweighted([]string{"simple", "simple_python"}, []string{"java", "simple_java"}, []string{"javascript", "simple_javascript"}); simple != nil {
		rest := unweighted([]string{"multiple"}, []string{"parallel"}, []string{"parallel_multiple"})
		if rest != nil {
			v := (*simple + 3**rest) / 4
			out.NonLiveAST = &v
		}
	}
	k, n := 0, 0
	live := true
	for _, c := range []string{"live_simple", "live_multiple", "live_parallel", "live_parallel_multiple"} {
		r, ok := get(c)
		if !ok {
			live = false
			break
		}
		k, n = k+r.K, n+r.N
	}
	if live {
		v := float64(k) / float64(n)
		out.Live = &v
	}
	out.Irrelevance = unweighted([]string{"irrelevance"}, []string{"live_irrelevance"})
	out.Relevance = unweighted([]string{"live_relevance"})
	return out
}

// HasBFCL reports whether any row has BFCL figures.
func (s *Summary) HasBFCL() bool {
	return slices.ContainsFunc(s.Models, func(m ModelSummary) bool { return m.BFCL != nil })
}
