package stats

import (
	"maps"
	"slices"
)

// Counts is a distribution of small integers, such as the rounds a trial
// used. Memory grows with the number of distinct values, not of values
// added. The zero value is ready to use; it is not safe for concurrent use.
type Counts struct {
	m     map[int]int
	total int
	sum   int64
}

// ValueCount is one entry of Counts.Sorted.
type ValueCount struct {
	Value, Count int
}

// Add records one occurrence of v.
func (c *Counts) Add(v int) {
	if c.m == nil {
		c.m = make(map[int]int)
	}
	c.m[v]++
	c.total++
	c.sum += int64(v)
}

// Merge adds every occurrence recorded in other.
func (c *Counts) Merge(other *Counts) {
	if other == nil || other.total == 0 {
		return
	}
	if c.m == nil {
		c.m = make(map[int]int, len(other.m))
	}
	for v, n := range other.m {
		c.m[v] += n
	}
	c.total += other.total
	c.sum += other.sum
}

// Total is the number of values added.
func (c *Counts) Total() int { return c.total }

// Mean is the average value, or 0 when Total is 0.
func (c *Counts) Mean() float64 {
	if c.total == 0 {
		return 0
	}
	return float64(c.sum) / float64(c.total)
}

// Sorted lists each distinct value with its count, in increasing value.
func (c *Counts) Sorted() []ValueCount {
	out := make([]ValueCount, 0, len(c.m))
	for _, v := range slices.Sorted(maps.Keys(c.m)) {
		out = append(out, ValueCount{Value: v, Count: c.m[v]})
	}
	return out
}
