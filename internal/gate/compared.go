package gate

import (
	"github.com/toolgrade/toolgrade/internal/compare"
	"github.com/toolgrade/toolgrade/internal/gate/expr"
	"github.com/toolgrade/toolgrade/internal/metric"
	"github.com/toolgrade/toolgrade/internal/summary"
)

// RegressionCounts are a comparison's regressions per group, for the
// regressions gate. A regression is significant when its group's pass rate is
// judged worse by the exact McNemar test at the comparison's alpha.
func RegressionCounts(c *compare.Comparison) []RegressionCount {
	var counts []RegressionCount
	for i := range c.Groups {
		g := &c.Groups[i]
		rc := RegressionCount{Model: g.Model, Variant: g.Variant, Paired: g.Pairs, Regressed: g.Regressions, P: 1}
		if pass := g.Rate(metric.Pass); pass != nil {
			rc.P = pass.P
			if pass.Verdict == compare.Worse {
				rc.Significant = g.Regressions
			}
		}
		counts = append(counts, rc)
	}
	return counts
}

// CheckCompared judges gates as Check does, except the non-inferiority
// ones, which NonInferior judges on c; a nil c is Check alone.
func CheckCompared(s *summary.Summary, c *compare.Comparison, gates []expr.Gate, on On) []Result {
	if c == nil {
		return Check(s, gates, on)
	}
	var rest []expr.Gate
	for _, g := range gates {
		if !g.NonInferior() {
			rest = append(rest, g)
		}
	}
	return append(Check(s, rest, on), NonInferior(c, gates)...)
}
