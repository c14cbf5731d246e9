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
}

// bfclAcc tallies one category of one row.
type bfclAcc struct {
	valid, scored, infra int
	outcomes             map[string]int
	cases                map[string]bool
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
		if j.BFCL.OK {
			a.valid++
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
	rates := map[string]stats.Rate{}
	for _, cat := range slices.Sorted(maps.Keys(m.bfcl)) {
		a := m.bfcl[cat]
		r := newRate(a.valid, a.scored)
		rates[cat] = r
		out.Categories = append(out.Categories, BFCLCategory{Category: cat, Cases: len(a.cases), Accuracy: r, Infra: a.infra, Outcomes: a.outcomes})
	}
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
