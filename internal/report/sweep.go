package report

import (
	"fmt"
	"github.com/toolgrade/toolgrade/internal/termtext"
	"io"
	"math"
	"strings"

	"github.com/toolgrade/toolgrade/internal/curve"
	"github.com/toolgrade/toolgrade/internal/summary"
)

// sweepNote says what the sweep tables show, once under them.
const sweepNote = "Selection over the scored trials that expected a call at each point, with 95% Wilson intervals; p50 of a trial's wall time; prompt: the first request's prompt tokens, on average. Infrastructure errors are in no figure."

// barWidth is the width of a sweep table's selection bar, in cells: 5% a
// cell, and eighths of a cell below that.
const barWidth = 20

// sweepHeading names one curve's section: "Tool-count sweep: qwen3:8b".
func sweepHeading(c *curve.Curve) string {
	return c.Title() + ": " + c.Model
}

// sweepTable is one curve as rows, shared by the terminal and Markdown: the
// axis value, the tools offered, selection k/n with its interval, pass,
// p50, the first request's prompt tokens, and a bar of selection so the
// fall shows at a glance.
func sweepTable(c *curve.Curve) (header []string, rows [][]string) {
	header = []string{axisHeader(c.Axis), "Tools", "Selection", "Pass", "p50", "Prompt", "Selection 0–100%"}
	for _, p := range c.Points {
		sel := "–"
		if !p.Selection.Empty() {
			sel = fmt.Sprintf("%d/%d %s", p.Selection.K, p.Selection.N, p.Selection.Percent())
		}
		v := curve.FormatValue(p.Value)
		if p.Infra > 0 {
			v += fmt.Sprintf(" (%d infra)", p.Infra)
		}
		rows = append(rows, []string{v, fmt.Sprint(p.Tools), sel, p.Pass.Percent(), secs(p.P50),
			fmt.Sprintf("%.0f", p.PromptTokens), bar(p.Selection.Value(), p.Selection.Empty())})
	}
	return header, rows
}

// axisHeader is an axis as a column's header: "Decoys".
func axisHeader(axis string) string {
	if axis == "" {
		return axis
	}
	return strings.ToUpper(axis[:1]) + axis[1:]
}

// bar draws a fraction as a run of blocks barWidth cells wide at 1, padded
// with dots so the rows line up and the drop reads as empty space.
func bar(v float64, empty bool) string {
	if empty {
		return ""
	}
	eighths := int(math.Round(v * barWidth * 8))
	full, part := eighths/8, eighths%8
	s := strings.Repeat("█", full)
	if part > 0 {
		s += string([]rune(" ▏▎▍▌▋▊▉")[part])
	}
	return s + strings.Repeat("·", barWidth-full-min(part, 1))
}

// crossingLine says where the curve's selection falls below the default
// threshold (curve.DefaultThreshold; compare --sweep takes another).
func crossingLine(c *curve.Curve) string {
	return c.Falls(curve.DefaultThreshold).String(c.Axis)
}

// writeSweepTerminal writes a section per curve of a sweep run; nothing for
// a run that swept nothing.
func writeSweepTerminal(w io.Writer, s *summary.Summary) error {
	for i := range s.Sweep {
		c := &s.Sweep[i]
		fmt.Fprintf(w, "\n%s\n", termtext.Printable(sweepHeading(c)))
		header, rows := sweepTable(c)
		if err := Table(w, header, rows); err != nil {
			return err
		}
		fmt.Fprintln(w, crossingLine(c))
	}
	if len(s.Sweep) > 0 {
		fmt.Fprintln(w, sweepNote)
	}
	return nil
}

// mdSweep writes the Markdown sections of a sweep run's curves.
func mdSweep(b *strings.Builder, s *summary.Summary) {
	for i := range s.Sweep {
		c := &s.Sweep[i]
		fmt.Fprintf(b, "### %s\n\n", mdText(sweepHeading(c)))
		header, rows := sweepTable(c)
		mdRow(b, header)
		b.WriteString("|" + strings.Repeat(" ---: |", len(header)-1) + " --- |\n")
		for _, r := range rows {
			for j := range r {
				r[j] = mdText(r[j])
			}
			// The bar is text in a code span, so its cells keep one width.
			if r[len(r)-1] != "" {
				r[len(r)-1] = "`" + r[len(r)-1] + "`"
			}
			mdRow(b, r)
		}
		fmt.Fprintf(b, "\n%s\n\n", mdText(crossingLine(c)))
	}
	if len(s.Sweep) > 0 {
		b.WriteString(sweepNote + "\n\n")
	}
}
