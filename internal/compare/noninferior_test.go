package compare

import (
	"math"
	"testing"

	"github.com/toolgrade/toolgrade/internal/metric"
	"github.com/toolgrade/toolgrade/internal/stats"
	"github.com/toolgrade/toolgrade/internal/store"
)

// A lower-is-better rate is judged through the metric table's direction:
// round_limit hit on 10 more of 100 pairs by current is a loss of 10 points,
// and the same counts on a higher-is-better rate a gain.
func TestNonInferiorityFollowsTheTable(t *testing.T) {
	// 10 pairs met by current only, none by base only.
	up := handRow(RateRow{Metric: metric.Pass, Better: 10}, 40, 50)
	down := handRow(RateRow{Metric: metric.RoundLimit, LowerIsBetter: true, Worse: 10}, 40, 50)
	if up.PairedCounts() != down.PairedCounts() {
		t.Fatalf("the same pairs count differently: %+v, %+v", up.PairedCounts(), down.PairedCounts())
	}
	u, d := up.JudgeNonInferiority(0.05), down.JudgeNonInferiority(0.05)
	if u.Diff != 0.1 || d.Diff != 0.1 || u.Lo != d.Lo || u.Hi != d.Hi {
		t.Errorf("the interval is not in the rate's own sense: pass %+v, round_limit %+v", u, d)
	}
	if u.Verdict != "not_worse" || u.Words != "not worse by more than 5 pts" {
		t.Errorf("pass up 10 points: %s %q", u.Verdict, u.Words)
	}
	if d.Verdict != "worse" || d.Words != "worse by more than 5 pts" || d.PairsNeeded != 0 {
		t.Errorf("round_limit up 10 points: %s %q (needs %d)", d.Verdict, d.Words, d.PairsNeeded)
	}
	// The verdict is the stats package's on the flipped counts.
	lo, hi := stats.PairedDiffInterval(down.PairedCounts().Flip(), NILevel)
	if math.Abs(d.Lo+hi) > 1e-12 || math.Abs(d.Hi+lo) > 1e-12 {
		t.Errorf("round_limit interval (%v, %v), want the mirror of (%v, %v)", d.Lo, d.Hi, lo, hi)
	}
	if (&RateRow{}).JudgeNonInferiority(0.05) != nil {
		t.Error("a row with no pair is judged")
	}
}

// Undecided says how many pairs would decide: with no discordant pair and
// equal rates, z²·(1−M)/M = 73 at 5 points.
func TestUndecidedSaysThePairsNeeded(t *testing.T) {
	row := handRow(RateRow{Metric: metric.Pass}, 20, 2)
	ni := row.JudgeNonInferiority(0.05)
	if ni.Verdict != "undecided" || ni.Words != "undecided: need more cases" || ni.PairsNeeded != 73 || ni.CasesNeeded != 73 {
		t.Errorf("22 identical pairs: %+v", ni)
	}
	if ni.SmallestMargin <= 0.05 || ni.SmallestMargin >= 0.2 {
		t.Errorf("22 identical pairs decide at %v, want between 5 and 20 points", ni.SmallestMargin)
	}
}

// On the recorded runs, the margin judges every rate of every group beside
// McNemar's verdict, over the pairs on which the rate is defined on both
// sides; without a margin nothing is judged.
func TestModelsWithMargin(t *testing.T) {
	r, err := store.Open("testdata/base")
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := Models(r, "m", "n", &Options{Margin: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	if c.Margin != 0.05 {
		t.Errorf("Margin = %v", c.Margin)
	}
	for _, g := range c.Groups {
		for _, row := range g.Rates {
			pc := row.PairedCounts()
			if row.Rate.Base.N == 0 || row.Rate.Current.N == 0 {
				continue
			}
			ni := row.NonInferiority
			if ni == nil || ni.Pairs != pc.N() || ni.Pairs > row.Rate.Base.N || ni.Margin != 0.05 {
				t.Errorf("%s %s: %+v over %+v", g.Variant, row.Metric, ni, pc)
				continue
			}
			if pc.OnlyA+pc.OnlyB != row.Worse+row.Better {
				t.Errorf("%s %s: discordant %+v, worse/better %d/%d", g.Variant, row.Metric, pc, row.Worse, row.Better)
			}
		}
	}
	pass := c.Groups[0].Rate(metric.Pass)
	// m 8/12 → n 6/12, two pairs lost: 12 pairs cannot tell 5 points, and
	// at a loss of 16.7 points no number of pairs would show it within 5.
	if ni := pass.NonInferiority; pass.Verdict != Same || ni.Verdict != "undecided" || ni.PairsNeeded != 0 || ni.Diff != -2.0/12 {
		t.Errorf("pass: McNemar %s, margin %+v", pass.Verdict, ni)
	}
	// 10 of 10 valid on both sides, 5 cases of 2 agreeing repeats: 73
	// identical cases would do, 146 pairs at 2 repeats a case.
	if ni := c.Groups[0].Rate(metric.ArgValidity).NonInferiority; ni.Verdict != "undecided" || ni.CasesNeeded != 73 || ni.PairsNeeded != 146 ||
		ni.Evidence.String() != "5 cases (10 trials, repeats agree on 5 of 5 cases)" {
		t.Errorf("arg_validity: margin %+v", ni)
	}
	plain, _, err := Models(r, "m", "n", nil)
	if err != nil {
		t.Fatal(err)
	}
	if plain.Margin != 0 || plain.Groups[0].Rate(metric.Pass).NonInferiority != nil {
		t.Error("judged at a margin nobody asked for")
	}
}

func TestReading(t *testing.T) {
	for _, tt := range []struct {
		ni   NonInferiority
		want string
	}{
		{NonInferiority{Margin: 0.05, Verdict: "undecided", Words: "undecided: need more cases", CasesNeeded: 350, PairsNeeded: 700,
			Evidence: stats.Evidence{Cases: 30, Trials: 60}}, "undecided: need more cases (~350 cases, 320 more)"},
		{NonInferiority{Margin: 0.05, Verdict: "undecided", Words: "undecided: need more cases"}, "undecided: need more cases (the observed loss exceeds 5 pts)"},
		{NonInferiority{Margin: 0.05, Verdict: "not_worse", Words: "not worse by more than 5 pts"}, "not worse by more than 5 pts"},
	} {
		if got := tt.ni.Reading(); got != tt.want {
			t.Errorf("Reading() = %q, want %q", got, tt.want)
		}
	}
}

// handRow is r with its pairs built by hand, every pair its own case:
// worse and better from r, both and neither concordant pairs.
func handRow(r RateRow, both, neither int) *RateRow {
	r.pairs = stats.PairedCounts{Both: both, Neither: neither, OnlyA: r.Better, OnlyB: r.Worse}
	if r.LowerIsBetter {
		// For a lower-is-better rate a loss is a pair only current met.
		r.pairs.OnlyA, r.pairs.OnlyB = r.Worse, r.Better
	}
	return &r
}
