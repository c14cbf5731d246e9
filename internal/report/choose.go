package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/toolgrade/toolgrade/internal/choose"
	"github.com/toolgrade/toolgrade/internal/metric"
	"github.com/toolgrade/toolgrade/internal/stats"
	"github.com/toolgrade/toolgrade/internal/termtext"
)

// WriteChooseTerminal writes a choice for a terminal: what is judged and
// how, the table of every model (its rates with their 95% intervals, its
// cost, whether it is on the frontier, how it fares against the reference),
// then the recommendation and the warnings.
func WriteChooseTerminal(w io.Writer, c *choose.Choice) error {
	fmt.Fprintf(w, "Choosing a model in %s: %s\n\n", termtext.Printable(c.Dir), termtext.Printable(chooseHow(c)))
	header, rows := chooseTable(c)
	if err := Table(w, header, rows); err != nil {
		return err
	}
	for _, l := range chooseNotes(c) {
		fmt.Fprintln(w, termtext.Printable(l))
	}
	fmt.Fprintf(w, "\nRecommendation: %s\n", termtext.Printable(c.Recommendation.Text))
	for _, warn := range c.Warnings {
		fmt.Fprintf(w, "warning: %s\n", termtext.Printable(warn))
	}
	return nil
}

// WriteChooseMarkdown writes a choice as GitHub-flavoured Markdown: the
// recommendation first, then the table and its notes. Every name goes
// through mdText.
func WriteChooseMarkdown(w io.Writer, c *choose.Choice) error {
	var b strings.Builder
	b.WriteString("## Choosing a model\n\n")
	fmt.Fprintf(&b, "**Recommendation:** %s\n\n", mdText(c.Recommendation.Text))
	fmt.Fprintf(&b, "%s, in %s.\n\n", mdText(upperFirst(chooseHow(c))), mdCode(c.Dir))
	header, rows := chooseTable(c)
	mdRow(&b, header)
	sep := make([]string, len(header))
	for i := range sep {
		sep[i] = "---"
	}
	mdRow(&b, sep)
	for _, r := range rows {
		cells := make([]string, len(r))
		for i, x := range r {
			cells[i] = mdText(x)
		}
		mdRow(&b, cells)
	}
	b.WriteString("\n")
	for _, l := range chooseNotes(c) {
		fmt.Fprintf(&b, "%s\n\n", mdText(l))
	}
	for _, warn := range c.Warnings {
		fmt.Fprintf(&b, "> warning: %s\n\n", mdText(warn))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteChooseJSON writes the choice as indented JSON (schema choose.Format).
func WriteChooseJSON(w io.Writer, c *choose.Choice) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(c)
}

// chooseHow says what the choice judges and how, in one line.
func chooseHow(c *choose.Choice) string {
	ref := "the best on " + string(c.Metric)
	if c.ReferenceGiven {
		ref = "given"
	}
	return fmt.Sprintf("%s, each judged against %s (reference, %s) on %s at a %s margin; cheaper means less %s",
		termtext.Count(len(c.Models), "model"), c.Reference, ref, c.Metric, stats.Points(c.Margin), chooseCostWords(c))
}

func chooseCostWords(c *choose.Choice) string {
	if c.CostBy == choose.CostMemory {
		return "memory"
	}
	return "p50 latency"
}

// chooseTable is the table of the terminal and Markdown renderings, its
// cells unescaped: per model its role, whether it is on the frontier, its
// rate on the choice's metric, its verdict against the reference, its cost
// (chooseCostCells), then its other rates, each with its interval.
func chooseTable(c *choose.Choice) (header []string, rows [][]string) {
	header = []string{"Model", "Frontier", chooseMetricLabel(c)}
	header = append(header, chooseCostHead(c)...)
	for _, r := range otherRates(c, &c.Models[0]) {
		header = append(header, r.Label)
	}
	for i := range c.Models {
		m := &c.Models[i]
		row := []string{chooseModelCell(m), frontierCell(m), m.Rate(c.Metric).Percent()}
		row = append(row, chooseCostCells(m)...)
		for _, r := range otherRates(c, m) {
			row = append(row, r.Rate.Percent())
		}
		rows = append(rows, row)
	}
	return header, rows
}

// chooseMetricLabel is the label of the choice's metric, as its column
// heads it.
func chooseMetricLabel(c *choose.Choice) string {
	if m, ok := metric.Lookup(string(c.Metric)); ok {
		return m.Label
	}
	return string(c.Metric)
}

// otherRates are the row's rates but the choice's metric.
func otherRates(c *choose.Choice, m *choose.Row) []choose.Rate {
	var out []choose.Rate
	for _, r := range m.Rates {
		if r.Metric != c.Metric {
			out = append(out, r)
		}
	}
	return out
}

// chooseCostHead heads chooseCostCells.
func chooseCostHead(c *choose.Choice) []string {
	return []string{fmt.Sprintf("%s vs %s", c.Metric, c.Reference), fmt.Sprintf("At %s", stats.Points(c.Margin)), "p50", "p95", "tok/s", "Memory", "VRAM"}
}

// chooseCostCells are the row's verdict against the reference and its
// cost, as every rendering shows them.
func chooseCostCells(m *choose.Row) []string {
	return append(versusCells(m), secs(m.Cost.P50), secs(m.Cost.P95), tokPerSec(m.Cost.EvalTokensPerSecond), choose.Bytes(m.Cost.Size), vram(&m.Cost))
}

// chooseModelCell is the model's name and role.
func chooseModelCell(m *choose.Row) string {
	switch {
	case m.Reference:
		return m.Model + " (reference)"
	case m.Candidate:
		return m.Model + " (candidate)"
	}
	return m.Model
}

func frontierCell(m *choose.Row) string {
	if m.Frontier {
		return "yes"
	}
	return "no: " + m.DominatedBy + " is as good, for less"
}

func tokPerSec(v float64) string {
	if v == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f", v)
}

// vram is the part of the memory on the GPU: "CPU" when none is.
func vram(c *choose.Cost) string {
	switch {
	case c.Size == 0:
		return "–"
	case c.SizeVRAM == 0:
		return "CPU"
	case c.SizeVRAM >= c.Size:
		return choose.Bytes(c.SizeVRAM)
	}
	return fmt.Sprintf("%s (%.0f%%)", choose.Bytes(c.SizeVRAM), 100*float64(c.SizeVRAM)/float64(c.Size))
}

// versusCells are the model's difference from the reference with its
// interval and pairs, and the verdict at the margin beside the
// difference test's.
func versusCells(m *choose.Row) []string {
	v := m.Versus
	switch {
	case m.Reference:
		return []string{"reference", ""}
	case v == nil:
		return []string{"no paired trials", ""}
	}
	verdict := v.Words
	if v.Verdict == stats.NIUndecided.String() && v.CasesNeeded > 0 {
		verdict = fmt.Sprintf("undecided: about %d cases would decide", v.CasesNeeded)
	}
	return []string{fmt.Sprintf("%s [%s] over %s", choose.SignedPoints(v.Diff), choose.PointsRange(v.Lo, v.Hi), v.Evidence),
		fmt.Sprintf("%s; difference test: %s", verdict, v.Test)}
}

// chooseNotes are the lines under the table: what its figures are, and
// the truncated prompts when any.
func chooseNotes(c *choose.Choice) []string {
	notes := []string{
		"Rates with 95% Wilson intervals; the difference from the reference over paired trials (same case and repeat) with Tango's 95% score interval, in points. A case is the unit of evidence: a case's repeats are one cluster, so repeats that agree count once.",
		fmt.Sprintf("Frontier: no other model is at least as good on %s and at least as cheap (p50, and memory as /api/ps listed it once loaded), and better or cheaper on one.", c.Metric),
		"Difference test: McNemar's (better, worse, ~ for no detectable difference), a question apart: a model can be detectably worse and still within the margin.",
	}
	for i := range c.Models {
		m := &c.Models[i]
		if m.Cost.TruncatedShare > 0 {
			notes = append(notes, fmt.Sprintf("%s: %.0f%% of its trials had a prompt cut at num_ctx", m.Model, 100*m.Cost.TruncatedShare))
		}
	}
	return notes
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
