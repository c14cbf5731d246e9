// Package gate decides whether a run is good enough for CI: gate
// expressions such as `pass>=0.9` or `qwen3:8b:p95<=2s`, read from a suite's
// gates: or from --gate, are checked against a run's summary, and each gives
// a Result that says whether it held, on what value and interval. Parsing,
// checking and rendering are apart, so every command judges alike.
//
// The grammar is [MODEL[@VARIANT]:]METRIC[@POINT] OP THRESHOLD. Model names hold
// colons (qwen3:8b), so the metric is the part after the last colon of the
// left-hand side; the scope before it is a model, with an optional @VARIANT
// (the variant alone, @new:pass>=0.9, applies to every model). OP is >=, <=,
// > or <. A rate's threshold is a fraction (0.9) or a percentage (90%); a
// latency's is a duration (2s, 500ms). @POINT names a grid point of a sweep
// run (a suite's sweep:): a number is the point with that many decoys
// (selection@60>=0.8; @0 is the base), AXIS=VALUE pairs joined by + name
// others (pass@think=true, @decoys=10+think=true); axes left out are held
// at the base's values.
package gate

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/toolgrade/toolgrade/internal/srcpos"
)

// Metric is what a gate judges, named as summary.json names it.
type Metric string

// The metrics a gate may name: every rate of a model's summary, and the
// median and 95th percentile of a trial's wall time.
const (
	Pass        Metric = "pass"
	Selection   Metric = "tool_selection"
	ArgValidity Metric = "arg_validity"
	// ArgValidityCoerced is argument validity once the arguments are
	// coerced as a lenient client would ("5" → 5).
	ArgValidityCoerced Metric = "arg_validity_coerced"
	ArgAccuracy        Metric = "arg_accuracy"
	Irrelevance        Metric = "irrelevance"
	RoundLimit         Metric = "round_limit"
	P50                Metric = "p50"
	P95                Metric = "p95"
	// Regressed is the count of cases that passed in a baseline run and
	// fail now; it comes from --max-regressions, never from an expression.
	Regressed Metric = "regressions"
	// SignificantlyRegressed counts only the regressions the McNemar test
	// supports (--significant-only).
	SignificantlyRegressed Metric = "significant_regressions"
)

// metricNames maps every name an expression may use to its metric, so
// `selection` (the report's column) works as well as `tool_selection`.
var metricNames = map[string]Metric{
	"pass": Pass, "tool_selection": Selection, "selection": Selection,
	"arg_validity": ArgValidity, "arg_validity_coerced": ArgValidityCoerced, "arg_accuracy": ArgAccuracy, "irrelevance": Irrelevance,
	"round_limit": RoundLimit, "p50": P50, "p95": P95,
}

// MetricNames lists the names an expression may use, in the order messages
// list them.
func MetricNames() []string {
	return []string{"pass", "tool_selection", "selection", "arg_validity", "arg_validity_coerced", "arg_accuracy", "irrelevance", "round_limit", "p50", "p95"}
}

// Latency reports whether m is a duration rather than a rate.
func (m Metric) Latency() bool { return m == P50 || m == P95 }

// Op is a gate's comparison.
type Op string

// The comparisons a gate may use.
const (
	GE Op = ">="
	LE Op = "<="
	GT Op = ">"
	LT Op = "<"
)

// Holds reports whether v op threshold.
func (o Op) Holds(v, threshold float64) bool {
	switch o {
	case GE:
		return v >= threshold
	case LE:
		return v <= threshold
	case GT:
		return v > threshold
	case LT:
		return v < threshold
	}
	return false
}

// Upward reports whether higher values are better under o (>= and >).
func (o Op) Upward() bool { return o == GE || o == GT }

// Not is the comparison that holds exactly when o does not, for the line of
// a failed gate: pass>=0.9 fails as "44% < 90%".
func (o Op) Not() Op {
	switch o {
	case GE:
		return LT
	case LE:
		return GT
	case GT:
		return LE
	}
	return GE
}

// Gate is one parsed expression.
type Gate struct {
	// Expr is the expression as written, without surrounding space.
	Expr string
	// Model is the model the gate applies to; "" applies it to every model,
	// and each must hold.
	Model string
	// Variant is the tool-description variant it applies to; "" applies it
	// to every variant, "base" is the servers' own catalog.
	Variant string
	Metric  Metric
	// Point is the sweep grid point the gate judges, as written after the
	// metric's @ ("60", "think=true"); "" judges every row it applies to.
	Point string
	Op    Op
	// Threshold is a fraction in [0, 1] for a rate, seconds for a latency,
	// and a count of cases for the regressions gates.
	Threshold float64
}

// SyntaxError is an expression that does not parse. Offset is the byte of
// the string given to ParseOne where the problem starts, so a suite can point
// at its column; Expr is that string without surrounding space.
type SyntaxError struct {
	Expr   string
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("gate %q: %s", e.Expr, e.Msg) }

const grammar = "want [MODEL:]METRIC OP VALUE, such as pass>=0.9, qwen3:8b:p95<=2s, round_limit<5% or selection@60>=0.8"

// ParseOne parses one expression; its error is a *SyntaxError.
func ParseOne(expr string) (Gate, error) {
	lead := len(expr) - len(strings.TrimLeft(expr, " \t"))
	text := strings.TrimSpace(expr)
	bad := func(off int, format string, a ...any) (Gate, error) {
		return Gate{}, &SyntaxError{Expr: text, Offset: lead + max(0, off), Msg: fmt.Sprintf(format, a...)}
	}
	if text == "" {
		return bad(0, "empty; %s", grammar)
	}
	i := strings.IndexAny(text, "<>")
	if i < 0 {
		if j := strings.Index(text, "="); j >= 0 {
			return bad(j, "no comparison: use >=, <=, > or <")
		}
		return bad(len(text), "no comparison; %s", grammar)
	}
	op := Op(text[i : i+1])
	end := i + 1
	if end < len(text) && text[end] == '=' {
		op += "="
		end++
	}
	if i > 0 && strings.ContainsRune("=!", rune(text[i-1])) {
		return bad(i-1, "no comparison %q: use >=, <=, > or <", text[i-1:end])
	}
	g := Gate{Expr: text, Op: op}

	lhs := text[:i]
	metricAt := strings.LastIndex(lhs, ":") + 1
	name := strings.TrimSpace(lhs[metricAt:])
	nameAt := metricAt + len(lhs[metricAt:]) - len(strings.TrimLeft(lhs[metricAt:], " \t"))
	if name == "" {
		return bad(nameAt, "no metric before %s (known metrics: %s)", op, strings.Join(MetricNames(), ", "))
	}
	if at := strings.Index(name, "@"); at >= 0 {
		point := strings.TrimSpace(name[at+1:])
		if msg := checkPoint(point); msg != "" {
			return bad(nameAt+at+1, "%s", msg)
		}
		name, g.Point = strings.TrimSpace(name[:at]), point
		if name == "" {
			return bad(nameAt, "no metric before @%s (known metrics: %s)", point, strings.Join(MetricNames(), ", "))
		}
	}
	m, ok := metricNames[name]
	if !ok {
		return bad(nameAt, "%s", srcpos.Unknown("metric", name, MetricNames()))
	}
	g.Metric = m
	if metricAt > 0 {
		scope := strings.TrimSpace(lhs[:metricAt-1])
		if scope == "" {
			return bad(0, "nothing before %q: give a model (qwen3:8b:%s) or leave the colon out", ":", name)
		}
		g.Model = scope
		if at := strings.LastIndex(scope, "@"); at >= 0 && !strings.ContainsAny(scope[at+1:], ":/") {
			g.Model, g.Variant = strings.TrimSpace(scope[:at]), strings.TrimSpace(scope[at+1:])
			if g.Variant == "" {
				return bad(at, "no variant after @")
			}
			if g.Point != "" {
				return bad(at, "give a variant (@%s before the metric) or a sweep point (@%s after it), not both: a point is a variant", g.Variant, g.Point)
			}
		}
	}

	rhs := text[end:]
	valAt := end + len(rhs) - len(strings.TrimLeft(rhs, " \t"))
	val := strings.TrimSpace(rhs)
	if val == "" {
		return bad(len(text), "no value after %s; %s", op, grammar)
	}
	t, err := threshold(m, val)
	if err != nil {
		return bad(valAt, "%s", err)
	}
	g.Threshold = t
	if !m.Latency() && ((op == GT && t >= 1) || (op == LT && t <= 0)) {
		return bad(valAt, "%s %s %s can never hold", name, op, val)
	}
	return g, nil
}

// checkPoint says what is wrong with a sweep point as written after a
// metric's @; "" when it reads: a count of decoys, or AXIS=VALUE pairs
// joined by +.
func checkPoint(p string) string {
	const want = "a number of decoys (selection@60) or AXIS=VALUE pairs joined by + (pass@think=true)"
	if p == "" {
		return "no sweep point after @: give " + want
	}
	if _, err := strconv.ParseUint(p, 10, 32); err == nil {
		return ""
	}
	for _, part := range strings.Split(p, "+") {
		k, v, ok := strings.Cut(part, "=")
		if !ok || strings.TrimSpace(k) == "" || strings.TrimSpace(v) == "" {
			return fmt.Sprintf("sweep point %q: give %s", p, want)
		}
	}
	return ""
}

// PointValues is a gate's Point as axis → value, as the values read in a
// point's name (curve.FormatValue): "60" is decoys=60.
func PointValues(point string) map[string]string {
	if point == "" {
		return nil
	}
	if _, err := strconv.ParseUint(point, 10, 32); err == nil {
		return map[string]string{"decoys": point}
	}
	out := map[string]string{}
	for _, part := range strings.Split(point, "+") {
		k, v, _ := strings.Cut(part, "=")
		out[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return out
}

// threshold reads a gate's value: a duration for a latency, else a
// fraction or a percentage.
func threshold(m Metric, val string) (float64, error) {
	if m.Latency() {
		d, err := time.ParseDuration(val)
		if err != nil {
			return 0, fmt.Errorf("%s is a latency: give a duration such as 2s or 500ms, not %q", m, val)
		}
		if d < 0 {
			return 0, fmt.Errorf("%s: a latency cannot be negative (%s)", m, val)
		}
		return d.Seconds(), nil
	}
	num, scale := val, 1.0
	if strings.HasSuffix(val, "%") {
		num, scale = strings.TrimSpace(strings.TrimSuffix(val, "%")), 100
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%s is a rate: give a fraction such as 0.9 or a percentage such as 90%%, not %q", m, val)
	}
	f /= scale
	if f < 0 || f > 1 {
		return 0, fmt.Errorf("%s is a rate: %s is outside 0–1 (0%%–100%%)", m, val)
	}
	return f, nil
}

// Parse parses every expression, in order, and returns every problem at
// once (each a *SyntaxError, joined).
func Parse(exprs ...string) ([]Gate, error) {
	var out []Gate
	var errs []error
	for _, e := range exprs {
		g, err := ParseOne(e)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, g)
	}
	return out, errors.Join(errs...)
}
