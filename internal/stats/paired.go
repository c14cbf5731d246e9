package stats

import "math"

// PairedCounts are the outcomes of paired binary trials of a candidate A and
// a reference B on the same case and repeat: Both passed, OnlyA passed,
// OnlyB passed, or Neither did. "Passed" is "counted in the rate": for a
// lower-is-better rate the caller swaps OnlyA and OnlyB (see Flip) so that a
// positive difference always means A is better.
//
// Pairs of one case are one cluster (see PairedCases): Cases and Deff say
// how many cases the pairs came from and the design effect of the paired
// difference, and every interval and test runs on the four counts divided
// by Deff. Zero Cases and Deff, or a Deff of 1, treat every pair as
// independent.
type PairedCounts struct {
	Both, OnlyA, OnlyB, Neither int
	// Cases is the number of cases the pairs came from; 0 when unknown.
	Cases int
	// Deff is the design effect of the paired difference over the cases'
	// clusters at the observed difference, at least 1; 0 or 1 treats the
	// pairs as independent.
	Deff float64
	// m are the cases' sums from which the tests take the design effect
	// at each hypothesised difference (deffAt); zero when the counts were
	// built by hand, which then use Deff throughout.
	m moments
}

// deffAt is the design effect of the paired difference at a hypothesised
// difference d: the cases' second moment about d over the pairs' one,
//
//	Σ(s_i − d·n_i)² / Σ(y − d)²,
//
// with y = +1 for a pair only A met, −1 for one only B met, 0 otherwise,
// and s_i the sum of y over case i's n_i pairs, times the small-sample
// factor, clamped as Deff is. At the observed difference it is Deff; at
// 0 it is the variance of the clustered McNemar test of Obuchowski (1998)
// and Durkalski et al. (2003), Σ(b_i − c_i)² over b + c. A score test
// inverted at each d so measures the variance about the hypothesis, as
// Tango's interval does, instead of about the observed difference, which
// keeps its level when discordant pairs crowd into a few cases.
func (c PairedCounts) deffAt(d float64) float64 {
	if c.m.nn == 0 {
		return max(1, c.Deff)
	}
	n := float64(c.N())
	if float64(c.m.nn) == n {
		return 1
	}
	upper := float64(c.m.nn) / n
	q, s := float64(c.OnlyA+c.OnlyB), float64(c.OnlyA-c.OnlyB)
	den := q - 2*d*s + d*d*n
	num := float64(c.m.ss) - 2*d*float64(c.m.ns) + d*d*float64(c.m.nn)
	if !(den > 0) {
		return upper
	}
	return min(max(num/den*smallSample(c.Cases), 1), upper)
}

// effective is the four counts divided by a design effect: how many
// independent pairs of each kind the clustered pairs are worth.
type effective struct{ n, onlyA, onlyB float64 }

func (c PairedCounts) effective() effective { return c.effectiveAt(max(1, c.Deff)) }

func (c PairedCounts) effectiveAt(deff float64) effective {
	return effective{n: float64(c.N()) / deff, onlyA: float64(c.OnlyA) / deff, onlyB: float64(c.OnlyB) / deff}
}

// EffectiveN is the number of independent pairs the pairs are worth: N
// over the design effect.
func (c PairedCounts) EffectiveN() float64 { return c.effective().n }

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
	// The paired difference changes sign: Σ n_i·s_i does too.
	m := c.m
	m.ns = -m.ns
	return PairedCounts{Both: c.Neither, OnlyA: c.OnlyB, OnlyB: c.OnlyA, Neither: c.Both, Cases: c.Cases, Deff: c.Deff, m: m}
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
// No pairs (or a negative count) give the uninformative (−1, 1). Clustered
// pairs are counted as their effective counts (see PairedCounts).
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
	e := c.effectiveAt(c.deffAt(d))
	n, b, cc := e.n, e.onlyA, e.onlyB
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
