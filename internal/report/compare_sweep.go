package report

import (
	"encoding/json"
	"fmt"
	"github.com/toolgrade/toolgrade/internal/termtext"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/toolgrade/toolgrade/internal/compare"
	"github.com/toolgrade/toolgrade/internal/curve"
	"github.com/toolgrade/toolgrade/internal/metric"
)

// WriteSweepCompareTerminal writes a sweep comparison for a terminal: per
// model a table of the points along the axis, each point's own selection
// and pass rates beside the paired change from the line's first point (the
// McNemar verdict on the discordant pairs), then the line that says where
// selection falls below the threshold.
func WriteSweepCompareTerminal(w io.Writer, sc *compare.SweepComparison) error {
	fmt.Fprintf(w, "Sweep of %s in %s: each point paired with its line's first, case by case and repeat by repeat; threshold %s\n",
		termtext.Printable(sc.Axis), termtext.Printable(sc.Dir), sweepThreshold(sc))
	for i := range sc.Curves {
		c := &sc.Curves[i]
		fmt.Fprintf(w, "\n== %s ==\n", termtext.Printable(sweepHeading(&c.Curve)))
		header, rows := sweepCompareTable(c, termtext.Printable)
		if err := Table(w, header, rows); err != nil {
			return err
		}
		fmt.Fprintf(w, "%s: %s\n", termtext.Printable(c.Model), c.Crossing.String(c.Axis))
	}
	fmt.Fprintf(w, "\n%s\n", sweepCompareNote(sc))
	for _, warn := range sc.Warnings {
		fmt.Fprintf(w, "warning: %s\n", termtext.Printable(warn))
	}
	return nil
}

// WriteSweepCompareMarkdown writes a sweep comparison as GitHub-flavoured
// Markdown, for a pull request comment or a step summary: each curve's
// verdict first (where selection falls below the threshold), then per curve
// the table of the terminal comparison, a worse paired change in bold, the
// note and the warnings. Every name from the run goes through mdText.
func WriteSweepCompareMarkdown(w io.Writer, sc *compare.SweepComparison) error {
	b := &strings.Builder{}
	fmt.Fprintf(b, "## toolgrade compare: sweep of %s\n\n", mdText(sc.Axis))
	fmt.Fprintf(b, "Run %s: each point paired with its line's first, case by case and repeat by repeat; threshold %s.\n\n", mdCode(sc.Dir), sweepThreshold(sc))
	for i := range sc.Curves {
		c := &sc.Curves[i]
		name := c.Model
		if len(c.Fixed) > 0 {
			name += " at " + curve.Label(c.Fixed)
		}
		fmt.Fprintf(b, "- **%s**: %s\n", mdText(name), mdText(c.Crossing.String(c.Axis)))
	}
	if len(sc.Curves) > 0 {
		b.WriteString("\n")
	}
	for i := range sc.Curves {
		c := &sc.Curves[i]
		fmt.Fprintf(b, "### %s\n\n", mdText(sweepHeading(&c.Curve)))
		header, rows := sweepCompareTable(c, mdText)
		mdRow(b, header)
		b.WriteString("| ---: | ---: | ---: | --- | ---: | --- |\n")
		for j, r := range rows {
			if g := c.Paired[j]; g != nil {
				for k, m := range map[int]metric.Name{3: metric.ToolSelection, 5: metric.Pass} {
					if rr := g.Rate(m); rr != nil && rr.Verdict == compare.Worse && r[k] != "–" {
						r[k] = "**" + r[k] + "**"
					}
				}
			}
			mdRow(b, r)
		}
		b.WriteString("\n")
	}
	b.WriteString(mdText(sweepCompareNote(sc)) + "\n")
	if len(sc.Warnings) > 0 {
		b.WriteString("\n### Warnings\n\n")
		for _, warn := range sc.Warnings {
			fmt.Fprintf(b, "- %s\n", mdText(warn))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// sweepThreshold is the comparison's threshold as a percentage: "80%".
func sweepThreshold(sc *compare.SweepComparison) string {
	return strconv.FormatFloat(math.Round(sc.Threshold*100*1e6)/1e6, 'f', -1, 64) + "%"
}

// sweepCompareTable is one curve's points as rows, shared by the terminal
// and Markdown: the axis value, the tools offered, the point's own
// selection and pass, each beside its paired change from the line's first
// point ("" at the first point itself); text escapes the cells for their
// format.
func sweepCompareTable(c *compare.SweepCurve, text func(string) string) (header []string, rows [][]string) {
	header = []string{axisHeader(c.Axis), "Tools", "Selection", "Δ selection (p, verdict)", "Pass", "Δ pass (p, verdict)"}
	for j, p := range c.Points {
		sel, pass := "", ""
		if g := c.Paired[j]; g != nil {
			sel, pass = pairedCell(g.Rate(metric.ToolSelection)), pairedCell(g.Rate(metric.Pass))
		}
		own := "–"
		if !p.Selection.Empty() {
			own = fmt.Sprintf("%d/%d %s", p.Selection.K, p.Selection.N, p.Selection.Percent())
		}
		rows = append(rows, []string{text(curve.FormatValue(p.Value)), fmt.Sprint(p.Tools), own, text(sel), p.Pass.Percent(), text(pass)})
	}
	for i := range header {
		header[i] = text(header[i])
	}
	return header, rows
}

// sweepCompareNote says what a sweep comparison's figures are, once under
// them.
func sweepCompareNote(sc *compare.SweepComparison) string {
	return fmt.Sprintf("Each point's rates over its own scored trials, with 95%% Wilson intervals; Δ over the pairs with no infrastructure error on either side, judged by an exact McNemar test at alpha %.3g (~: no detectable difference). \"Falls below\" is the first point whose rate is under the threshold; \"wholly below\" the first whose whole interval is: a point's own trials against the threshold, where Δ's verdict pairs it with the line's first point.", sc.Alpha)
}

// pairedCell is a paired rate's change: "-55.6 pts (p=0.002, worse)".
func pairedCell(r *compare.RateRow) string {
	if r == nil {
		return "–"
	}
	if r.Rate.Base.N == 0 || r.Rate.Current.N == 0 {
		return "–"
	}
	return fmt.Sprintf("%s (p=%s, %s)", deltaPts(*r), pval(r.P), r.Verdict)
}

// WriteSweepCompareJSON writes a sweep comparison as indented JSON; its
// "format" and "mode" fields name the schema.
func WriteSweepCompareJSON(w io.Writer, sc *compare.SweepComparison) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(sc)
}
