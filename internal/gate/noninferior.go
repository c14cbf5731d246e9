package gate

import (
	"fmt"
	"strings"

	"github.com/toolgrade/toolgrade/internal/compare"
	"github.com/toolgrade/toolgrade/internal/gate/expr"
	"github.com/toolgrade/toolgrade/internal/stats"
)

// NonInferior judges the non-inferiority gates among gates
// (noninferior(METRIC, MARGIN)) on a comparison: each holds on a group when
// the current side is shown not worse than the base on that rate by more
// than the gate's margin, whatever margin the comparison itself was judged
// at. A gate holds only when it holds on every group its scope names; a
// gate whose scope names none, or a group with no pair that defines the
// rate, fails saying so. Other gates are left to Check.
func NonInferior(c *compare.Comparison, gates []expr.Gate) []Result {
	var out []Result
	for _, g := range gates {
		if !g.NonInferior() {
			continue
		}
		matched := false
		for i := range c.Groups {
			grp := &c.Groups[i]
			if !inScope(g, c, grp) {
				continue
			}
			matched = true
			out = append(out, judgeNonInferior(g, c, grp))
		}
		if !matched {
			msg := fmt.Sprintf("nothing to judge: the comparison has no group for %s", label(g.Model, g.Variant))
			if c.Mode != compare.ModeRuns {
				msg += fmt.Sprintf(" (it judges %s against %s)", c.Current, c.Base)
			}
			out = append(out, Result{Gate: g, Model: g.Model, Variant: g.Variant, Msg: msg})
		}
	}
	return out
}

// inScope reports whether a gate's MODEL[@VARIANT] names a group: the
// group's model and variant, or in a comparison of models (variants) the
// current side, the candidate.
func inScope(g expr.Gate, c *compare.Comparison, grp *compare.Group) bool {
	model, variant := grp.Model, compare.VariantLabel(grp.Variant)
	switch c.Mode {
	case compare.ModeModels:
		model = c.Current
	case compare.ModeVariants:
		variant = c.Current
	}
	return (g.Model == "" || g.Model == model) && (g.Variant == "" || g.Variant == variant)
}

func judgeNonInferior(g expr.Gate, c *compare.Comparison, grp *compare.Group) Result {
	r := Result{Gate: g, Model: versus(c, grp), Threshold: -g.Margin}
	row := grp.Rate(g.Metric)
	var ni *compare.NonInferiority
	if row != nil {
		ni = row.JudgeNonInferiority(g.Margin)
	}
	if ni == nil {
		r.Msg = fmt.Sprintf("nothing to judge: no pair counts toward %s on both sides", g.Metric)
		return r
	}
	r.N, r.Value, r.Lo, r.Hi, r.Judged = ni.Pairs, ni.Diff, ni.Lo, ni.Hi, ni.Lo
	r.Held = ni.Verdict == stats.NINotWorse.String()
	r.Note = fmt.Sprintf("%s over %s: %s", stats.PointsInterval(ni.Diff, ni.Lo, ni.Hi, g.Margin), ni.Evidence, ni.Reading())
	return r
}

// versus names what a non-inferiority gate judged: the candidate against
// the reference, and the group.
func versus(c *compare.Comparison, grp *compare.Group) string {
	switch c.Mode {
	case compare.ModeModels:
		return strings.TrimSuffix(fmt.Sprintf("%s vs %s @%s", c.Current, c.Base, grp.Variant), " @")
	case compare.ModeVariants:
		return fmt.Sprintf("%s@%s vs @%s", grp.Model, c.Current, c.Base)
	}
	return label(grp.Model, grp.Variant) + " current vs base"
}
