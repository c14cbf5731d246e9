package report

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/toolgrade/toolgrade/internal/metric"
	"github.com/toolgrade/toolgrade/internal/summary"
	"github.com/toolgrade/toolgrade/internal/termtext"
)

// WriteTerminal writes the human report: one row per model, then for a
// sweep run a table per model and axis of the sweep, then the failing trials
// grouped by outcome, then warnings. Text from the trials (names,
// details quoting what a model answered) goes through termtext.Printable.
func WriteTerminal(w io.Writer, s *summary.Summary) error {
	variants := s.HasVariants()
	// The table leaves round_limit to each row's line under it.
	header, rows := modelTable(s, variants, metric.RoundLimit)
	if err := Table(w, header, rows); err != nil {
		return err
	}
	fmt.Fprintln(w, "Rates with 95% Wilson intervals, a case's repeats counted as one cluster (a case is the unit of evidence); infrastructure errors are counted apart, never as model failures.")
	writeSkippedTerminal(w, s)
	writeModelLines(w, s, variants)
	writeRunLines(w, s)
	if err := writeSweepTerminal(w, s); err != nil {
		return err
	}
	if err := writeBFCLTerminal(w, s, variants); err != nil {
		return err
	}
	writeFailures(w, s, variants)
	if len(s.Warnings) > 0 {
		fmt.Fprintln(w, "\nWarnings:")
		for _, warn := range s.Warnings {
			fmt.Fprintf(w, "  %s\n", termtext.Printable(warn))
		}
	}
	return nil
}

// modelTable is the model table of the terminal and Markdown reports: per
// row its scored trials, the rates the metric table marks Column (but
// skip), the mean rounds, the Column latencies and tokens per second. The
// cells are unescaped.
func modelTable(s *summary.Summary, variants bool, skip metric.Name) (header []string, rows [][]string) {
	rates := sparseRates(slices.DeleteFunc(metric.Select(metric.Rate, metric.Column), func(m metric.Metric) bool { return m.Name == skip }), s)
	latencies := metric.Select(metric.Latency, metric.Column)
	header = []string{"Model", "Trials"}
	for _, r := range rates {
		header = append(header, r.Label)
	}
	header = append(header, "Rounds")
	for _, l := range latencies {
		header = append(header, l.Label)
	}
	header = append(header, "tok/s")
	for i := range s.Models {
		m := &s.Models[i]
		row := []string{m.Label(variants), fmt.Sprint(m.Scored)}
		for _, r := range rates {
			row = append(row, m.Rate(r.Name).Percent())
		}
		row = append(row, fmt.Sprintf("%.2f", m.RoundsMean))
		for _, l := range latencies {
			row = append(row, secs(m.Seconds(l.Name)))
		}
		rows = append(rows, append(row, fmt.Sprintf("%.0f", m.TokensPerSecond)))
	}
	return header, rows
}

// writeModelLines writes each row's lines under the table: its trials,
// rounds and costs, its notes, its repeat-based figures.
func writeModelLines(w io.Writer, s *summary.Summary, variants bool) {
	for _, m := range s.Models {
		fmt.Fprintf(w, "%s: %s (%s); %srounds %s, round limit hit %s; per round p50 %s p95 %s; %s prompt and %s eval tokens; warm-up load %s\n",
			termtext.Printable(m.Label(variants)), termtext.Count(m.Trials, "trial"), termtext.Count(m.Infra, "infrastructure error"), evidence(m), roundsDist(m.Rounds), m.RoundLimit.Percent(), secs(m.RoundLatency.P50), secs(m.RoundLatency.P95),
			count(m.PromptTokens), count(m.EvalTokens), secs(m.WarmupSeconds))
	}
	for _, m := range s.Models {
		for _, line := range notes(m) {
			fmt.Fprintf(w, "%s: %s\n", termtext.Printable(m.Label(variants)), line)
		}
	}
	for _, m := range s.Models {
		if m.PassAtK != nil {
			fmt.Fprintf(w, "%s: %s\n", termtext.Printable(m.Label(variants)), passAtK(m))
		}
	}
}

// writeRunLines writes what run.json adds: server restarts, early
// stopping, rescoring.
func writeRunLines(w io.Writer, s *summary.Summary) {
	if len(s.ServerRestarts) > 0 {
		names := slices.Sorted(maps.Keys(s.ServerRestarts))
		parts := make([]string, len(names))
		for i, n := range names {
			parts[i] = fmt.Sprintf("%s %d", n, s.ServerRestarts[n])
		}
		fmt.Fprintf(w, "server restarts: %s\n", strings.Join(parts, ", "))
	}
	if se := s.StopEarly; se != nil {
		fmt.Fprintf(w, "stop-early: %s saved (SPRT per case, pass rate ≤ %.2f vs ≥ %.2f, α %.2f, β %.2f)\n",
			termtext.Count(se.TrialsSaved, "trial"), max(se.Threshold-se.Delta, 0), min(se.Threshold+se.Delta, 1), se.Alpha, se.Beta)
	}
	if s.RescoredFrom != "" {
		fmt.Fprintf(w, "rescored from %s: transcripts judged again, nothing rerun\n", termtext.Printable(s.RescoredFrom))
	}
}

// writeFailures writes each row's failing trials by outcome, a few
// examples of each.
func writeFailures(w io.Writer, s *summary.Summary, variants bool) {
	for _, m := range s.Models {
		groups := failureGroups(m)
		if len(groups) == 0 {
			continue
		}
		fmt.Fprintf(w, "\nFailures of %s:\n", termtext.Printable(m.Label(variants)))
		for _, g := range groups {
			fmt.Fprintf(w, "  %s (%d)\n", g.Outcome, g.Count)
			for _, ex := range g.Examples {
				fmt.Fprintf(w, "    %s #%d", termtext.Printable(ex.Case), ex.Repeat)
				if ex.Detail != "" {
					fmt.Fprintf(w, ": %s", indent(termtext.Printable(ex.Detail), "      "))
				}
				fmt.Fprintln(w)
			}
			if g.Count > len(g.Examples) {
				fmt.Fprintf(w, "    ... and %d more\n", g.Count-len(g.Examples))
			}
		}
	}
}

func secs(s float64) string {
	switch {
	case s == 0:
		return "–"
	case s < 1:
		return fmt.Sprintf("%.0fms", s*1000)
	default:
		return fmt.Sprintf("%.2fs", s)
	}
}

func indent(s, prefix string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+prefix)
}

// count renders a token count compactly: 950, 12.3k, 4.56M.
func count(n int) string {
	switch {
	case n < 10_000:
		return fmt.Sprint(n)
	case n < 10_000_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	default:
		return fmt.Sprintf("%.2fM", float64(n)/1e6)
	}
}

// roundsDist renders the rounds distribution as "1:12 2:30 3:4".
func roundsDist(d map[int]int) string {
	keys := make([]int, 0, len(d))
	for k := range d {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d:%d", k, d[k])
	}
	return strings.Join(parts, " ")
}

// notes are the lines a report adds under the table for one row, each only
// when it has something to say: validity as shown and if coerced, repeated
// calls, trials excluded as truncated.
func notes(m summary.ModelSummary) []string {
	var out []string
	for _, line := range []string{shownValidity(m), coercedValidity(m), repeatedCalls(m), excluded(m), judged(m)} {
		if line != "" {
			out = append(out, line)
		}
	}
	return out
}

// coercedValidity says how validity reads once arguments are coerced as a
// lenient client would; "" when coercion makes no invalid call valid.
func coercedValidity(m summary.ModelSummary) string {
	n := m.ArgValidityCoerced.K - m.ArgValidity.K
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf("arg validity %s, valid if coerced %s: %d %s valid once coerced as a lenient client would (\"5\" → 5, \"true\" → true)",
		m.ArgValidity.Percent(), m.ArgValidityCoerced.Percent(), n, termtext.Plural(n, "call was", "calls were"))
}

// repeatedCalls counts the calls that repeated an earlier one; "" for none.
func repeatedCalls(m summary.ModelSummary) string {
	if m.RepeatedCalls == 0 {
		return ""
	}
	return fmt.Sprintf("%d %s an earlier call of the same trial with the same arguments", m.RepeatedCalls, termtext.Plural(m.RepeatedCalls, "call repeated", "calls repeated"))
}

// excluded counts the trials kept out of the rates as truncated; "" for none.
func excluded(m summary.ModelSummary) string {
	if m.Excluded == 0 {
		return ""
	}
	return fmt.Sprintf("%d %s out of every rate: a prompt reached num_ctx", m.Excluded, termtext.Plural(m.Excluded, "trial kept", "trials kept"))
}

// shownValidity says how validity reads against the schema the model was
// shown, when that differs from validity against the full schema; "" when
// no call broke only hidden constraints, which keeps reports of such runs
// as they were.
func shownValidity(m summary.ModelSummary) string {
	hidden := m.ArgValidityShown.K - m.ArgValidity.K
	if hidden <= 0 {
		return ""
	}
	return fmt.Sprintf("arg validity (as shown) %s, arg validity %s: %s broke only constraints the model was not shown",
		m.ArgValidityShown.Percent(), m.ArgValidity.Percent(), termtext.Count(hidden, "call"))
}

// evidence is what a row's rates rest on, "scored: 11 cases (110 trials,
// repeats agree on 11 of 11 cases); ", the one phrasing of stats.Evidence;
// "" for a summary written before it was kept.
func evidence(m summary.ModelSummary) string {
	if m.Evidence.Cases == 0 {
		return ""
	}
	return "scored: " + m.Evidence.String() + "; "
}

// passAtK is a model's figures over its repeats: pass@k, pass^k, and its
// cases by how they fared across them.
func passAtK(m summary.ModelSummary) string {
	return fmt.Sprintf("pass@%d %.1f%%, pass^%d %.1f%%; cases: %d stable-pass, %d stable-fail, %d flaky",
		m.K, 100**m.PassAtK, m.K, 100**m.PassHatK, m.Stable, m.Failing, len(m.Flaky))
}
