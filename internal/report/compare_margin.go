package report

import (
	"fmt"
	"github.com/toolgrade/toolgrade/internal/termtext"
	"io"
	"strings"

	"github.com/toolgrade/toolgrade/internal/compare"
	"github.com/toolgrade/toolgrade/internal/metric"
	"github.com/toolgrade/toolgrade/internal/stats"
)

// writeMarginTable writes a group's non-inferiority table when the
// comparison has a margin: per rate shown in the rate table, the paired
// difference with its interval, the McNemar verdict again, and the margin's
// verdict, so the two questions sit side by side.
func writeMarginTable(w io.Writer, c *compare.Comparison, g *compare.Group, baseH, curH string) error {
	if c.Margin <= 0 {
		return nil
	}
	var rows [][]string
	var advice adviceLines
	for _, r := range shownRates(g) {
		ni := r.NonInferiority
		if ni == nil {
			continue
		}
		test := r.Verdict
		if r.TooFew {
			test += " ¹"
		}
		rows = append(rows, []string{rateName(r), stats.PointsInterval(ni.Diff, ni.Lo, ni.Hi, ni.Margin), test, ni.Reading()})
		advice.add(rateName(r), ni.Advice())
	}
	if len(rows) == 0 {
		return nil
	}
	head := []string{"Margin " + stats.Points(c.Margin), curH + " − " + baseH + " [95% interval]", "Difference test", "Non-inferiority of " + curH}
	if err := Table(w, head, rows); err != nil {
		return err
	}
	advice.write(w)
	return nil
}

// adviceLines gathers what would decide each undecided rate, one line per
// piece of advice with the rates it is for: repeats that agree give every
// rate the same words.
type adviceLines struct {
	texts []string
	names map[string][]string
}

// add records advice for the rate called name; "" is none.
func (a *adviceLines) add(name, advice string) {
	if advice == "" {
		return
	}
	if a.names == nil {
		a.names = map[string][]string{}
	}
	if _, ok := a.names[advice]; !ok {
		a.texts = append(a.texts, advice)
	}
	a.names[advice] = append(a.names[advice], name)
}

// write writes "pass, selection: write about 62 more cases", one line per
// piece of advice, in the order first given.
func (a *adviceLines) write(w io.Writer) {
	for _, t := range a.texts {
		fmt.Fprintln(w, termtext.Printable(strings.Join(a.names[t], ", ")+": "+t))
	}
}

// writeMarginNote explains the margin tables under a comparison, once: how
// the verdict is reached and how it reads beside the difference test.
func writeMarginNote(w io.Writer, c *compare.Comparison) {
	if c.Margin <= 0 {
		return
	}
	m := stats.Points(c.Margin)
	fmt.Fprintf(w, "Margin %s: Tango's 95%% score interval of the paired difference; not worse by more than %s when the interval lies above -%s (below +%s for a lower-is-better rate), worse by more than %s when it lies wholly beyond. "+
		"The difference test asks another question: worse beside \"not worse by more than %s\" is a real loss smaller than the margin, and ~ beside \"undecided\" is no evidence that the two are alike. "+
		"A case is the unit of evidence: the pairs of one case are one cluster, so repeats that agree count once (the interval and the test run on the pairs divided by their design effect). "+
		"~N cases: the cases that would decide with 80%% power if the rates, the discordance and the agreement of repeats stayed as observed (toolgrade plan).\n", m, m, m, m, m, m)
}

// shownRates are the rate rows a group's tables show. A metric neither side
// has (irrelevance without no-tool cases) is left out, as benchstat leaves
// out absent units, and coerced validity when coercion changed no call on
// either side: the row would repeat arg_validity.
func shownRates(g *compare.Group) []compare.RateRow {
	var out []compare.RateRow
	for _, r := range g.Rates {
		if r.Rate.Base.N == 0 && r.Rate.Current.N == 0 {
			continue
		}
		if r.Metric == metric.ArgValidityCoerced && sameAsStrict(g, r) {
			continue
		}
		out = append(out, r)
	}
	return out
}

// rateName is a rate's name in compare's tables, saying which way is
// better when lower is.
func rateName(r compare.RateRow) string {
	name := metric.Get(r.Metric).Short
	if r.LowerIsBetter {
		name += " (lower is better)"
	}
	return name
}
