package stats

import (
	"math/rand/v2"
	"testing"
)

func TestNonInferiority(t *testing.T) {
	tests := []struct {
		lo, hi, margin float64
		want           NIVerdict
		phrase         string
	}{
		{-0.031, 0.012, 0.05, NINotWorse, "not worse by more than 5 pts"},
		{-0.2, -0.08, 0.05, NIWorse, "worse by more than 5 pts"},
		{-0.08, 0.01, 0.05, NIUndecided, "undecided: need more cases"},
		{-0.05, 0.01, 0.05, NIUndecided, "undecided: need more cases"}, // on the line is not above it
		{-0.06, -0.03, 0.025, NIWorse, "worse by more than 2.5 pts"},
		// Detectably worse (the interval excludes 0) and still within the margin.
		{-0.04, -0.01, 0.05, NINotWorse, "not worse by more than 5 pts"},
		{-0.004, 0.02, 0.01, NINotWorse, "not worse by more than 1 pt"},
	}
	for _, tt := range tests {
		v := NonInferiority(tt.lo, tt.hi, tt.margin)
		if v != tt.want || v.Phrase(tt.margin) != tt.phrase {
			t.Errorf("NonInferiority(%v, %v, %v) = %v %q, want %v %q", tt.lo, tt.hi, tt.margin, v, v.Phrase(tt.margin), tt.want, tt.phrase)
		}
	}
	for v, s := range map[NIVerdict]string{NINotWorse: "not_worse", NIWorse: "worse", NIUndecided: "undecided"} {
		if v.String() != s {
			t.Errorf("%d.String() = %q, want %q", v, v.String(), s)
		}
	}
}

func TestPoints(t *testing.T) {
	for d, want := range map[float64]string{0.05: "5 pts", 0.025: "2.5 pts", 0.01: "1 pt", -0.031: "-3.1 pts", 0: "0 pts", 0.1234: "12.3 pts"} {
		if got := Points(d); got != want {
			t.Errorf("Points(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestSmallestMargin(t *testing.T) {
	c := PairedCounts{Both: 59, OnlyA: 6, OnlyB: 16, Neither: 80}
	lo, _ := PairedDiffInterval(c, 0.95)
	if m := SmallestMargin(c, 0.95); m != -lo {
		t.Errorf("SmallestMargin = %v, want −lo = %v", m, -lo)
	}
	// At any margin above it the verdict is not worse; at it, not.
	m := SmallestMargin(c, 0.95)
	lo, hi := PairedDiffInterval(c, 0.95)
	if NonInferiority(lo, hi, m+1e-9) != NINotWorse || NonInferiority(lo, hi, m) == NINotWorse {
		t.Errorf("margin %v does not sit at the verdict's edge", m)
	}
	if m := SmallestMargin(PairedCounts{Both: 10, OnlyA: 30}, 0.95); m != 0 {
		t.Errorf("A clearly better: SmallestMargin = %v, want 0", m)
	}
}

// By hand: no discordance and equal rates leave only the boundary term,
// n = z²·(1−M)/M = 1.95996²·19 = 72.99 → 73 at M = 5 pts, α = 0.025.
func TestPairsForNonInferiorityValues(t *testing.T) {
	tests := []struct {
		pA, pB, disc, margin, alpha, power float64
		want                               int
	}{
		{0.9, 0.9, 0, 0.05, 0.025, 0.8, 73},
		{0.9, 0.9, 0.1, 0.05, 0.025, 0.8, 350},
		{0.9, 0.95, 0.1, 0.05, 0.025, 0.8, 0}, // truly worse by the margin: never
		{0.9, 0.9, 0.3, 0.05, 0.025, 0.8, 0},  // more discordance than 90% and 90% allow
		{0.9, 0.8, 0.05, 0.05, 0.025, 0.8, 0}, // discordance below the difference
		{0.9, 0.9, 0.1, 0, 0.025, 0.8, 0},     // no margin
	}
	for _, tt := range tests {
		if got := PairsForNonInferiority(tt.pA, tt.pB, tt.disc, tt.margin, tt.alpha, tt.power); got != tt.want {
			t.Errorf("PairsForNonInferiority(%v, %v, %v, %v, %v, %v) = %d, want %d",
				tt.pA, tt.pB, tt.disc, tt.margin, tt.alpha, tt.power, got, tt.want)
		}
	}
	// More power, a narrower margin or more discordance all need more pairs.
	base := PairsForNonInferiority(0.85, 0.85, 0.1, 0.05, 0.025, 0.8)
	for name, n := range map[string]int{
		"power 0.9":       PairsForNonInferiority(0.85, 0.85, 0.1, 0.05, 0.025, 0.9),
		"margin 3 pts":    PairsForNonInferiority(0.85, 0.85, 0.1, 0.03, 0.025, 0.8),
		"discordance 0.2": PairsForNonInferiority(0.85, 0.85, 0.2, 0.05, 0.025, 0.8),
	} {
		if n <= base {
			t.Errorf("%s: %d pairs, want more than %d", name, n, base)
		}
	}
}

// The planned n achieves the target power: at each point of a grid of
// rates, discordance and margins, 2,000 seeded runs of the planned number of
// pairs, each judged by the 95% interval as compare judges it, show the
// candidate not worse in 80% of runs. Tolerance: at least 0.77 (three times
// the simulation error of ±0.009 below the target) and at most 0.90: the
// normal approximation is conservative when few pairs disagree, so small
// plans overshoot a little.
func TestPairsForNonInferiorityPower(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 2))
	const draws, power = 2000, 0.8
	for _, pB := range []float64{0.5, 0.9} {
		for _, d := range []float64{-0.02, 0, 0.02} {
			for _, disc := range []float64{0.05, 0.1, 0.2} {
				for _, margin := range []float64{0.05, 0.1} {
					onlyA, onlyB, both, ok := pairedCells(pB+d, pB, disc)
					n := PairsForNonInferiority(pB+d, pB, disc, margin, 0.025, power)
					if !ok || n > 1000 {
						continue
					}
					hit := 0
					for range draws {
						lo, hi := PairedDiffInterval(drawPairs(r, n, onlyA, onlyB, both), 0.95)
						if NonInferiority(lo, hi, margin) == NINotWorse {
							hit++
						}
					}
					got := float64(hit) / draws
					t.Logf("pB=%v d=%+v discordance=%v margin=%v: n=%d, power %.3f", pB, d, disc, margin, n, got)
					if got < power-0.03 || got > power+0.10 {
						t.Errorf("pB=%v d=%v discordance=%v margin=%v: n=%d achieves power %.3f, want %.2f (−0.03, +0.10)",
							pB, d, disc, margin, n, got, power)
					}
				}
			}
		}
	}
}

func TestPointsInterval(t *testing.T) {
	for _, tt := range []struct {
		d, lo, hi, margin float64
		want              string
	}{
		{-0.031, -0.0791, 0.0112, 0.05, "-3.1 pts [-8.0, +1.2]"},
		{0, -0.0496, 0.03, 0.05, "+0.0 pts [-4.96, +3.0]"}, // -5.0 would read as on the line
		{0.02, 0.001, 0.0496, 0.05, "+2.0 pts [+0.1, +4.96]"},
		{0.02, 0.001, 0.0501, 0.05, "+2.0 pts [+0.1, +5.1]"},
	} {
		if got := PointsInterval(tt.d, tt.lo, tt.hi, tt.margin); got != tt.want {
			t.Errorf("PointsInterval(%v, %v, %v, %v) = %q, want %q", tt.d, tt.lo, tt.hi, tt.margin, got, tt.want)
		}
	}
}
