package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/toolgrade/toolgrade/internal/compare"
	"github.com/toolgrade/toolgrade/internal/metric"
	"github.com/toolgrade/toolgrade/internal/stats"
	"github.com/toolgrade/toolgrade/internal/termtext"
)

// WriteCompareTerminal writes a comparison for a terminal: what differs
// between the sides first (drift is never hidden), then per group the rates
// with their paired verdicts, latency, costs, and the cases that regressed
// or were fixed.
func WriteCompareTerminal(w io.Writer, c *compare.Comparison) error {
	baseH, curH := "base", "current"
	switch c.Mode {
	case compare.ModeRuns:
		fmt.Fprintf(w, "Comparing runs: %s → %s\n", termtext.Printable(c.Base), termtext.Printable(c.Current))
	case compare.ModeModels:
		fmt.Fprintf(w, "Comparing models in %s: %s → %s\n", termtext.Printable(c.Dirs[0]), termtext.Printable(c.Base), termtext.Printable(c.Current))
		baseH, curH = c.Base, c.Current
	case compare.ModeVariants:
		fmt.Fprintf(w, "Comparing variants in %s: %s → %s\n", termtext.Printable(c.Dirs[0]), termtext.Printable(c.Base), termtext.Printable(c.Current))
		baseH, curH = c.Base, c.Current
	}
	writeDrift(w, c)
	var notes footnotes
	for i := range c.Groups {
		g := &c.Groups[i]
		writeGroupHead(w, g, c.Mode)
		rows, byCall := rateRows(g, &notes)
		if err := Table(w, []string{"Metric", baseH, curH, "Delta", "Worse/better pairs", "p", "Verdict"}, rows); err != nil {
			return err
		}
		for _, l := range byCall {
			fmt.Fprintln(w, l)
		}
		if err := writeMarginTable(w, c, g, baseH, curH); err != nil {
			return err
		}
		if err := Table(w, []string{"Latency (p50 / p95)", baseH, curH, "Delta p50", "p", "Verdict"}, latencyRows(g, &notes)); err != nil {
			return err
		}
		if err := Table(w, []string{"Cost", baseH, curH}, costRows(g)); err != nil {
			return err
		}
		writeCases(w, g)
	}
	fmt.Fprintf(w, "\nRates over the scored pairs, with 95%% Wilson intervals; verdicts from McNemar's test on the discordant pairs (rates) and a Mann-Whitney U test (latency), at alpha %.3g; ~ means no detectable difference. A case is the unit of evidence: the rates and McNemar's test count a case's repeats as one cluster (exact with one repeat a case; otherwise on the pairs divided by their design effect), and the latency test compares one latency a case, its median over its repeats.\n", c.Alpha)
	if notes.rates {
		fmt.Fprintf(w, "¹ too few discordant pairs for any verdict at alpha %.3g (even all of them one way would not reach it)\n", c.Alpha)
	}
	if notes.latency {
		fmt.Fprintf(w, "² too few cases for any latency verdict at alpha %.3g\n", c.Alpha)
	}
	writeMarginNote(w, c)
	for _, warn := range c.Warnings {
		fmt.Fprintf(w, "warning: %s\n", termtext.Printable(warn))
	}
	return nil
}

// footnotes says which footnotes the tables of a comparison called for.
type footnotes struct{ rates, latency bool }

// writeGroupHead writes a group's heading and what its pairs are made of.
func writeGroupHead(w io.Writer, g *compare.Group, mode string) {
	fmt.Fprintf(w, "\n== %s ==\n", termtext.Printable(compare.GroupLabel(g, mode)))
	if g.Evidence.Cases > 0 {
		// A case is the unit of evidence: say it before the pairs.
		fmt.Fprintf(w, "%s; ", g.Evidence)
	}
	fmt.Fprintf(w, "%s, %d scored (infrastructure errors: %d base, %d current, kept out of every rate)", termtext.Count(g.Pairs, "pair"), g.Scored, g.Infra.Base, g.Infra.Current)
	if n := g.Truncated.Base + g.Truncated.Current; n > 0 {
		fmt.Fprintf(w, "; truncated (a prompt reached num_ctx, kept out): %d base, %d current", g.Truncated.Base, g.Truncated.Current)
	}
	if n := g.UnpairedCount.Base + g.UnpairedCount.Current; n > 0 {
		fmt.Fprintf(w, "; unpaired: %d base only, %d current only", g.UnpairedCount.Base, g.UnpairedCount.Current)
	}
	if n := g.ChangedTrials.Base + g.ChangedTrials.Current; n > 0 {
		fmt.Fprintf(w, "; %s of changed cases left out", termtext.Count(n, "trial"))
	}
	fmt.Fprintln(w)
}

// rateRows are the rows of a group's rate table, each rate named as the
// metric table's Short names it, and for each row that reads differently
// when counted by call, a line that says why and gives that count.
func rateRows(g *compare.Group, notes *footnotes) (rows [][]string, byCall []string) {
	for _, r := range shownRates(g) {
		v := r.Verdict
		if r.TooFew {
			v += " ¹"
			notes.rates = true
		}
		rows = append(rows, []string{rateName(r), rateCell(r.Rate.Base), rateCell(r.Rate.Current), deltaPts(r), fmt.Sprintf("%d/%d", r.Worse, r.Better), pval(r.P), v})
		if r.ByCall != nil && (pct(r.ByCall.Base) != pct(r.Rate.Base) || pct(r.ByCall.Current) != pct(r.Rate.Current)) {
			byCall = append(byCall, byCallLine(r))
		}
	}
	return rows, byCall
}

// byCallLine says why a rate that run's table counts by call reads
// differently here, and gives it as run counts it: shown only when the
// percentages differ, since only then does the reader see two numbers.
func byCallLine(r compare.RateRow) string {
	return fmt.Sprintf("%s here judges trials (valid when all their calls were), to pair them; run's table counts calls: %s → %s",
		metric.Get(r.Metric).Short, callCell(r.ByCall.Base), callCell(r.ByCall.Current))
}

func callCell(r stats.Rate) string {
	return fmt.Sprintf("%s (%d/%s)", pct(r), r.K, termtext.Count(r.N, "call"))
}

// pct is a rate's value as the tables round it, "–" when empty.
func pct(r stats.Rate) string {
	if r.Empty() {
		return "–"
	}
	return fmt.Sprintf("%.0f%%", 100*r.Value())
}

// latencyRows are the rows of a group's latency table.
func latencyRows(g *compare.Group, notes *footnotes) [][]string {
	var rows [][]string
	for _, l := range g.Latency {
		v := l.Verdict
		if l.TooFew {
			v += " ²"
			notes.latency = true
		}
		rows = append(rows, []string{l.Name + " latency", dist(l.Dist.Base), dist(l.Dist.Current), deltaPct(l), pval(l.P), v})
	}
	return rows
}

func writeDrift(w io.Writer, c *compare.Comparison) {
	if c.Mode != compare.ModeRuns {
		fmt.Fprintln(w, "Drift: one run: Ollama, options, seeds and suite are the same on both sides.")
	} else if len(c.Drift) == 0 {
		fmt.Fprintln(w, "Drift: none: the runs used the same models, Ollama, options, seeds and suite.")
	} else {
		fmt.Fprintln(w, "Drift (settings that differ between the runs):")
		for _, d := range c.Drift {
			fmt.Fprintf(w, "  %s: %s → %s\n", termtext.Printable(d.Field), termtext.Printable(d.Base), termtext.Printable(d.Current))
		}
	}
	if len(c.Catalog) > 0 {
		fmt.Fprintln(w, "Tool catalog changes:")
		for _, ch := range c.Catalog {
			where := ch.Variant
			if ch.Tool != "" {
				where += ": " + ch.Tool
			}
			if ch.Param != "" {
				where += "." + ch.Param
			}
			fmt.Fprintf(w, "  %s: %s", termtext.Printable(where), ch.Change)
			switch {
			case ch.Base != "" && ch.Current != "":
				fmt.Fprintf(w, "\n    - %s\n    + %s\n", indent(termtext.Printable(ch.Base), "      "), indent(termtext.Printable(ch.Current), "      "))
			case ch.Base != "":
				fmt.Fprintf(w, "\n    - %s\n", indent(termtext.Printable(ch.Base), "      "))
			case ch.Current != "":
				fmt.Fprintf(w, "\n    + %s\n", indent(termtext.Printable(ch.Current), "      "))
			default:
				fmt.Fprintln(w)
			}
		}
	} else if c.Mode != compare.ModeModels {
		fmt.Fprintln(w, "Tool catalogs: the same.")
	}
	if len(c.ChangedCases) > 0 {
		fmt.Fprintf(w, "Changed cases (question or expectation edited under the same id; not paired): %s\n", termtext.Printable(strings.Join(c.ChangedCases, ", ")))
	}
}

func writeCases(w io.Writer, g *compare.Group) {
	for _, kind := range []string{compare.KindRegression, compare.KindFix} {
		n := g.Fixes
		title := "Fixes"
		if kind == compare.KindRegression {
			n, title = g.Regressions, "Regressions"
		}
		if n == 0 {
			continue
		}
		fmt.Fprintf(w, "%s (%d", title, n)
		if kind == compare.KindRegression && repeated(g) {
			// With one repeat no case's own test can support it: saying
			// "0 supported" then would only alarm.
			fmt.Fprintf(w, ", %s", supported(g.SupportedRegressions, n))
		}
		fmt.Fprintln(w, "):")
		for _, ch := range g.Cases {
			if ch.Kind != kind {
				continue
			}
			fmt.Fprintf(w, "  %s: %d/%d → %d/%d passed; #%d %s → %s", termtext.Printable(ch.Case), ch.Pass.Base.K, ch.Pass.Base.N, ch.Pass.Current.K, ch.Pass.Current.N,
				ch.Repeat, ch.Outcome.Base, ch.Outcome.Current)
			switch {
			case ch.Detail != "" && kind == compare.KindFix:
				fmt.Fprintf(w, " (was: %s)", indent(termtext.Printable(ch.Detail), "    "))
			case ch.Detail != "":
				fmt.Fprintf(w, ": %s", indent(termtext.Printable(ch.Detail), "    "))
			}
			fmt.Fprintln(w)
		}
	}
	if len(g.Unpaired) > 0 {
		fmt.Fprintln(w, "Unpaired (on one side only, not compared):")
		for _, u := range g.Unpaired {
			reps := make([]string, len(u.Repeats))
			for i, r := range u.Repeats {
				reps[i] = fmt.Sprintf("#%d", r)
			}
			fmt.Fprintf(w, "  %s only: %s %s\n", u.Side, termtext.Printable(u.Case), strings.Join(reps, " "))
		}
	}
}

// supported says how many of n regressions their own cases' repeats
// support, in words that agree with the counts.
func supported(k, n int) string {
	switch {
	case n == 1 && k == 1:
		return "supported by its own repeats"
	case n == 1:
		return "not supported by its own repeats"
	case k == 0:
		return "none supported by their own repeats"
	case k == n:
		return "all supported by their own repeats"
	}
	return fmt.Sprintf("%d supported by their own repeats", k)
}

// repeated reports whether any changed case of g ran more than once.
func repeated(g *compare.Group) bool {
	for _, ch := range g.Cases {
		if ch.Pass.Base.N > 1 || ch.Pass.Current.N > 1 {
			return true
		}
	}
	return false
}

func costRows(g *compare.Group) [][]string {
	b, c := g.Cost.Base, g.Cost.Current
	var rows [][]string
	if b.Model != nil || c.Model != nil {
		rows = append(rows,
			[]string{"model", modelCell(b.Model), modelCell(c.Model)},
			[]string{"warm-up load", secs(warm(b.Model)), secs(warm(c.Model))})
	}
	return append(rows,
		[]string{"eval tokens per trial", fmt.Sprintf("%.1f", b.EvalPerTrial), fmt.Sprintf("%.1f", c.EvalPerTrial)},
		[]string{"tokens per second", fmt.Sprintf("%.0f", b.TokensPerSecond), fmt.Sprintf("%.0f", c.TokensPerSecond)},
		[]string{"prompt / eval tokens", count(b.PromptTokens) + " / " + count(b.EvalTokens), count(c.PromptTokens) + " / " + count(c.EvalTokens)},
		[]string{"load inside trials", secs(b.LoadSeconds), secs(c.LoadSeconds)},
	)
}

func modelCell(m *compare.ModelInfo) string {
	if m == nil {
		return "–"
	}
	parts := []string{m.Name}
	for _, s := range []string{m.ParameterSize, m.Quantization} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	if m.Digest != "" {
		d := m.Digest
		if len(d) > 12 {
			d = d[:12]
		}
		parts = append(parts, d)
	}
	return strings.Join(parts, " ")
}

func warm(m *compare.ModelInfo) float64 {
	if m == nil {
		return 0
	}
	return m.WarmupSeconds
}

func rateCell(r stats.Rate) string {
	if r.Empty() {
		return "–"
	}
	return fmt.Sprintf("%s (%d/%d)", r.Percent(), r.K, r.N)
}

func deltaPts(r compare.RateRow) string {
	if r.Rate.Base.N == 0 || r.Rate.Current.N == 0 {
		return "–"
	}
	return fmt.Sprintf("%+.1f pts", 100*r.Delta)
}

func deltaPct(l compare.LatencyRow) string {
	if l.Dist.Base.N == 0 || l.Dist.Current.N == 0 || l.Dist.Base.P50 == 0 {
		return "–"
	}
	return fmt.Sprintf("%+.1f%%", 100*l.Delta)
}

func dist(d compare.Dist) string {
	if d.N == 0 {
		return "–"
	}
	return secs(d.P50) + " / " + secs(d.P95)
}

// pval renders a p-value as benchstat does: three decimals, "p<0.001" below.
func pval(p float64) string {
	if p < 0.001 {
		return "<0.001"
	}
	return fmt.Sprintf("%.3f", math.Min(p, 1))
}

// WriteCompareJSON writes the comparison as indented JSON; its "format"
// field versions the schema.
func WriteCompareJSON(w io.Writer, c *compare.Comparison) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(c)
}

// sameAsStrict reports whether the coerced validity row r of g reads as
// its strict validity row on both sides.
func sameAsStrict(g *compare.Group, r compare.RateRow) bool {
	for _, s := range g.Rates {
		if s.Metric == metric.ArgValidity {
			return s.Rate.Base.K == r.Rate.Base.K && s.Rate.Base.N == r.Rate.Base.N &&
				s.Rate.Current.K == r.Rate.Current.K && s.Rate.Current.N == r.Rate.Current.N
		}
	}
	return false
}
