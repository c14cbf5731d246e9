// Package expr parses gate expressions such as `pass>=0.9` or
// `qwen3:8b:p95<=2s`, as a suite's gates: and --gate give them. It is a
// leaf, importing only srcpos and metric, so that loading a suite checks
// its gates without reaching what checks or renders them (package gate).
//
// The grammar is [MODEL[@VARIANT]:]METRIC[@POINT] OP THRESHOLD. Model names hold
// colons (qwen3:8b), so the metric is the part after the last colon of the
// left-hand side; the scope before it is a model, with an optional @VARIANT
// (the variant alone, @new:pass>=0.9, applies to every model). METRIC is
// one the metric table marks Gated, by its name or an alias (selection).
// OP is >=, <=, > or <. A rate's threshold is a fraction (0.9) or a
// percentage (90%); a latency's is a duration (2s, 500ms). @POINT names a
// grid point of a sweep run (a suite's sweep:): a number is the point with
// that many decoys (selection@60>=0.8; @0 is the base), AXIS=VALUE pairs
// joined by + name others (pass@think=true, @decoys=10+think=true); axes
// left out are held at the base's values.
//
// A comparison's gate is [MODEL[@VARIANT]:]noninferior(METRIC, MARGIN): it
// holds when the current side is shown not worse than the base by more than
// MARGIN (5pts, 5% or 0.05) on that rate (see ParseMargin).
package expr

import (
	"errors"
	"fmt"

	"github.com/toolgrade/toolgrade/internal/metric"
)

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
	// Metric is the metric judged, by its name in the table (an alias as
	// written is resolved: selection is tool_selection).
	Metric metric.Name
	// Point is the sweep grid point the gate judges, as written after the
	// metric's @ ("60", "think=true"); "" judges every row it applies to.
	Point string
	Op    Op
	// Threshold is a fraction in [0, 1] for a rate, seconds for a latency,
	// and a count of cases for the regressions gates.
	Threshold float64
	// Margin is set (above 0) on a non-inferiority gate,
	// noninferior(METRIC, MARGIN), which judges a comparison rather than a
	// run: it holds when the current side is shown not worse than the base
	// on Metric by more than Margin. Op and Threshold are unset on it.
	Margin float64
}

// NonInferior reports whether g is a non-inferiority gate, which judges a
// comparison (see Margin).
func (g Gate) NonInferior() bool { return g.Margin > 0 }

// SyntaxError is an expression that does not parse. Offset is the byte of
// the string given to ParseOne where the problem starts, so a suite can point
// at its column; Expr is that string without surrounding space.
type SyntaxError struct {
	Expr   string
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("gate %q: %s", e.Expr, e.Msg) }

// MetricNames lists the names an expression may use, each metric's aliases
// right after it, in the order messages list them.
func MetricNames() []string { return metric.Names(metric.Gated) }

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
