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
