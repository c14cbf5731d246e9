package stats

import "math"

// McNemar is the exact two-sided McNemar test for two runs over the same
// cases: b cases went pass→fail and c went fail→pass, and p is the chance of
// a split at least this uneven if neither run is better (binomial, 1/2).
// It returns 1 when b+c == 0 or either count is negative: no evidence.
func McNemar(b, c int) (p float64) {
	n := b + c
	if b < 0 || c < 0 || n == 0 {
		return 1
	}
	m := min(b, c)
	// P(X <= m) for X ~ Binomial(n, 1/2), summed downward from the largest
	// term P(X = m) so nothing underflows for large n.
	lg := func(x int) float64 { v, _ := math.Lgamma(float64(x) + 1); return v }
	logTop := lg(n) - lg(m) - lg(n-m) - float64(n)*math.Ln2
	sum, term := 0.0, 1.0
	for i := m; i >= 0; i-- {
		sum += term
		if term < 1e-18*sum {
			break
		}
		// P(X = i-1) / P(X = i) = i / (n-i+1).
		term *= float64(i) / float64(n-i+1)
	}
	return min(1, 2*math.Exp(logTop)*sum)
}

// McNemarCounts is McNemar's test on paired counts that may be clustered:
// on their effective discordant counts, divided by the design effect at no
// difference (the clustered McNemar test of Obuchowski 1998 and Durkalski
// et al. 2003, whose variance is Σ(b_i − c_i)²), with the binomial tail
// extended to fractional counts by the regularized incomplete beta
// function, P(X ≤ m) = I_½(n − m, m + 1) for n discordant pairs, which is
// the exact tail at whole counts. With a design effect of 1 it is
// McNemar(OnlyA, OnlyB) exactly.
func McNemarCounts(c PairedCounts) float64 {
	deff := c.deffAt(0)
	if !(deff > 1) {
		return McNemar(c.OnlyA, c.OnlyB)
	}
	if c.OnlyA < 0 || c.OnlyB < 0 || c.OnlyA+c.OnlyB == 0 {
		return 1
	}
	e := c.effectiveAt(deff)
	n := e.onlyA + e.onlyB
	m := min(e.onlyA, e.onlyB)
	return min(1, 2*regIncBeta(n-m, m+1, 0.5))
}

// McNemarFloor is the smallest p-value McNemarCounts could give the
// discordant pairs of c: every one of them the same way. When it is not
// below the level, no verdict is possible however they fall.
func McNemarFloor(c PairedCounts) float64 {
	d := c.OnlyA + c.OnlyB
	deff := c.deffAt(0)
	if !(deff > 1) {
		return McNemar(d, 0)
	}
	if d <= 0 {
		return 1
	}
	return min(1, 2*math.Pow(0.5, float64(d)/deff))
}
