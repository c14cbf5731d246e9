package score

import (
	"slices"
	"testing"
)

// TestEachReading: every combination but all-ints up to the cap, past it
// all-floats and each number alone either way; stopping ends the walk.
func TestEachReading(t *testing.T) {
	count := func(n int) (k int, seen [][]bool) {
		eachReading(n, func(r []bool) bool { k++; seen = append(seen, slices.Clone(r)); return true })
		return k, seen
	}
	if k, seen := count(3); k != 7 || slices.ContainsFunc(seen, func(r []bool) bool { return !slices.Contains(r, true) }) {
		t.Errorf("3 numbers: %d readings %v, want the 7 with a float", k, seen)
	}
	if k, seen := count(maxRoundTripSlots + 1); k != 1+2*(maxRoundTripSlots+1) || slices.Contains(seen[0], false) {
		t.Errorf("past the cap: %d readings, first %v", k, seen[0])
	}
	k := 0
	eachReading(4, func([]bool) bool { k++; return k < 2 })
	if k != 2 {
		t.Errorf("stopped after %d readings, want 2", k)
	}
}
