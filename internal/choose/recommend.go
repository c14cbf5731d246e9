package choose

import (
	"fmt"
	"math"
	"strings"

	"github.com/toolgrade/toolgrade/internal/stats"
)

// recommend states the one recommendation from the walk along the
// frontier (see test): the cheapest model shown not worse than the
// reference at the margin, with what it saves and what stopped the walk;
// else the reference kept, or what the data cannot decide and how many
// cases would: a case is the unit of evidence, so the advice is cases, and
// more repeats only where the run's repeats disagreed enough to help.
func (c *Choice) recommend() Recommendation {
	ref := c.Row(c.Reference)
	passed, stop, tested := c.test()
	c.Tested = tested
	switch {
	case len(c.Models) == 1:
		return Recommendation{Model: c.Reference, Kind: KindOnly,
			Text: fmt.Sprintf("%s: the only model of the run; run several (--models a,b) to choose between them", c.Reference)}
	case ref == nil:
		return Recommendation{Kind: KindUndecided, Text: "no model has a scored trial: nothing to choose from"}
	case passed != nil:
		c.Candidate = passed.Model
		r := Recommendation{Model: passed.Model, Kind: KindCandidate,
			Text: fmt.Sprintf("%s: not worse than %s by more than %s %s%s", passed.Model, c.Reference, stats.Points(c.Margin), c.testWords(passed.Versus), savings(&passed.Cost, &ref.Cost))}
		if stop != nil {
			r.Text += fmt.Sprintf("; %s, cheaper still, %s", stop.Model, c.verdictWords(stop.Versus))
		}
		return r
	case stop == nil:
		return Recommendation{Model: c.Reference, Kind: KindReference,
			Text: fmt.Sprintf("%s: no model of the frontier is cheaper (by %s); none is as good on %s for less", c.Reference, c.costWords(), c.Metric)}
	}
	c.Candidate = stop.Model
	v := stop.Versus
	switch {
	case v == nil:
		return Recommendation{Kind: KindUndecided,
			Text: fmt.Sprintf("undecided: %s and %s share no paired trial (same case and repeat) on %s", stop.Model, c.Reference, c.Metric)}
	case v.Verdict == stats.NIWorse.String():
		return Recommendation{Model: c.Reference, Kind: KindReference,
			Text: fmt.Sprintf("%s: keep it; %s is worse by more than %s %s", c.Reference, stop.Model, stats.Points(c.Margin), c.testWords(v))}
	}
	r := Recommendation{Kind: KindUndecided, CasesNeeded: v.CasesNeeded, MoreCases: v.MoreCases(),
		PairsNeeded: v.PairsNeeded, MorePairs: max(v.PairsNeeded-v.Pairs, 0)}
	head := fmt.Sprintf("undecided: %s against %s at %s %s", stop.Model, c.Reference, stats.Points(c.Margin), c.testWords(v))
	if v.CasesNeeded == 0 {
		r.Text = fmt.Sprintf("%s; it trails by %s, beyond the margin: more cases would more likely show it worse than within %s",
			head, stats.Points(-v.Diff), stats.Points(c.Margin))
		return r
	}
	r.Text = fmt.Sprintf("%s; about %s would decide: %s", head, cases(v.CasesNeeded), v.Advice())
	return r
}

// testWords is a verdict's test and what it rests on: "on pass (interval
// −3.1 to +1.2) over 11 cases (110 trials, repeats agree on 11 of 11
// cases)".
func (c *Choice) testWords(v *Versus) string {
	return fmt.Sprintf("on %s (interval %s) over %s", c.Metric, PointsRange(v.Lo, v.Hi), v.Evidence)
}

// verdictWords says where the walk stopped: "is worse by more than 5 pts
// on pass (...)", or undecided with the pairs that would decide.
func (c *Choice) verdictWords(v *Versus) string {
	switch {
	case v == nil:
		return "shares no paired trial with it"
	case v.Verdict == stats.NIWorse.String():
		return "is worse by more than " + stats.Points(c.Margin) + " " + c.testWords(v)
	case v.CasesNeeded > 0:
		return fmt.Sprintf("is undecided %s: about %s would decide", c.testWords(v), cases(v.CasesNeeded))
	}
	return "is undecided " + c.testWords(v)
}

// costWords names what "cheaper" orders by.
func (c *Choice) costWords() string {
	if c.CostBy == CostMemory {
		return "memory"
	}
	return "p50 latency"
}

// savings is what the candidate saves against the reference: ", 3.1×
// faster at p50, 1.2 GB vs 5.2 GB", each part when both sides know it.
func savings(cand, ref *Cost) string {
	var parts []string
	if cand.P50 > 0 && ref.P50 > 0 {
		switch ratio := ref.P50 / cand.P50; {
		case ratio >= 1.05:
			parts = append(parts, fmt.Sprintf("%.1f× faster at p50", ratio))
		case ratio <= 1/1.05:
			parts = append(parts, fmt.Sprintf("%.1f× slower at p50", 1/ratio))
		default:
			parts = append(parts, "as fast at p50")
		}
	}
	if cand.Size > 0 && ref.Size > 0 {
		parts = append(parts, Bytes(cand.Size)+" vs "+Bytes(ref.Size))
	}
	if len(parts) == 0 {
		return ""
	}
	return ", " + strings.Join(parts, ", ")
}

// cases is "73 cases".
func cases(n int) string {
	if n == 1 {
		return "1 case"
	}
	return fmt.Sprintf("%d cases", n)
}

// PointsRange renders an interval of a difference of rates in signed
// percentage points to one decimal, "−3.1 to +1.2", rounded outwards so it
// never claims more than the computed interval.
func PointsRange(lo, hi float64) string {
	return signed(math.Floor(1000*lo)/10) + " to " + signed(math.Ceil(1000*hi)/10)
}

// SignedPoints renders a difference in signed points, "+1.2 pts".
func SignedPoints(d float64) string {
	return signed(math.Round(1000*d)/10) + " pts"
}

func signed(p float64) string {
	switch {
	case p > 0:
		return fmt.Sprintf("+%.1f", p)
	case p < 0:
		return fmt.Sprintf("−%.1f", -p)
	}
	return "0.0"
}

// Bytes renders a size as Ollama does, in decimal units: "5.2 GB",
// "640 MB"; 0 (unknown) is "–".
func Bytes(n int64) string {
	switch {
	case n <= 0:
		return "–"
	case n >= 1e9:
		return fmt.Sprintf("%.1f GB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.0f MB", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.0f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d B", n)
}
