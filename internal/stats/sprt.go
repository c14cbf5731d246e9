package stats

import "math"

// SPRT is Wald's sequential probability ratio test on a pass rate against a
// threshold: H0 p ≤ Threshold−Delta against H1 p ≥ Threshold+Delta, with
// error rates Alpha (deciding H1 under H0) and Beta (deciding H0 under H1).
// It is what `run --stop-early` uses to stop repeating a case whose verdict
// is settled. Zero fields take the defaults of DefaultSPRT.
type SPRT struct {
	// Threshold is the pass rate the case is judged against; zero: 0.5.
	Threshold float64 `json:"threshold"`
	// Delta is the half-width of the indifference zone around Threshold;
	// zero: 0.2. Rates inside it take the most repeats to settle.
	Delta float64 `json:"delta"`
	// Alpha and Beta are the test's error rates; zero: 0.05 each.
	Alpha float64 `json:"alpha"`
	Beta  float64 `json:"beta"`
}

// Decisions of SPRT.Decide.
const (
	Undecided = 0
	Above     = 1  // H1 accepted: the rate is at least Threshold+Delta
	Below     = -1 // H0 accepted: the rate is at most Threshold−Delta
)

// DefaultSPRT is the test with every default filled in: threshold 0.5,
// δ 0.2, α = β = 0.05. With it a case that always passes (or always fails)
// settles after 4 trials.
var DefaultSPRT = SPRT{Threshold: 0.5, Delta: 0.2, Alpha: 0.05, Beta: 0.05}

// Filled returns t with its zero fields set to the defaults, and the
// hypotheses clamped into (0, 1) so a threshold near an end still has two.
func (t SPRT) Filled() SPRT {
	if t.Threshold == 0 {
		t.Threshold = DefaultSPRT.Threshold
	}
	if t.Delta == 0 {
		t.Delta = DefaultSPRT.Delta
	}
	if t.Alpha == 0 {
		t.Alpha = DefaultSPRT.Alpha
	}
	if t.Beta == 0 {
		t.Beta = DefaultSPRT.Beta
	}
	return t
}

// hypotheses are p0 and p1, kept strictly inside (0, 1).
func (t SPRT) hypotheses() (p0, p1 float64) {
	const eps = 1e-3
	p0 = min(max(t.Threshold-t.Delta, eps), 1-2*eps)
	p1 = min(max(t.Threshold+t.Delta, p0+eps), 1-eps)
	return p0, p1
}

// Decide says whether k passes out of n settle the test: Above, Below, or
// Undecided (keep repeating). It is a function of (k, n) alone, so a run
// resumed or replayed decides the same.
func (t SPRT) Decide(k, n int) int {
	t = t.Filled()
	p0, p1 := t.hypotheses()
	llr := float64(k)*math.Log(p1/p0) + float64(n-k)*math.Log((1-p1)/(1-p0))
	switch {
	case llr >= math.Log((1-t.Beta)/t.Alpha):
		return Above
	case llr <= math.Log(t.Beta/(1-t.Alpha)):
		return Below
	}
	return Undecided
}

// ClopperPearson returns the exact (Clopper-Pearson) interval of the rate at
// confidence level conf (0.95 for 95%): the rates under which seeing K or
// more (K or fewer) passes has probability at least (1−conf)/2. An empty rate
// gives (0, 1).
//
// It is the interval toolgrade states for cases that stopped early, at
// StoppedLevel: optional stopping makes the Wilson interval undercover
// (a case stops exactly when its run looks extreme), and the exact interval
// at a raised level covers at least as often as stated under the SPRT rule,
// which TestStoppedIntervalCoverage checks by simulation.
func (r Rate) ClopperPearson(conf float64) (lo, hi float64) {
	if r.Empty() {
		return 0, 1
	}
	if r.clustered() {
		return r.clopperPearsonEffective(conf)
	}
	k, n := r.k(), r.N
	a := (1 - conf) / 2
	if k > 0 {
		// lo: the p with P(X ≥ k | p) = a; P(X ≥ k) grows with p.
		lo = bisect(func(p float64) bool { return 1-binomCDF(k-1, n, p) < a })
	}
	hi = 1
	if k < n {
		// hi: the p with P(X ≤ k | p) = a; P(X ≤ k) falls as p grows.
		hi = bisect(func(p float64) bool { return binomCDF(k, n, p) > a })
	}
	return lo, hi
}

// clopperPearsonEffective is ClopperPearson on the effective counts of a
// clustered rate, the binomial tails extended to fractional counts by the
// incomplete beta function (see regIncBeta).
func (r Rate) clopperPearsonEffective(conf float64) (lo, hi float64) {
	k, n := r.Effective()
	a := (1 - conf) / 2
	if k > 0 {
		// P(X ≥ k | p) = I_p(k, n − k + 1) grows with p.
		lo = bisect(func(p float64) bool { return regIncBeta(k, n-k+1, p) < a })
	}
	hi = 1
	if r.k() < r.N {
		// P(X ≤ k | p) = I_{1−p}(n − k, k + 1) falls as p grows.
		hi = bisect(func(p float64) bool { return regIncBeta(n-k, k+1, 1-p) > a })
	}
	return lo, hi
}

// StoppedLevel is the confidence level at which the interval of a case that
// stopped early is computed so that it covers its true rate at least 95% of
// the time under the SPRT rule (see ClopperPearson).
const StoppedLevel = 0.99

// bisect finds the boundary in [0, 1] where below(p) turns from true to
// false.
func bisect(below func(p float64) bool) float64 {
	lo, hi := 0.0, 1.0
	for range 60 {
		mid := (lo + hi) / 2
		if below(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// binomCDF is P(X ≤ k) for X ~ Binomial(n, p), summed in log space so large
// n does not overflow.
func binomCDF(k, n int, p float64) float64 {
	if k < 0 {
		return 0
	}
	if k >= n {
		return 1
	}
	if p <= 0 {
		return 1
	}
	if p >= 1 {
		return 0
	}
	lp, lq := math.Log(p), math.Log1p(-p)
	lgn, _ := math.Lgamma(float64(n + 1))
	s := 0.0
	for i := 0; i <= k; i++ {
		a, _ := math.Lgamma(float64(i + 1))
		b, _ := math.Lgamma(float64(n - i + 1))
		s += math.Exp(lgn - a - b + float64(i)*lp + float64(n-i)*lq)
	}
	return min(s, 1)
}
