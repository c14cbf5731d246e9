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
//
// The trials of one case are one cluster (see RateCases): Cases and Deff
// say how many cases the trials came from and their design effect, and
// every interval is computed on the effective counts K/Deff of N/Deff, so
// ten agreeing repeats of a case weigh as one trial. The zero Cases and
// Deff (a Rate built from K and N alone, or read from an older
// summary.json) treat every trial as independent, as does a Deff of 1.
type Rate struct {
	K, N int
	// Cases is the number of cases the trials came from; 0 when unknown.
	Cases int
	// Deff is the design effect of the cases' clusters at the observed
	// rate, at least 1; 0 or 1 treats the trials as independent.
	Deff float64
	// m are the cases' sums from which the interval takes the design
	// effect at each rate it tries (deffAt); zero for a rate built by
	// hand, which then uses Deff throughout.
	m moments
}

// deffAt is the design effect of the rate's clusters about a hypothesised
// rate p: the cases' second moment about p over the trials' one,
// Σ(k_i − p·n_i)² / Σ(y − p)², times the small-sample factor and clamped
// as Deff is (see clusterSums.deff). At the observed rate it is Deff.
// Measuring the spread about the rate tried, as the Wilson interval's own
// variance p(1−p)/N does, keeps the interval's level with few cases whose
// rates differ widely, where the spread about the observed rate is
// often too small.
func (r Rate) deffAt(p float64) float64 {
	if r.m.nn == 0 {
		return max(1, r.Deff)
	}
	n, k := float64(r.N), float64(r.k())
	if float64(r.m.nn) == n {
		return 1
	}
	upper := float64(r.m.nn) / n
	den := k - 2*p*k + p*p*n
	num := float64(r.m.ss) - 2*p*float64(r.m.ns) + p*p*float64(r.m.nn)
	if !(den > 0) {
		return upper
	}
	return min(max(num/den*smallSample(r.Cases), 1), upper)
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

// clustered reports whether the rate's trials count for fewer than N
// independent ones.
func (r Rate) clustered() bool { return r.Deff > 1 }

// Effective is the rate's counts divided by its design effect: the number
// of independent trials its clustered trials are worth (Cases when every
// case's repeats agreed), and the passes among them. They equal K and N
// when the trials are independent.
func (r Rate) Effective() (k, n float64) {
	if !r.clustered() {
		return float64(r.k()), float64(r.N)
	}
	return float64(r.k()) / r.Deff, float64(r.N) / r.Deff
}

// Wilson returns the Wilson score interval for the proportion at normal
// quantile z (|z| is used), on the effective counts (see Effective). Unlike
// the normal approximation it stays inside [0, 1] and is honest at 0/N and
// N/N; an empty rate gives (0, 1).
func (r Rate) Wilson(z float64) (lo, hi float64) {
	if r.Empty() {
		return 0, 1
	}
	if r.clustered() && r.m.nn > 0 {
		return r.wilsonClustered(z)
	}
	k := r.k()
	p := float64(k) / float64(r.N)
	_, n := r.Effective()
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

// wilsonClustered inverts the Wilson score test with the design effect
// taken at each rate tried: the rates p with
// |K/N − p| ≤ |z|·√(deffAt(p)·p(1−p)/N). With a design effect of 1
// everywhere it is Wilson's interval.
func (r Rate) wilsonClustered(z float64) (lo, hi float64) {
	k, n := r.k(), float64(r.N)
	obs := float64(k) / n
	z = math.Abs(z)
	score := func(p float64) float64 {
		v := r.deffAt(p) * p * (1 - p) / n
		if v <= 0 {
			return math.Copysign(math.Inf(1), obs-p)
		}
		return (obs - p) / math.Sqrt(v)
	}
	hi = 1
	if k > 0 {
		lo = bisect(func(p float64) bool { return p < obs && score(p) > z })
	}
	if k < r.N {
		hi = bisect(func(p float64) bool { return p <= obs || score(p) > -z })
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
	Cases int     `json:"cases,omitempty"`
	Deff  float64 `json:"deff,omitempty"`
	// CaseSums are Σk_i², Σn_i·k_i and Σn_i² over the cases, from which
	// the interval takes its design effect; absent when unknown.
	CaseSums *[3]int64 `json:"case_sums,omitempty"`
	Value    float64   `json:"value"`
	Lo       float64   `json:"lo"`
	Hi       float64   `json:"hi"`
}

// MarshalJSON writes {"k", "n", "cases", "deff", "case_sums", "value",
// "lo", "hi"}: the value and the 95% Wilson interval are derived from K, N
// and the cases' sums; cases, deff and case_sums are left out when
// unknown.
func (r Rate) MarshalJSON() ([]byte, error) {
	lo, hi := r.Wilson95()
	j := rateJSON{K: r.K, N: r.N, Cases: r.Cases, Deff: r.Deff, Value: r.Value(), Lo: lo, Hi: hi}
	if r.m.nn > 0 {
		j.CaseSums = &[3]int64{r.m.ss, r.m.ns, r.m.nn}
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads K, N, cases, deff and case_sums; value, lo and hi are derived
// from them, so they are ignored rather than trusted. A rate written
// before cases were counted reads as independent trials.
func (r *Rate) UnmarshalJSON(b []byte) error {
	var j rateJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*r = Rate{K: j.K, N: j.N, Cases: j.Cases, Deff: j.Deff}
	if cs := j.CaseSums; cs != nil {
		r.m = moments{ss: cs[0], ns: cs[1], nn: cs[2]}
	}
	return nil
}
