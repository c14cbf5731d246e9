package compare

import (
	"fmt"
	"slices"
	"strings"

	"github.com/toolgrade/toolgrade/internal/termtext"
)

// UnpairedNotes says, one line each, which cases c could not pair and why:
// the cases whose question or expectation changed between the two sides,
// then per group the cases with trials on one side only, because the other
// side never ran the group (another model or variant) or not that case
// (added or removed since). What `run --baseline` prints, so a regression
// count over fewer cases than the suite has is never a surprise.
func (c *Comparison) UnpairedNotes() []string {
	side := map[string]string{"base": "the baseline", "current": "this run"}
	if c.Mode != ModeRuns {
		side = map[string]string{"base": c.Base, "current": c.Current}
	}
	var out []string
	if n := len(c.ChangedCases); n > 0 {
		out = append(out, fmt.Sprintf("%s not paired: changed since %s (question or expectation edited under the same id): %s",
			termtext.Count(n, "case"), side["base"], strings.Join(c.ChangedCases, ", ")))
	}
	for i := range c.Groups {
		g := &c.Groups[i]
		label := groupLabel(g)
		for _, s := range []string{"base", "current"} {
			var cases []string
			for _, u := range g.Unpaired {
				if u.Side == s {
					cases = append(cases, u.Case)
				}
			}
			if len(cases) == 0 {
				continue
			}
			other := side[map[string]string{"base": "current", "current": "base"}[s]]
			why := fmt.Sprintf("%s did not run %s", other, termtext.Plural(len(cases), "it", "them"))
			if g.Pairs == 0 {
				why = fmt.Sprintf("%s has no trials of %s", other, label)
			}
			slices.Sort(cases)
			out = append(out, fmt.Sprintf("%s: %s not paired, in %s only (%s): %s",
				label, termtext.Count(len(cases), "case"), side[s], why, strings.Join(cases, ", ")))
		}
	}
	return out
}
