package reports

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

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

// bfclRows are the rows of the BFCL table, one per row and category:
// model, category, cases, BFCL accuracy, toolgrade's pass rate from the
// category's tag, and the outcomes.
func bfclRows(s *Summary, variants bool, text func(string) string) [][]string {
	var rows [][]string
	for _, m := range s.Models {
		if m.BFCL == nil {
			continue
		}
		pass := bfclPass(&m)
		for _, c := range m.BFCL.Categories {
			// The outcomes include infra_error, which neither rate counts.
			rows = append(rows, []string{text(m.Label(variants)), text(c.Category), fmt.Sprint(c.Cases), c.Accuracy.Percent(), pass[c.Category].Percent(), text(outcomeList(c.Outcomes))})
		}
	}
	return rows
}

// bfclPass is toolgrade's pass rate of each BFCL category of row m, from
// the results of its bfcl_category: tags.
func bfclPass(m *ModelSummary) map[string]stats.Rate {
	pass := map[string]stats.Rate{}
	for _, tag := range m.Tags {
		if c, ok := strings.CutPrefix(tag.Tag, record.BFCLCategoryTag); ok {
			pass[c] = tag.Pass
		}
	}
	return pass
}

var bfclHeader = []string{"Model", "BFCL category", "Cases", "BFCL accuracy", "Pass", "Outcomes"}

// outcomeList shows outcome counts in the order of record.Outcomes.
func outcomeList(counts map[string]int) string {
	var parts []string
	for _, o := range outcomeOrder(counts) {
		parts = append(parts, fmt.Sprintf("%s %d", o, counts[o]))
	}
	return strings.Join(parts, ", ")
}

// outcomeOrder lists the outcomes counted in counts in the order of
// record.Outcomes, then any other (from a newer toolgrade) by name.
func outcomeOrder(counts map[string]int) []string {
	var out []string
	for _, o := range record.Outcomes {
		if counts[o] > 0 {
			out = append(out, o)
		}
	}
	for _, o := range slices.Sorted(maps.Keys(counts)) {
		if !slices.Contains(record.Outcomes, o) && counts[o] > 0 {
			out = append(out, o)
		}
	}
	return out
}

// bfclLine is one row's leaderboard summary columns.
func bfclLine(b *BFCLSummary) string {
	pct := func(v *float64) string {
		if v == nil {
			return "N/A"
		}
		return fmt.Sprintf("%.1f%%", 100**v)
	}
	return fmt.Sprintf("Non-Live AST %s, Live %s, Irrelevance Detection %s, Relevance Detection %s",
		pct(b.NonLiveAST), pct(b.Live), pct(b.Irrelevance), pct(b.Relevance))
}

const bfclNote = "BFCL accuracy is the leaderboard's single valid/invalid verdict per trial (irrelevance: no call; relevance: some call; else the case passes), with a 95% Wilson interval; " +
	"the summary averages as BFCL's leaderboard does (Non-Live AST unweighted over simple, multiple, parallel, parallel_multiple, simple itself over python, java, javascript; Live weighted by trials), N/A when a category it needs was not run; BFCL's Overall Acc also weighs multi-turn and agentic categories, which are not imported, so it is not given."

// writeBFCLTerminal writes the BFCL section of the terminal report.
func writeBFCLTerminal(w io.Writer, s *Summary, variants bool) error {
	if !s.HasBFCL() {
		return nil
	}
	fmt.Fprintln(w, "\nBFCL categories:")
	if err := Table(w, bfclHeader, bfclRows(s, variants, Printable)); err != nil {
		return err
	}
	for _, m := range s.Models {
		if m.BFCL != nil {
			fmt.Fprintf(w, "%s: %s\n", Printable(m.Label(variants)), bfclLine(m.BFCL))
		}
	}
	fmt.Fprintln(w, bfclNote)
	return nil
}

// mdBFCL writes the BFCL section of the Markdown report.
func mdBFCL(b *strings.Builder, s *Summary, variants bool) {
	if !s.HasBFCL() {
		return
	}
	b.WriteString("### BFCL categories\n\n")
	mdRow(b, bfclHeader)
	b.WriteString("| --- | --- |" + strings.Repeat(" ---: |", 3) + " --- |\n")
	for _, r := range bfclRows(s, variants, mdText) {
		mdRow(b, r)
	}
	b.WriteString("\n")
	for _, m := range s.Models {
		if m.BFCL != nil {
			fmt.Fprintf(b, "- %s: %s\n", mdText(m.Label(variants)), bfclLine(m.BFCL))
		}
	}
	b.WriteString("\n" + bfclNote + "\n\n")
}
