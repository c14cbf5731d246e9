package compare

import (
	"fmt"
	"testing"
	"time"

	"github.com/toolgrade/toolgrade/internal/record"
)

// The latency test counts cases, not repeats: 3 cases run 10 times each,
// every one slower now, are 3 latencies a side (each its case's median),
// too few for any verdict, where 30 trials a side would have made one; a
// copy's latency (no model time) is no part of its case's median.
func TestLatencyTestCountsCases(t *testing.T) {
	var base, cur []*record.Trial
	for c := range 3 {
		for rep := range 10 {
			id := fmt.Sprintf("case-%d", c)
			base = append(base, trial("m", "", id, rep, record.OutcomePass, time.Second+time.Duration(rep)*time.Millisecond))
			cur = append(cur, trial("m", "", id, rep, record.OutcomePass, 2*time.Second+time.Duration(rep)*time.Millisecond))
		}
	}
	// A copy: its wall time is its original's, not a measure.
	from := 0
	cur[9].CopyOf, cur[9].Transcript.Wall = &from, time.Hour
	c, _, err := Runs(writeRun(t, baseRun(), base), writeRun(t, baseRun(), cur), nil)
	if err != nil {
		t.Fatal(err)
	}
	l := c.Groups[0].Latency[0]
	if l.Name != "trial" || l.Cases != (SidePair[int]{3, 3}) || !l.TooFew || l.Verdict != Same {
		t.Errorf("trial latency %+v: want 3 cases a side, too few for a verdict", l)
	}
	if l.Dist.Current.N != 29 || l.Dist.Current.P95 >= 3 {
		t.Errorf("current %+v: want 29 trials (the copy left out), none an hour long", l.Dist.Current)
	}
	// A case's median is its middle latency, or the mean of the middle two.
	ga := newGroupAcc(groupKey{"m", ""}, nil, 0, 0)
	for i := range 3 {
		ga.cases = append(ga.cases, &caseAcc{wallAt: [2]int{i * 2, 0}})
	}
	got := ga.caseMedians([2][]float64{{1, 3, 5, 6, 9, 7, 8}, nil}, func(c *caseAcc) [2]int { return c.wallAt })
	if fmt.Sprint(got[0]) != "[2 5.5 8]" || len(got[1]) != 0 {
		t.Errorf("case medians %v, want [2 5.5 8] and none", got)
	}
}
