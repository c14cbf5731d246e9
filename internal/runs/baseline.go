package runs

import (
	"context"
	"fmt"
	"io"

	"github.com/toolgrade/toolgrade/internal/compare"
	"github.com/toolgrade/toolgrade/internal/gate"
	"github.com/toolgrade/toolgrade/internal/store"
	"github.com/toolgrade/toolgrade/internal/termtext"
)

// CountRegressions is the regression count of run --baseline: the baseline and the run
// compared as `toolgrade compare BASE CURRENT` compares them, one count per
// (model, variant) of the comparison; a regression is significant when its
// group's pass rate is judged worse by the exact McNemar test at alpha. It
// says on w which cases it could not pair with the baseline and why
// (changed cases, a model, variant or case one side did not run), so the
// count's scope is plain.
func CountRegressions(w io.Writer) func(ctx context.Context, baseline, current string, alpha float64) ([]gate.RegressionCount, error) {
	return func(_ context.Context, baseline, current string, alpha float64) ([]gate.RegressionCount, error) {
		c, err := compareWithBaseline(baseline, current, alpha)
		if err != nil {
			return nil, err
		}
		for _, n := range c.UnpairedNotes() {
			fmt.Fprintf(w, "toolgrade: --baseline %s: %s\n", baseline, termtext.Printable(n))
		}
		return gate.RegressionCounts(c), nil
	}
}

// compareWithBaseline compares the run in current with the baseline run as
// `toolgrade compare BASE CURRENT` does.
func compareWithBaseline(baseline, current string, alpha float64) (*compare.Comparison, error) {
	base, err := store.Open(baseline)
	if err != nil {
		return nil, err
	}
	cur, err := store.Open(current)
	if err != nil {
		return nil, err
	}
	c, _, err := compare.Runs(base, cur, &compare.Options{Alpha: alpha})
	return c, err
}
