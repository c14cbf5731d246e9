package stats

import (
	"fmt"
	"math"
)

// Z95 is the two-sided 95% standard normal quantile used by Wilson95.
const Z95 = 1.959963984540054

// Rate is K successes out of N trials, such as the share of trials that
// called the right tool. K must lie in [0, N]; values outside are clamped.
type Rate struct {
	K, N int
}

// Empty reports whether the rate has no trials, in which case Value is a
// placeholder 0 and the interval is the uninformative [0, 1].
func (r Rate) Empty() bool { return r.N <= 0 }

// k returns K clamped into [0, N].
func (r Rate) k() int { return max(0, min(r.K, r.N)) }

// Value is the observed proportion K/N, or 0 when Empty; check Empty before
// reading a 0 as "never succeeded".
func (r Rate) Value() float64 {
	if r.Empty() {
		return 0
	}
	return float64(r.k()) / float64(r.N)
}

// Wilson returns the Wilson score interval for the proportion at normal
// quantile z (|z| is used). Unlike the normal approximation it stays inside
// [0, 1] and is honest at 0/N and N/N; an empty rate gives (0, 1).
func (r Rate) Wilson(z float64) (lo, hi float64) {
	if r.Empty() {
		return 0, 1
	}
	k, n := r.k(), float64(r.N)
	p := float64(k) / n
	z2 := z * z
	denom := 1 + z2/n
	center := (p + z2/(2*n)) / denom
	half := math.Abs(z) / denom * math.Sqrt(p*(1-p)/n+z2/(4*n*n))
	lo, hi = max(0, center-half), min(1, center+half)
	// Pin the ends exactly: rounding must not suggest a success was seen
	// at 0/N or a failure at N/N.
	if k == 0 {
		lo = 0
	}
	if k == r.N {
		hi = 1
	}
	return lo, hi
}

// Wilson95 is the 95% Wilson score interval.
func (r Rate) Wilson95() (lo, hi float64) { return r.Wilson(Z95) }

// String renders the rate with its 95% interval, as in
// "83.3% [55.2–95.3] (10/12)", and an empty rate as "–".
func (r Rate) String() string {
	if r.Empty() {
		return "–"
	}
	lo, hi := r.Wilson95()
	return fmt.Sprintf("%.1f%% [%.1f–%.1f] (%d/%d)", 100*r.Value(), 100*lo, 100*hi, r.k(), r.N)
}
