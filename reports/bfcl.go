package reports

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/stats"
	"github.com/toolgrade/toolgrade/internal/summary"
)

// bfclRows are the rows of the BFCL table, one per row and category:
// model, category, cases, BFCL accuracy, toolgrade's pass rate from the
// category's tag, and the outcomes.
func bfclRows(s *summary.Summary, variants bool, text func(string) string) [][]string {
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
func bfclPass(m *summary.ModelSummary) map[string]stats.Rate {
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
func bfclLine(b *summary.BFCLSummary) string {
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
func writeBFCLTerminal(w io.Writer, s *summary.Summary, variants bool) error {
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
func mdBFCL(b *strings.Builder, s *summary.Summary, variants bool) {
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
