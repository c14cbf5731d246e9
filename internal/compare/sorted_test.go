package compare

import (
	"fmt"
	"testing"
)

// A side's trials pair in key order whatever order they were given in,
// groups and cases shuffled, and of two trials with one key the later
// counts, as a map from key to trial would keep it.
func TestSideSortedIsKeyOrderLastWins(t *testing.T) {
	s := newSide()
	give := func(model, caseID string, repeat int, outcome string) {
		s.keep(pairKey{groupKey{model, ""}, caseID, repeat}, &slim{outcome: outcome})
	}
	give("n", "b", 0, "1")
	give("m", "b", 1, "2")
	give("m", "a", 0, "3")
	give("n", "a", 0, "4")
	give("m", "b", 0, "5")
	give("m", "a", 0, "6") // supersedes 3
	give("m", "b", 1, "7") // supersedes 2
	var got []string
	for _, k := range s.sorted() {
		got = append(got, fmt.Sprintf("%s/%s#%d=%s", k.k.g.model, k.k.caseID, k.k.repeat, k.sl.outcome))
	}
	want := "[m/a#0=6 m/b#0=5 m/b#1=7 n/a#0=4 n/b#0=1]"
	if fmt.Sprint(got) != want {
		t.Errorf("sorted %v, want %s", got, want)
	}
}
