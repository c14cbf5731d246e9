package compare

import (
	"math"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/metric"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/store"
)

// sweepRun is internal/curve's recorded tool-count sweep (see its
// fixtureDir): weak's selection falls 16/18, 14/17, 12/18, 6/18 over 0, 10,
// 30 and 60 decoys, wrong in its first 2, 3, 6 and 12 trials; good is wrong
// once, at 60.
func sweepRun(t *testing.T) *store.Reader {
	t.Helper()
	r, err := store.Open("../curve/testdata/sweep")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestSweepPairs: every point is paired with the base trial by trial, the
// infrastructure error's pair left out, McNemar on the discordant pairs.
func TestSweepPairs(t *testing.T) {
	sc, warns, err := Sweep(sweepRun(t), "decoys", nil)
	if err != nil || len(warns) > 0 {
		t.Fatal(err, warns)
	}
	if sc.Mode != ModeSweep || sc.Threshold != 0.8 || sc.Alpha != DefaultAlpha || len(sc.Curves) != 2 {
		t.Fatalf("%+v", sc)
	}
	weak := sc.Curves[1]
	if weak.Model != "weak" || len(weak.Paired) != 4 || weak.Paired[0] != nil {
		t.Fatalf("weak: %+v", weak)
	}
	for _, tt := range []struct {
		point              int
		pairs, scored      int
		baseK, baseN, k, n int
		worse, better      int
		verdict            string
	}{
		// c08 #1 is an infrastructure error at 10: its pair is left out.
		{1, 20, 19, 15, 17, 14, 17, 1, 0, Same},
		{2, 20, 20, 16, 18, 12, 18, 4, 0, Same},
		// 10 pairs went right→wrong, none the other way, but in 5 cases
		// whose two repeats agreed: 5 observations, p = 2/2^5 = 0.0625.
		{3, 20, 20, 16, 18, 6, 18, 10, 0, Same},
	} {
		g := weak.Paired[tt.point]
		sel := g.Rate(metric.ToolSelection)
		if g.Model != "weak" || g.Pairs != tt.pairs || g.Scored != tt.scored || sel.Rate.Base.K != tt.baseK || sel.Rate.Base.N != tt.baseN ||
			sel.Rate.Current.K != tt.k || sel.Rate.Current.N != tt.n || sel.Worse != tt.worse || sel.Better != tt.better || sel.Verdict != tt.verdict {
			t.Errorf("weak point %d: pairs %d/%d selection %v → %v, %d/%d %s", tt.point, g.Pairs, g.Scored, sel.Rate.Base, sel.Rate.Current, sel.Worse, sel.Better, sel.Verdict)
		}
	}
	if sel := weak.Paired[3].Rate(metric.ToolSelection); math.Abs(sel.P-0.0625) > 1e-12 || sel.Deff != 2 ||
		sel.Evidence.String() != "9 cases (18 trials, repeats agree on 9 of 9 cases)" {
		t.Errorf("McNemar at 60: p %v deff %v over %s, want 2/32 over 9 cases of agreeing repeats", sel.P, sel.Deff, sel.Evidence)
	}
	if g := sc.Curves[0].Paired[3]; g.Model != "good" || g.Rate(metric.ToolSelection).Worse != 1 || g.Rate(metric.ToolSelection).Verdict != Same {
		t.Errorf("good at 60: %+v", g.Rate(metric.ToolSelection))
	}
}

// TestSweepThreshold: both rules of the crossing, and --threshold moving
// them.
func TestSweepThreshold(t *testing.T) {
	for _, tt := range []struct {
		threshold                 float64
		below, significant, holds any
	}{
		{0, 30.0, 60.0, nil},    // the default, 0.8
		{0.85, 10.0, 60.0, nil}, // 12/18 over 9 cases reaches 85%; as 18 trials it would not (83.7%)
		{0.3, nil, nil, 60.0},
	} {
		sc, _, err := Sweep(sweepRun(t), "decoys", &SweepOptions{Threshold: tt.threshold})
		if err != nil {
			t.Fatal(err)
		}
		x := sc.Curves[1].Crossing
		var below, sig, holds any
		if x.Below != nil {
			below = x.Below.Value
		}
		if x.Significant != nil {
			sig = x.Significant.Value
		}
		if x.Below == nil && x.Through != nil {
			holds = x.Through.Value
		}
		if below != tt.below || sig != tt.significant || holds != tt.holds {
			t.Errorf("threshold %v: below %v significant %v holds through %v", tt.threshold, below, sig, holds)
		}
	}
}

func TestSweepErrors(t *testing.T) {
	if _, _, err := Sweep(sweepRun(t), "decoy", nil); err == nil || !strings.Contains(err.Error(), `the sweep has no line along "decoy" (did you mean "decoys"?)`) {
		t.Errorf("unknown axis: %v", err)
	}
	if _, _, err := Sweep(sweepRun(t), "think", nil); err == nil || !strings.Contains(err.Error(), `no line along "think" (its axes: decoys)`) {
		t.Errorf("unknown axis: %v", err)
	}
	r, err := store.Open("testdata/base")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Sweep(r, "decoys", nil); err == nil || !strings.Contains(err.Error(), "the run swept nothing") {
		t.Errorf("no sweep: %v", err)
	}
}

// TestSweepMissingPoint: a model that never ran a point has a curve without
// it, and the comparison says that point paired nothing for it.
func TestSweepMissingPoint(t *testing.T) {
	full := sweepRun(t)
	var kept []*record.Trial
	if _, err := full.Trials(func(tr *record.Trial) {
		if tr.Model != "weak" || tr.Variant != "decoys=30" {
			kept = append(kept, tr)
		}
	}); err != nil {
		t.Fatal(err)
	}
	sc, _, err := Sweep(writeRun(t, full.Run, kept), "decoys", nil)
	if err != nil {
		t.Fatal(err)
	}
	weak := sc.Curves[1]
	if len(weak.Points) != 3 || weak.Points[2].Value != 60.0 || weak.Paired[2] == nil || weak.Paired[2].Rate(metric.ToolSelection).Worse != 10 {
		t.Errorf("weak without 30: %+v", weak.Points)
	}
	if len(sc.Warnings) != 1 || sc.Warnings[0] != "decoys=30 against base: weak: no trial is on both sides: nothing to compare" {
		t.Errorf("warnings %q", sc.Warnings)
	}
}
