package stats

import (
	"fmt"
	"math"
	"strconv"
)

// NIVerdict is what a confidence interval for p_A − p_B says about a
// candidate A against a reference B at a margin M: a question apart from
// McNemar's "is there a detectable difference?", so a candidate can be
// detectably worse and still not worse by more than M.
type NIVerdict int

const (
	// NIUndecided: the interval straddles −M; more pairs are needed.
	NIUndecided NIVerdict = iota
	// NINotWorse: the whole interval lies above −M.
	NINotWorse
	// NIWorse: the whole interval lies below −M.
	NIWorse
)

// NonInferiority judges the interval (lo, hi) for p_A − p_B, where higher is
// better, at margin M (0.05 for 5 points): NINotWorse when lo > −M, NIWorse when
// hi < −M, NIUndecided otherwise. A lower-is-better rate is judged by its
// caller on the flipped counts (PairedCounts.Flip), never here.
func NonInferiority(lo, hi, margin float64) NIVerdict {
	switch {
	case lo > -margin:
		return NINotWorse
	case hi < -margin:
		return NIWorse
	}
	return NIUndecided
}

// String is the verdict's short name, as JSON writes it.
func (v NIVerdict) String() string {
	switch v {
	case NINotWorse:
		return "not_worse"
	case NIWorse:
		return "worse"
	}
	return "undecided"
}

// Phrase is the verdict in words at margin M, written so that it cannot be
// read as a difference test's verdict: "not worse by more than 5 pts",
// "worse by more than 5 pts", "undecided: need more cases".
func (v NIVerdict) Phrase(margin float64) string {
	switch v {
	case NINotWorse:
		return "not worse by more than " + Points(margin)
	case NIWorse:
		return "worse by more than " + Points(margin)
	}
	return "undecided: need more cases"
}

// Points renders a difference of proportions in percentage points, to at
// most one decimal: 0.05 → "5 pts", 0.025 → "2.5 pts", 0.01 → "1 pt".
func Points(d float64) string {
	p := math.Round(1000*d) / 10
	unit := " pts"
	if p == 1 || p == -1 {
		unit = " pt"
	}
	return strconv.FormatFloat(p, 'f', -1, 64) + unit
}

// PointsInterval renders a difference of rates and its interval in points
// to one decimal, the interval rounded outwards as Interval rounds one:
// "-3.1 pts [-7.9, +1.2]". An end that would round onto ±margin gets a
// second decimal, so that it never reads as on the line when the verdict
// says it is not.
func PointsInterval(d, lo, hi, margin float64) string {
	return fmt.Sprintf("%+.1f pts [%s, %s]", 100*d, outward(lo, math.Floor, margin), outward(hi, math.Ceil, margin))
}

// outward renders x in points rounded by round (Floor or Ceil) to one
// decimal, or to two when one would land on ±margin.
func outward(x float64, round func(float64) float64, margin float64) string {
	v := round(1000*x) / 10
	if math.Abs(math.Abs(v)-100*margin) < 1e-9 {
		return fmt.Sprintf("%+.2f", round(10000*x)/100)
	}
	return fmt.Sprintf("%+.1f", v)
}

// SmallestMargin is the smallest margin at which the paired counts show A
// not worse than B at level: −lo when the interval's lower end is below 0,
// else 0 (A is not worse at any margin). A margin must exceed it strictly.
func SmallestMargin(c PairedCounts, level float64) float64 {
	lo, _ := PairedDiffInterval(c, level)
	return max(0, -lo)
}

// PairsForNonInferiority is the number of paired trials needed to show A not
// worse than B by more than margin with the given power, by the one-sided
// score test at alpha (0.025 matches a two-sided 95% interval), when the
// true pass rates are pA and pB and a share pDisc of pairs disagree. It is
// the sample size of Nam (J. Nam, "Establishing equivalence of two
// treatments and sample size requirements in matched-pairs design",
// Biometrics 53, 1422–1430, 1997; also Liu, Hsueh, Hsieh and Chen,
// Statistics in Medicine 21, 231–245, 2002) for Tango's statistic:
//
//	n = ⌈ (z_{1−α}·σ₀ + z_{power}·σ₁)² / (δ + M)² ⌉
//
// with δ = pA − pB, σ₁² = pDisc − δ² the variance of one pair's difference,
// and σ₀² = 2·q + δ₀·(1−δ₀) its variance at the boundary δ₀ = −M, q being
// P(only B) restricted to δ₀ (Tango's estimate at the true shares). It
// returns 0 when no number of pairs would do: δ ≤ −M, or rates that cannot
// hold together (pDisc < |δ|, or more discordance than the rates allow).
func PairsForNonInferiority(pA, pB, pDisc, margin, alpha, power float64) int {
	// A difference on the margin within rounding (0.9 − 0.95) is on it.
	d := pA - pB
	if !(margin > 0 && margin < 1) || !(alpha > 0 && alpha < 1) || !(power > 0 && power < 1) ||
		d <= -margin+1e-12 || !pairedRatesFit(pA, pB, pDisc) {
		return 0
	}
	onlyA, onlyB := (pDisc+d)/2, (pDisc-d)/2
	d0 := -margin
	q := constrainedOnlyB(onlyA, onlyB, d0)
	s0 := math.Sqrt(max(0, 2*q+d0*(1-d0)))
	s1 := math.Sqrt(max(0, pDisc-d*d))
	root := NormalQuantile(1-alpha)*s0 + NormalQuantile(power)*s1
	n := root * root / ((d + margin) * (d + margin))
	return max(1, int(math.Ceil(n-1e-9)))
}

// pairedRatesFit reports whether pass rates pA and pB with a share pDisc of
// discordant pairs describe a paired table: every cell in [0, 1].
func pairedRatesFit(pA, pB, pDisc float64) bool {
	d := pA - pB
	onlyA, onlyB := (pDisc+d)/2, (pDisc-d)/2
	both := pA - onlyA
	neither := 1 - both - onlyA - onlyB
	const eps = 1e-12
	return onlyA >= -eps && onlyB >= -eps && both >= -eps && neither >= -eps
}
