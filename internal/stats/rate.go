package stats

import (
	"encoding/json"
	"fmt"
	"math"
)

// Z95 is the two-sided 95% standard normal quantile used by Wilson95.
const Z95 = 1.959963984540054

// Rate is K successes out of N trials, such as the share of trials that
// called the right tool. K must lie in [0, N]; values outside are clamped.
// It is the one rate type of every report, comparison and gate: its JSON
// form carries the value and interval beside K and N (see MarshalJSON), and
// Percent is the one way reports render it.
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

// Percent renders the rate as every report shows it: the value to a whole
// percent, then the 95% interval rounded outwards, as in "83% [55–96]"; an
// empty rate is "–". The terminal table, Markdown, comparisons and gates all
// render through it (or Interval), so no format can disagree with another.
func (r Rate) Percent() string {
	if r.Empty() {
		return "–"
	}
	lo, hi := r.Wilson95()
	return fmt.Sprintf("%.0f%% %s", 100*r.Value(), Interval(lo, hi))
}

// Interval renders an interval of proportions as whole percents rounded
// outwards, "[55–96]", so the rendered interval never claims more certainty
// than the computed one.
func Interval(lo, hi float64) string {
	return fmt.Sprintf("[%.0f–%.0f]", math.Floor(100*lo), math.Ceil(100*hi))
}

// rateJSON is Rate's JSON form: K and N, and for readers that do not compute
// intervals the value and the 95% Wilson interval.
type rateJSON struct {
	K     int     `json:"k"`
	N     int     `json:"n"`
	Value float64 `json:"value"`
	Lo    float64 `json:"lo"`
	Hi    float64 `json:"hi"`
}

// MarshalJSON writes {"k", "n", "value", "lo", "hi"}: the value and the 95%
// Wilson interval are derived from K and N.
func (r Rate) MarshalJSON() ([]byte, error) {
	lo, hi := r.Wilson95()
	return json.Marshal(rateJSON{K: r.K, N: r.N, Value: r.Value(), Lo: lo, Hi: hi})
}

// UnmarshalJSON reads K and N; value, lo and hi are derived from them, so they
// are ignored rather than trusted.
func (r *Rate) UnmarshalJSON(b []byte) error {
	var j rateJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*r = Rate{K: j.K, N: j.N}
	return nil
}
