package stats

import (
	"reflect"
	"testing"
)

func TestCounts(t *testing.T) {
	var c Counts
	if c.Total() != 0 || c.Mean() != 0 || len(c.Sorted()) != 0 {
		t.Fatalf("zero Counts: Total %d, Mean %v, Sorted %v", c.Total(), c.Mean(), c.Sorted())
	}
	for _, v := range []int{3, 1, 2, 2, 5, 2} {
		c.Add(v)
	}
	want := []ValueCount{{1, 1}, {2, 3}, {3, 1}, {5, 1}}
	if got := c.Sorted(); !reflect.DeepEqual(got, want) {
		t.Errorf("Sorted() = %v, want %v", got, want)
	}
	if c.Total() != 6 {
		t.Errorf("Total() = %d, want 6", c.Total())
	}
	if m := c.Mean(); m != 15.0/6 { // (3+1+2+2+5+2)/6
		t.Errorf("Mean() = %v, want 2.5", m)
	}

	var d Counts
	d.Add(1)
	d.Add(8)
	c.Merge(&d)
	c.Merge(nil)
	c.Merge(&Counts{})
	want = []ValueCount{{1, 2}, {2, 3}, {3, 1}, {5, 1}, {8, 1}}
	if got := c.Sorted(); !reflect.DeepEqual(got, want) {
		t.Errorf("after Merge, Sorted() = %v, want %v", got, want)
	}
	if m := c.Mean(); m != 24.0/8 {
		t.Errorf("after Merge, Mean() = %v, want 3", m)
	}
	var e Counts
	e.Merge(&d)
	if e.Total() != 2 || e.Mean() != 4.5 {
		t.Errorf("Merge into zero Counts: Total %d, Mean %v", e.Total(), e.Mean())
	}
}
