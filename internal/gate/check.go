// Package gate decides whether a run is good enough for CI: gate
// expressions (package expr: `pass>=0.9`, `qwen3:8b:p95<=2s`), read from a
// suite's gates: or from --gate, are checked against a run's summary, and
// each gives a Result that says whether it held, on what value and
// interval. Parsing, checking and rendering are apart, so every command
// judges alike.
package gate

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/toolgrade/toolgrade/internal/curve"
	"github.com/toolgrade/toolgrade/internal/gate/expr"
	"github.com/toolgrade/toolgrade/internal/metric"
	"github.com/toolgrade/toolgrade/internal/srcpos"
	"github.com/toolgrade/toolgrade/internal/summary"
	"github.com/toolgrade/toolgrade/internal/termtext"
)

// The counts --max-regressions judges, never named in an expression: a
// Result's Gate.Metric for Regressions.
const (
	// Regressed is the count of cases that passed in a baseline run and
	// fail now.
	Regressed metric.Name = "regressions"
	// SignificantlyRegressed counts only the regressions the McNemar test
	// supports (--significant-only).
	SignificantlyRegressed metric.Name = "significant_regressions"
)

// On says which number of a rate a gate judges.
type On int

const (
	// OnPoint judges the observed rate k/n. The zero value.
	OnPoint On = iota
	// OnLower judges the pessimistic end of the rate's 95% Wilson interval:
	// the lower bound for >= and > gates (pass>=0.9 holds only when the
	// interval lies at or above 90%), the upper bound for <= and < gates
	// (round_limit<=0.05 holds only when the interval lies at or below 5%).
	// Latencies have no interval and are judged on their value either way.
	OnLower
)

// ParseOn reads --gate-on: point or lower.
func ParseOn(s string) (On, error) {
	switch s {
	case "point", "":
		return OnPoint, nil
	case "lower":
		return OnLower, nil
	}
	return OnPoint, fmt.Errorf("%q: must be point or lower", s)
}

func (o On) String() string {
	if o == OnLower {
		return "lower"
	}
	return "point"
}

// Result is one gate judged on one model (and variant) of a run.
type Result struct {
	Gate expr.Gate
	// Model and Variant are the row of the summary judged; when no row
	// matched, they are the gate's own and Msg says so.
	Model, Variant string
	// Value is the observed rate (a fraction), latency (seconds) or count of
	// regressions; Lo and Hi are a rate's 95% Wilson interval, and equal
	// Value for the others.
	Value, Lo, Hi float64
	// N is how many trials the rate counts (for a latency, the scored trials;
	// for regressions, the cases paired with the baseline). 0 is nothing to
	// judge, and the gate fails.
	N int
	// On is how the gate was judged, and Judged the number compared with the
	// threshold: Value, or with OnLower the pessimistic end of the interval.
	On        On
	Judged    float64
	Threshold float64
	Held      bool
	// Msg says why the gate failed without a comparison (nothing to judge,
	// no such model); empty otherwise.
	Msg string
	// Note is shown after the comparison, such as the McNemar p-value of a
	// significant-regressions gate; empty for most.
	Note string
}

// Check judges every gate on every row of the summary it applies to, in
// the order of the gates, then of the summary's rows (a nil summary has
// none). A gate that names a
// model or variant the summary lacks, or whose rate counts no trial, fails
// with Msg saying so: a gate that cannot be checked never passes.
func Check(s *summary.Summary, gates []expr.Gate, on On) []Result {
	if s == nil {
		s = &summary.Summary{}
	}
	var out []Result
	for _, g := range gates {
		if g.NonInferior() {
			// A run alone has one side: NonInferior judges it on a
			// comparison.
			out = append(out, Result{Gate: g, Model: g.Model, Variant: g.Variant,
				Msg: "nothing to judge: noninferior judges two sides: give it to toolgrade compare --gate"})
			continue
		}
		if g.Point != "" {
			// A sweep point is a variant: the gate judges that variant's
			// rows.
			v, msg := pointVariant(g.Point, s.SweepGrid)
			if msg != "" {
				out = append(out, Result{Gate: g, Model: g.Model, On: on, Threshold: g.Threshold, Msg: msg})
				continue
			}
			g.Variant = cmp.Or(v, "base")
		}
		matched := false
		for i := range s.Models {
			m := &s.Models[i]
			if !applies(g, m) {
				continue
			}
			matched = true
			out = append(out, judge(g, m, on))
		}
		if !matched {
			out = append(out, Result{Gate: g, Model: g.Model, Variant: g.Variant, On: on, Threshold: g.Threshold, Msg: missing(g, s)})
		}
	}
	for i := range out {
		// The point names the row: the gate's line shows it, not its
		// variant as well.
		if out[i].Gate.Point != "" {
			out[i].Gate.Variant, out[i].Variant = "", ""
		}
	}
	return out
}

// pointVariant finds the variant of the grid point a gate names: the point
// whose values match every axis the gate gives and, on the axes it leaves
// out, the base's. msg says why there is none.
func pointVariant(point string, grid []curve.Point) (variant, msg string) {
	if len(grid) == 0 {
		return "", fmt.Sprintf("nothing to judge: @%s names a sweep point, and the run swept nothing (a suite's sweep: runs one)", point)
	}
	want := expr.PointValues(point)
	axes := curve.Axes(grid)
	for k := range want {
		if !slices.Contains(axes, k) {
			hint := fmt.Sprintf("its axes: %s", strings.Join(axes, ", "))
			if s := srcpos.Suggest(k, axes); s != "" {
				hint = fmt.Sprintf("did you mean %q?", s)
			}
			return "", fmt.Sprintf("nothing to judge: unknown sweep axis %q (%s); the sweep's points: %s", k, hint, pointList(grid))
		}
	}
	var base *curve.Point
	for i := range grid {
		if grid[i].Variant == "" {
			base = &grid[i]
		}
	}
	var found []curve.Point
	for _, p := range grid {
		ok := true
		for _, axis := range axes {
			v, given := want[axis]
			switch {
			case given:
				ok = ok && curve.FormatValue(p.Sweep[axis]) == v
			case base != nil:
				ok = ok && curve.CompareValues(p.Sweep[axis], base.Sweep[axis]) == 0
			}
		}
		if ok {
			found = append(found, p)
		}
	}
	switch len(found) {
	case 0:
		return "", fmt.Sprintf("nothing to judge: the sweep has no point %s (its points: %s)", curve.Label(anyMap(want)), pointList(grid))
	case 1:
		return found[0].Variant, ""
	}
	return "", fmt.Sprintf("nothing to judge: @%s matches %s: name every axis", point, pointList(found))
}

func anyMap(m map[string]string) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

// pointList names a grid's points as a gate would: "decoys=0 (base),
// decoys=10, ...", with the tools each offered.
func pointList(grid []curve.Point) string {
	parts := make([]string, len(grid))
	for i, p := range grid {
		parts[i] = fmt.Sprintf("%s (%s, %s)", curve.Label(p.Sweep), p.Name(), termtext.Count(p.Tools, "tool"))
	}
	return strings.Join(parts, ", ")
}

// variantOf is the variant a summary row ran with; "" is the servers' own
// catalog.
func variantOf(m *summary.ModelSummary) string {
	return m.Variant
}

func applies(g expr.Gate, m *summary.ModelSummary) bool {
	if g.Model != "" && g.Model != m.Model {
		return false
	}
	if g.Variant == "" {
		return true
	}
	v := variantOf(m)
	return g.Variant == v || (g.Variant == "base" && v == "")
}

func missing(g expr.Gate, s *summary.Summary) string {
	if len(s.Models) == 0 {
		return "nothing to judge: the run has no results"
	}
	var have []string
	for _, m := range s.Models {
		have = append(have, label(m.Model, variantOf(&m)))
	}
	return fmt.Sprintf("nothing to judge: the run has no results for %s (it has %s)", label(g.Model, g.Variant), strings.Join(have, ", "))
}

func judge(g expr.Gate, m *summary.ModelSummary, on On) Result {
	r := Result{Gate: g, Model: m.Model, Variant: variantOf(m), On: on, Threshold: g.Threshold}
	if g.Metric.Kind() == metric.Latency {
		r.N = m.Pass.N
		r.Value = m.Seconds(g.Metric)
		r.Lo, r.Hi, r.Judged = r.Value, r.Value, r.Value
		if r.N == 0 {
			r.Msg = "nothing to judge: no scored trial has a latency"
			return r
		}
		r.Held = g.Op.Holds(r.Judged, g.Threshold)
		return r
	}
	rate := m.Rate(g.Metric)
	r.N, r.Value, r.Judged = rate.N, rate.Value(), rate.Value()
	r.Lo, r.Hi = rate.Wilson95()
	if r.N == 0 {
		r.Msg = fmt.Sprintf("nothing to judge: no trial counts toward %s", g.Metric)
		return r
	}
	if on == OnLower {
		r.Judged = r.Lo
		if !g.Op.Upward() {
			r.Judged = r.Hi
		}
	}
	r.Held = g.Op.Holds(r.Judged, g.Threshold)
	return r
}

// RegressionCount is what a comparison with a baseline run found for one
// model and variant, the input of the --max-regressions gate.
type RegressionCount struct {
	Model, Variant string
	// Paired is how many cases were paired with the baseline; 0 is nothing
	// to judge.
	Paired int
	// Regressed is how many cases passed in the baseline and fail now.
	Regressed int
	// Significant is how many of those the McNemar test supports: Regressed
	// when the pass rate's verdict is "worse" at the comparison's alpha,
	// else 0.
	Significant int
	// P is the McNemar p-value of the pass rate, shown with --significant-only.
	P float64
}

// Regressions judges --max-regressions: each model and variant may have at
// most max regressed cases (with significantOnly, only those the McNemar
// test supports count). No count at all fails: nothing was compared.
func Regressions(counts []RegressionCount, max int, significantOnly bool) []Result {
	name := Regressed
	if significantOnly {
		name = SignificantlyRegressed
	}
	g := expr.Gate{Expr: fmt.Sprintf("%s<=%d", name, max), Metric: name, Op: expr.LE, Threshold: float64(max)}
	if len(counts) == 0 {
		return []Result{{Gate: g, Threshold: g.Threshold, Msg: "nothing to judge: no case was paired with the baseline"}}
	}
	var out []Result
	for _, c := range counts {
		n := c.Regressed
		if significantOnly {
			n = c.Significant
		}
		r := Result{Gate: g, Model: c.Model, Variant: c.Variant, N: c.Paired, Threshold: g.Threshold,
			Value: float64(n), Lo: float64(n), Hi: float64(n), Judged: float64(n)}
		if significantOnly {
			r.Note = fmt.Sprintf("McNemar p=%.3g", c.P)
		}
		if c.Paired == 0 {
			r.Msg = "nothing to judge: no case was paired with the baseline"
		} else {
			r.Held = g.Op.Holds(r.Judged, g.Threshold)
		}
		out = append(out, r)
	}
	return out
}

// Failed counts the results that did not hold.
func Failed(rs []Result) int {
	n := 0
	for _, r := range rs {
		if !r.Held {
			n++
		}
	}
	return n
}
