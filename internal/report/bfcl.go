package report

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/stats"
	"github.com/toolgrade/toolgrade/internal/summary"
	"github.com/toolgrade/toolgrade/internal/termtext"
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
			rows = append(rows, []string{text(m.Label(variants)), text(c.Category), fmt.Sprint(c.Cases), c.Accuracy.Percent(), roundTripCell(c), pass[c.Category].Percent(), text(outcomeList(c.Outcomes))})
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

var bfclHeader = []string{"Model", "BFCL category", "Cases", "BFCL accuracy", "Round trip", "Pass", "Outcomes"}

// roundTripCell is the range of a category's BFCL accuracy that Ollama's
// round trip of numbers leaves open, with how many trials are open; "-"
// when none is.
func roundTripCell(c summary.BFCLCategory) string {
	if c.RoundTrip == 0 || c.Low == nil || c.High == nil {
		return "-"
	}
	return fmt.Sprintf("%.1f–%.1f%% (%d open)", 100**c.Low, 100**c.High, c.RoundTrip)
}

// bfclRoundTripText is the summary columns' range over what the model may
// have sent.
func bfclRoundTripText(rt *summary.BFCLRoundTrip) string {
	return fmt.Sprintf("over what the model may have sent, %s open: Non-Live AST %s–%s, Live %s–%s",
		termtext.Count(rt.Trials, "trial"), bfclPct(rt.Low.NonLiveAST), bfclPct(rt.High.NonLiveAST), bfclPct(rt.Low.Live), bfclPct(rt.High.Live))
}

func bfclPct(v *float64) string {
	if v == nil {
		return "N/A"
	}
	return fmt.Sprintf("%.1f%%", 100**v)
}

// bfclDiffers says, for a row, how many trials BFCL's verdict and
// toolgrade's pass disagree on, and why they can; "" when they agree.
func bfclDiffers(b *summary.BFCLSummary) string {
	validNotPass, passNotValid := 0, 0
	for _, c := range b.Categories {
		validNotPass += c.ValidNotPass
		passNotValid += c.PassNotValid
	}
	var parts []string
	if validNotPass > 0 {
		parts = append(parts, fmt.Sprintf("%s BFCL calls valid that toolgrade does not pass (its finer checks: the schema's enums and types, which BFCL never checks, a call written in the text, the answer)", termtext.Count(validNotPass, "trial")))
	}
	if passNotValid > 0 {
		parts = append(parts, fmt.Sprintf("%s toolgrade passes that BFCL calls invalid (parallel calls: toolgrade pairs them by a maximum matching, BFCL greedily)", termtext.Count(passNotValid, "trial")))
	}
	return strings.Join(parts, "; ")
}

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
	line := fmt.Sprintf("Non-Live AST %s, Live %s, Irrelevance Detection %s, Relevance Detection %s",
		bfclPct(b.NonLiveAST), bfclPct(b.Live), bfclPct(b.Irrelevance), bfclPct(b.Relevance))
	if rt := b.RoundTrip; rt != nil {
		line += " (as received; " + bfclRoundTripText(rt) + ")"
	}
	if d := bfclDiffers(b); d != "" {
		line += ". " + d
	}
	return line
}

const bfclNote = "BFCL accuracy is the leaderboard's single valid/invalid verdict per trial, by BFCL's rules alone (irrelevance: no call; relevance: some call; else BFCL's AST checker, which never checks a schema's enums), with a 95% Wilson interval; " +
	"Round trip: Ollama re-encodes a model's 5.0 as 5, so where BFCL's verdict depends on whether an integral number was an int or a float, the trial is open, and the range gives the accuracy with every open trial invalid and with every one valid; " +
	"the summary averages as BFCL's leaderboard does (Non-Live AST unweighted over simple, multiple, parallel, parallel_multiple, simple itself over python, java, javascript; Live weighted by trials), N/A when a category it needs was not run; BFCL's Overall Acc also weighs multi-turn and agentic categories, which are not imported, so it is not given."

// writeBFCLTerminal writes the BFCL section of the terminal report.
func writeBFCLTerminal(w io.Writer, s *summary.Summary, variants bool) error {
	if !s.HasBFCL() {
		return nil
	}
	fmt.Fprintln(w, "\nBFCL categories:")
	if err := Table(w, bfclHeader, bfclRows(s, variants, termtext.Printable)); err != nil {
		return err
	}
	for _, m := range s.Models {
		if m.BFCL != nil {
			fmt.Fprintf(w, "%s: %s\n", termtext.Printable(m.Label(variants)), bfclLine(m.BFCL))
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
	b.WriteString("| --- | --- |" + strings.Repeat(" ---: |", 4) + " --- |\n")
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
