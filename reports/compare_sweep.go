package reports

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/toolgrade/toolgrade/harness/compare"
	"github.com/toolgrade/toolgrade/harness/curve"
)

// WriteSweepCompareTerminal writes a sweep comparison for a terminal: per
// model a table of the points along the axis, each point's own selection
// and pass rates beside the paired change from the line's first point (the
// McNemar verdict on the discordant pairs), then the line that says where
// selection falls below the threshold.
func WriteSweepCompareTerminal(w io.Writer, sc *compare.SweepComparison) error {
	threshold := strconv.FormatFloat(math.Round(sc.Threshold*100*1e6)/1e6, 'f', -1, 64) + "%"
	fmt.Fprintf(w, "Sweep of %s in %s: each point paired with its line's first, case by case and repeat by repeat; threshold %s\n",
		Printable(sc.Axis), Printable(sc.Dir), threshold)
	for i := range sc.Curves {
		c := &sc.Curves[i]
		fmt.Fprintf(w, "\n== %s ==\n", Printable(sweepHeading(&c.Curve)))
		var rows [][]string
		for j, p := range c.Points {
			sel, pass := "", ""
			if g := c.Paired[j]; g != nil {
				sel, pass = pairedCell(g.Rate(compare.MetricSelection)), pairedCell(g.Rate(compare.MetricPass))
			}
			own := "–"
			if !p.Selection.Empty() {
				own = fmt.Sprintf("%d/%d %s", p.Selection.K, p.Selection.N, p.Selection.Percent())
			}
			rows = append(rows, []string{curve.FormatValue(p.Value), fmt.Sprint(p.Tools), own, sel, p.Pass.Percent(), pass})
		}
		if err := Table(w, []string{axisHeader(c.Axis), "Tools", "Selection", "Δ selection (p, verdict)", "Pass", "Δ pass (p, verdict)"}, rows); err != nil {
			return err
		}
		fmt.Fprintf(w, "%s: %s\n", Printable(c.Model), c.Crossing.String(c.Axis))
	}
	fmt.Fprintf(w, "\nEach point's rates over its own scored trials, with 95%% Wilson intervals; Δ over the pairs with no infrastructure error on either side, judged by an exact McNemar test at alpha %.3g (~: no detectable difference). \"Falls below\" is the first point whose rate is under the threshold; \"significantly below\" the first whose whole interval is.\n", sc.Alpha)
	for _, warn := range sc.Warnings {
		fmt.Fprintf(w, "warning: %s\n", Printable(warn))
	}
	return nil
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
