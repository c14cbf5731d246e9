package stats

import "math"

// PairedCounts are the outcomes of paired binary trials of a candidate A and
// a reference B on the same case and repeat: Both passed, OnlyA passed,
// OnlyB passed, or Neither did. "Passed" is "counted in the rate": for a
// lower-is-better rate the caller swaps OnlyA and OnlyB (see Flip) so that a
// positive difference always means A is better.
type PairedCounts struct {
	Both, OnlyA, OnlyB, Neither int
}

// N is the number of pairs.
func (c PairedCounts) N() int { return c.Both + c.OnlyA + c.OnlyB + c.Neither }

// Discordant is the number of pairs on which A and B disagree.
func (c PairedCounts) Discordant() int { return c.OnlyA + c.OnlyB }

// Diff is the observed p_A − p_B, or 0 when there are no pairs.
func (c PairedCounts) Diff() float64 {
	if c.N() <= 0 {
		return 0
	}
	return float64(c.OnlyA-c.OnlyB) / float64(c.N())
}

// Flip exchanges the meaning of the outcome (pass ↔ fail), which is how a
// lower-is-better rate becomes higher-is-better: p_A − p_B changes sign.
func (c PairedCounts) Flip() PairedCounts {
	return PairedCounts{Both: c.Neither, OnlyA: c.OnlyB, OnlyB: c.OnlyA, Neither: c.Both}
}

// valid reports whether every count is non-negative and there is a pair.
func (c PairedCounts) valid() bool {
	return c.Both >= 0 && c.OnlyA >= 0 && c.OnlyB >= 0 && c.Neither >= 0 && c.N() > 0
}

// NormalQuantile is the standard normal quantile: the z with P(Z ≤ z) = p.
// It is ±Inf at 0 and 1.
func NormalQuantile(p float64) float64 {
	return math.Sqrt2 * math.Erfinv(2*p-1)
}

// PairedDiffInterval is a two-sided confidence interval at level (0.95 for
// 95%) for p_A − p_B from paired outcomes: Tango's score interval (T. Tango,
// "Equivalence test and confidence interval for the difference in
// proportions for the paired-sample design", Statistics in Medicine 17,
// 891–908, 1998). It inverts the score test that restricts the nuisance
// parameter to its maximum likelihood value under each hypothesised
// difference, so it stays inside [−1, 1], is defined with no discordant pair
// at all, and keeps close to its level with few discordant pairs, where the
// Wald interval collapses. At a difference of 0 the test is McNemar's.
// No pairs (or a negative count) give the uninformative (−1, 1).
func PairedDiffInterval(c PairedCounts, level float64) (lo, hi float64) {
	if !c.valid() || !(level > 0 && level < 1) {
		return -1, 1
	}
	z := NormalQuantile(1 - (1-level)/2)
	lo, hi = -1, 1
	// The score statistic decreases in δ: the lower end is where it falls
	// to z, the upper where it falls to −z (searched on p = (δ+1)/2 in
	// [0, 1]). At an observed difference of ±1 the statistic is 0/0 at that
	// end, which is the end itself.
	if c.Diff() > -1 {
		lo = 2*bisect(func(p float64) bool { return tangoScore(c, 2*p-1) > z }) - 1
	}
	if c.Diff() < 1 {
		hi = 2*bisect(func(p float64) bool { return tangoScore(c, 2*p-1) > -z }) - 1
	}
	return lo, hi
}

// tangoScore is Tango's score statistic for H: p_A − p_B = d,
// (b − c − n·d) / √(n·(2·q + d·(1−d))), where b = OnlyA, c = OnlyB and q is
// the maximum likelihood estimate of P(only B) under H (Tango 1998, eq. 3).
// A zero variance (d at ±1) gives ±Inf by the numerator's sign.
func tangoScore(c PairedCounts, d float64) float64 {
	n, b, cc := float64(c.N()), float64(c.OnlyA), float64(c.OnlyB)
	q := constrainedOnlyB(b/n, cc/n, d)
	num := b - cc - n*d
	v := n * (2*q + d*(1-d))
	if v <= 0 {
		switch {
		case num > 0:
			return math.Inf(1)
		case num < 0:
			return math.Inf(-1)
		}
		return 0
	}
	return num / math.Sqrt(v)
}

// constrainedOnlyB is the maximum likelihood P(only B) when the difference
// is held at d, from the observed shares onlyA and onlyB of the pairs: the
// positive root of 2x² + w·x − onlyB·d·(1−d) = 0 with
// w = −onlyA − onlyB + (2 − onlyA + onlyB)·d. The sample-size formula uses
// it with the true shares in place of the observed ones.
func constrainedOnlyB(onlyA, onlyB, d float64) float64 {
	w := -onlyA - onlyB + (2-onlyA+onlyB)*d
	return max(0, (math.Sqrt(w*w+8*onlyB*d*(1-d))-w)/4)
}
