package choose

import (
	"cmp"
	"slices"

	"github.com/toolgrade/toolgrade/internal/metric"
	"github.com/toolgrade/toolgrade/internal/stats"
)

// quality is the row's value on the choice's metric, higher better: a
// lower-is-better rate is turned around through the metric table.
func (c *Choice) quality(r *Row) float64 {
	m, _ := metric.Lookup(string(c.Metric))
	v := r.Rate(c.Metric).Value()
	if m.LowerIsBetter {
		return 1 - v
	}
	return v
}

// costOf is what "cheaper" orders the row by: its memory or its p50 (see
// Choice.CostBy).
func (c *Choice) costOf(r *Row) float64 {
	if c.CostBy == CostMemory {
		return float64(r.Cost.Size)
	}
	return r.Cost.P50
}

// What "cheaper" orders by.
const (
	CostMemory = "memory"
	CostP50    = "p50"
)

// costBy is CostMemory when every row knows its memory, else CostP50.
func costBy(rows []Row) string {
	for _, r := range rows {
		if r.Cost.Size == 0 {
			return CostP50
		}
	}
	return CostMemory
}

// dominates reports whether a is at least as good as b on the metric and at
// least as cheap on every cost both know (p50, memory), and better or
// cheaper on one: then b is off the frontier.
func (c *Choice) dominates(a, b *Row) bool {
	qa, qb := c.quality(a), c.quality(b)
	if qa < qb {
		return false
	}
	strict := qa > qb
	costs := [][2]float64{{a.Cost.P50, b.Cost.P50}}
	if a.Cost.Size > 0 && b.Cost.Size > 0 {
		costs = append(costs, [2]float64{float64(a.Cost.Size), float64(b.Cost.Size)})
	}
	for _, x := range costs {
		if x[0] > x[1] {
			return false
		}
		strict = strict || x[0] < x[1]
	}
	return strict
}

// markFrontier sets each row's Frontier, or the first model that dominates
// it.
func (c *Choice) markFrontier() {
	for i := range c.Models {
		b := &c.Models[i]
		b.Frontier, b.DominatedBy = true, ""
		for j := range c.Models {
			if i != j && c.dominates(&c.Models[j], b) {
				b.Frontier, b.DominatedBy = false, c.Models[j].Model
				break
			}
		}
	}
}

// bestModel is the reference by default: the best on the metric; of those
// tied, the most expensive, so that a cheaper model as good is the one
// judged against it.
func (c *Choice) bestModel() string {
	best := -1
	for i := range c.Models {
		r := &c.Models[i]
		if r.Scored == 0 {
			continue
		}
		if best < 0 {
			best = i
			continue
		}
		b := &c.Models[best]
		if q, qb := c.quality(r), c.quality(b); q > qb || q == qb && c.costOf(r) > c.costOf(b) {
			best = i
		}
	}
	if best < 0 {
		return ""
	}
	return c.Models[best].Model
}

// sequence is the models the recommendation tests against the reference,
// in order: the models of the frontier cheaper than the reference, from the
// costliest to the cheapest.
func (c *Choice) sequence() []*Row {
	ref := c.Row(c.Reference)
	if ref == nil {
		return nil
	}
	var out []*Row
	for i := range c.Models {
		r := &c.Models[i]
		if r.Frontier && r.Model != c.Reference && r.Scored > 0 && c.costOf(r) < c.costOf(ref) {
			out = append(out, r)
		}
	}
	slices.SortStableFunc(out, func(a, b *Row) int { return cmp.Compare(c.costOf(b), c.costOf(a)) })
	return out
}

// test walks the sequence as a fixed-sequence procedure (Maurer, Hothorn
// and Lehmacher 1995): each model is judged at the full level, in order,
// and the walk stops at the first not shown not worse, so the chance that
// any model is wrongly called not worse stays at the level of one test.
// passed is the cheapest model shown not worse (nil: none), stop the model
// the walk stopped at (nil: every one passed), and tested their names in
// the order judged.
func (c *Choice) test() (passed, stop *Row, tested []string) {
	for _, r := range c.sequence() {
		tested = append(tested, r.Model)
		if r.Versus == nil || r.Versus.Verdict != stats.NINotWorse.String() {
			return passed, r, tested
		}
		passed = r
	}
	return passed, nil, tested
}
