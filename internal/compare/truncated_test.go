package compare

import (
	"testing"
	"time"

	"github.com/toolgrade/toolgrade/internal/metric"
	"github.com/toolgrade/toolgrade/internal/record"
)

// TestTruncatedPairsLeftOut: a pair with a trial whose prompt reached
// num_ctx is counted apart and judged in no rate, unless KeepTruncated.
func TestTruncatedPairsLeftOut(t *testing.T) {
	cut := trial("m", "", "b", 0, record.OutcomeNoCall, time.Second)
	cut.Score.Truncated = true
	base := writeRun(t, baseRun(), []*record.Trial{
		trial("m", "", "a", 0, record.OutcomePass, time.Second),
		trial("m", "", "b", 0, record.OutcomePass, time.Second),
	})
	cur := writeRun(t, baseRun(), []*record.Trial{
		trial("m", "", "a", 0, record.OutcomePass, time.Second),
		cut,
	})
	c, _, err := Runs(base, cur, nil)
	if err != nil {
		t.Fatal(err)
	}
	g := c.Groups[0]
	if g.Pairs != 2 || g.Scored != 1 || g.Truncated.Current != 1 || g.Truncated.Base != 0 || g.Regressions != 0 {
		t.Errorf("pairs %d, scored %d, truncated %+v, regressions %d; want 2, 1, {0 1}, 0", g.Pairs, g.Scored, g.Truncated, g.Regressions)
	}
	c, _, err = Runs(base, cur, &Options{KeepTruncated: true})
	if err != nil {
		t.Fatal(err)
	}
	g = c.Groups[0]
	if g.Scored != 2 || g.Truncated.Current != 0 || g.Regressions != 1 {
		t.Errorf("KeepTruncated: scored %d, truncated %+v, regressions %d; want 2, {0 0}, 1", g.Scored, g.Truncated, g.Regressions)
	}
	var coerced *RateRow
	for i := range g.Rates {
		if g.Rates[i].Metric == metric.ArgValidityCoerced {
			coerced = &g.Rates[i]
		}
	}
	if coerced == nil {
		t.Fatalf("no %s row in %+v", metric.ArgValidityCoerced, g.Rates)
	}
}

// TestTruncatedAsTheRunsRecorded: without KeepTruncated, the runs' own
// options decide (record.JudgeOptionsOf): truncated trials are paired only
// when both runs kept them, so both sides are judged alike.
func TestTruncatedAsTheRunsRecorded(t *testing.T) {
	cut := trial("m", "", "b", 0, record.OutcomeNoCall, time.Second)
	cut.Score.Truncated = true
	trials := []*record.Trial{trial("m", "", "a", 0, record.OutcomePass, time.Second), cut}
	kept := baseRun()
	kept.KeepTruncated = true
	for _, tc := range []struct {
		name       string
		base, cur  *record.Run
		wantScored int
	}{
		{"neither kept", baseRun(), baseRun(), 1},
		{"only the current kept", baseRun(), kept, 1},
		{"both kept", kept, kept, 2},
	} {
		c, _, err := Runs(writeRun(t, tc.base, trials), writeRun(t, tc.cur, trials), nil)
		if err != nil {
			t.Fatal(err)
		}
		if g := c.Groups[0]; g.Scored != tc.wantScored {
			t.Errorf("%s: scored pairs %d, want %d", tc.name, g.Scored, tc.wantScored)
		}
	}
	// One run: its own options.
	cutN := trial("n", "", "b", 0, record.OutcomeNoCall, time.Second)
	cutN.Score.Truncated = true
	both := append(trials, trial("n", "", "a", 0, record.OutcomePass, time.Second), cutN)
	m, _, err := Models(writeRun(t, kept, both), "m", "n", nil)
	if err != nil {
		t.Fatal(err)
	}
	if g := m.Groups[0]; g.Scored != 2 {
		t.Errorf("models of a run that kept them: scored pairs %d, want 2", g.Scored)
	}
}
