package stats

import (
	"math"
	"math/big"
	"sync"
)

// A case is the unit of evidence: the repeats of one case (per model and
// variant) are one cluster, since a model at temperature 0 answers a case
// the same way every time and ten copies of an answer are one observation.
// Every interval and test here treats clusters with the design-effect
// adjustment of Rao and Scott (J. N. K. Rao and A. J. Scott, "A simple
// method for the analysis of clustered binary data", Biometrics 48,
// 577–585, 1992), and paired outcomes with the same adjustment applied to
// the paired difference, which is the clustered McNemar test of Obuchowski
// (Statistics in Medicine 17, 1495–1507, 1998) and Durkalski et al.
// (Statistics in Medicine 22, 2417–2428, 2003); see also Miller, "Adding
// Error Bars to Evals" (arXiv:2411.00640, 2024) on clustered standard
// errors. The trials are divided by the design effect, the ratio of the
// cluster-robust variance to the variance that treats every trial as
// independent, and the usual interval or test runs on those effective
// counts. One trial per case gives a design effect of exactly 1: the
// numbers of independent trials.

// clusterSums are the integer sums over the cases of one rate or paired
// difference that its design effect is made of. A trial contributes y,
// 0 or 1 for a rate and −1, 0 or +1 for a paired difference; case i has
// n_i trials summing to s_i. The sums are exact integers, so the design
// effect does not depend on the order the trials or cases came in.
type clusterSums struct {
	cases int
	n     int64 // Σ n_i: the trials
	s     int64 // Σ s_i
	q     int64 // Σ y²: the trials with y ≠ 0
	nn    int64 // Σ n_i²
	ns    int64 // Σ n_i·s_i
	ss    int64 // Σ s_i²
	// repeated counts the cases with more than one trial, agree those of
	// them whose trials all had the same outcome.
	repeated, agree int
}

// add counts one case of n trials whose values sum to s, q of them nonzero;
// same says its trials all had the same outcome.
func (c *clusterSums) add(n, s, q int, same bool) {
	if n <= 0 {
		return
	}
	c.cases++
	c.n += int64(n)
	c.s += int64(s)
	c.q += int64(q)
	c.nn += int64(n) * int64(n)
	c.ns += int64(n) * int64(s)
	c.ss += int64(s) * int64(s)
	if n > 1 {
		c.repeated++
		if same {
			c.agree++
		}
	}
}

// deff is the design effect: the cluster-robust variance of the mean,
// Σ(s_i − ȳ·n_i)²/N², over the variance that treats the N trials as
// independent, (Q − S²/N)/N². It is
//
//	deff = Σ(N·s_i − S·n_i)² / (N·(N·Q − S²))
//
// clamped to [1, Σn_i²/N]: never narrower than independent trials, and
// never wider than exact copies within each case (Σn_i²/N is N over the
// Kish effective number of cases, the number of cases when they have
// equal repeats). With no variance to estimate it from (every trial alike:
// a rate of 0 or 1, no discordant pair) it is the conservative Σn_i²/N,
// each case one observation. One trial per case gives exactly 1.
func (c *clusterSums) deff() float64 {
	if c.n <= 0 || c.nn == c.n {
		return 1
	}
	n := big.NewInt(c.n)
	s := big.NewInt(c.s)
	// den = N·(N·Q − S²)
	den := new(big.Int).Mul(n, big.NewInt(c.q))
	den.Sub(den, new(big.Int).Mul(s, s))
	upper := float64(c.nn) / float64(c.n)
	if den.Sign() <= 0 {
		return upper
	}
	den.Mul(den, n)
	// num = N²·Σs_i² − 2·S·N·Σn_i·s_i + S²·Σn_i²
	num := new(big.Int).Mul(new(big.Int).Mul(n, n), big.NewInt(c.ss))
	num.Sub(num, new(big.Int).Mul(new(big.Int).Mul(big.NewInt(2), s), new(big.Int).Mul(n, big.NewInt(c.ns))))
	num.Add(num, new(big.Int).Mul(new(big.Int).Mul(s, s), big.NewInt(c.nn)))
	d, _ := new(big.Rat).SetFrac(num, den).Float64()
	return min(max(d*smallSample(c.cases), 1), upper)
}

// smallSample is the factor that keeps a design effect estimated from few
// cases from claiming too much: m/(m − 1), the usual correction of the
// cluster-robust variance for the degrees of freedom it spends, times
// (t/z)², the 95% quantile of Student's t with m − 1 degrees of freedom
// over the normal one, since the variance is estimated from m clusters
// (for 10 cases, 1.48; for 30, 1.13; for 100, 1.05).
func smallSample(m int) float64 {
	if m < 2 {
		return 1
	}
	f := float64(m) / float64(m-1)
	var t float64
	if df := m - 1; df < len(fewCasesT95{}) {
		t = fewCasesT()[df]
	} else {
		t = studentQuantile(0.975, float64(df))
	}
	return f * (t / Z95) * (t / Z95)
}

// fewCasesT95 holds the 97.5% quantiles of Student's t for 1 to 4 degrees
// of freedom, where studentQuantile inverts the distribution by bisection:
// an interval's own bisection asks for one at each of its steps.
type fewCasesT95 [5]float64

var fewCasesT = sync.OnceValue(func() fewCasesT95 {
	var t fewCasesT95
	for df := 1; df < len(t); df++ {
		t[df] = studentQuantile(0.975, float64(df))
	}
	return t
})

// studentQuantile is the p quantile (p > ½) of Student's t with df degrees
// of freedom: from 5 degrees of freedom on, the Cornish-Fisher expansion
// (G. W. Hill, Communications of the ACM 13, 617–619, 1970; relative error
// below 2·10⁻⁴ at 95%); below, P(T ≤ t) = 1 − ½·I_{df/(df+t²)}(df/2, ½)
// inverted by bisection.
func studentQuantile(p, df float64) float64 {
	if df >= 5 {
		z := NormalQuantile(p)
		z2 := z * z
		g1 := (z2 + 1) * z / 4
		g2 := ((5*z2+16)*z2 + 3) * z / 96
		g3 := (((3*z2+19)*z2+17)*z2 - 15) * z / 384
		g4 := ((((79*z2+776)*z2+1482)*z2-1920)*z2 - 945) * z / 92160
		return z + g1/df + g2/(df*df) + g3/(df*df*df) + g4/(df*df*df*df)
	}
	cdf := func(t float64) float64 { return 1 - 0.5*regIncBeta(df/2, 0.5, df/(df+t*t)) }
	lo, hi := 0.0, 1.0
	for cdf(hi) < p {
		hi *= 2
	}
	for range 100 {
		mid := (lo + hi) / 2
		if cdf(mid) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// Evidence is what a rate or a comparison rests on: how many cases, how
// many trials, and on how many of the cases that ran more than once every
// repeat agreed. It renders as reports say it (see String).
type Evidence struct {
	Cases  int `json:"cases"`
	Trials int `json:"trials"`
	// Repeated counts the cases with more than one trial, Agree those of
	// them whose repeats all had the same outcome.
	Repeated int `json:"repeated_cases,omitempty"`
	Agree    int `json:"cases_agree,omitempty"`
}

// moments are the sums a paired difference's design effect at a
// hypothesised difference needs beyond the four counts (see
// PairedCounts.deffAt); the zero value is unknown.
type moments struct {
	ss, ns, nn int64
}

func (c *clusterSums) moments() moments { return moments{ss: c.ss, ns: c.ns, nn: c.nn} }

func (c *clusterSums) evidence() Evidence {
	return Evidence{Cases: c.cases, Trials: int(c.n), Repeated: c.repeated, Agree: c.agree}
}

// String is the one phrasing of the evidence every report uses:
// "11 cases (110 trials, repeats agree on 11 of 11 cases)", "100 cases (one
// trial each)", "1 case (1 trial)".
func (e Evidence) String() string {
	cases := plural(e.Cases, "case")
	switch {
	case e.Cases == 0:
		return "no case"
	case e.Trials == e.Cases && e.Cases == 1:
		return cases + " (1 trial)"
	case e.Trials == e.Cases:
		return cases + " (one trial each)"
	}
	of := plural(e.Repeated, "case")
	if e.Repeated < e.Cases {
		of = plural(e.Repeated, "repeated case")
	}
	return cases + " (" + plural(e.Trials, "trial") + ", repeats agree on " + itoa(e.Agree) + " of " + of + ")"
}

// AllAgree reports whether the evidence has repeats and every repeated
// case's repeats agreed: more repeats would add nothing to it.
func (e Evidence) AllAgree() bool { return e.Repeated > 0 && e.Agree == e.Repeated }

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return itoa(n) + " " + noun + "s"
}

func itoa(n int) string { return big.NewInt(int64(n)).String() }

// CaseTally is one case's passes K of its trials N.
type CaseTally struct{ K, N int32 }

// RateCases tallies one rate case by case: element i is the caller's case
// i, so that many rates of the same cases share one numbering (a map from
// case id to index kept once by the caller). A case no trial of the rate
// counted stays {0, 0} and counts nowhere. The zero value is ready to use;
// not safe for concurrent use.
type RateCases []CaseTally

// at returns case i's tally, growing the slice as needed.
func (r *RateCases) at(i int) *CaseTally {
	if i >= len(*r) {
		*r = append(*r, make([]CaseTally, i+1-len(*r))...)
	}
	return &(*r)[i]
}

// Add counts one trial of case i: ok when it met the rate.
func (r *RateCases) Add(i int, ok bool) {
	k := 0
	if ok {
		k = 1
	}
	r.AddCounts(i, k, 1)
}

// AddCounts counts k passes of n trials of case i.
func (r *RateCases) AddCounts(i, k, n int) {
	c := r.at(i)
	c.K += int32(k)
	c.N += int32(n)
}

// Rate is the passes of every case over their trials, with the cases and
// their design effect.
func (r RateCases) Rate() Rate {
	var sums clusterSums
	for _, c := range r {
		sums.addRate(int(c.K), int(c.N))
	}
	return sums.rate()
}

// addRate counts a case of k passes in n trials.
func (c *clusterSums) addRate(k, n int) {
	k = max(0, min(k, n))
	c.add(n, k, k, k == 0 || k == n)
}

// rate is the clusters' Rate: the passes over the trials, with the cases
// and their design effect.
func (c *clusterSums) rate() Rate {
	if c.n == 0 {
		return Rate{}
	}
	return Rate{K: int(c.s), N: int(c.n), Cases: c.cases, Deff: c.deff(), m: c.moments()}
}

// Evidence is the cases and trials the rate rests on.
func (r RateCases) Evidence() Evidence {
	var sums clusterSums
	for _, c := range r {
		sums.addRate(int(c.K), int(c.N))
	}
	return sums.evidence()
}

// CasePairs is one case's paired outcomes: both met, only A, only B,
// neither.
type CasePairs struct{ Both, OnlyA, OnlyB, Neither int32 }

func (c CasePairs) n() int { return int(c.Both + c.OnlyA + c.OnlyB + c.Neither) }

// PairedCases accumulates paired outcomes (pairs matched by case and
// repeat) case by case, element i the caller's case i as in RateCases;
// its Counts carry the design effect of the paired difference. The zero
// value is ready to use; not safe for concurrent use.
type PairedCases []CasePairs

// Add counts one pair of case i: a and b say whether A and B met the rate.
func (p *PairedCases) Add(i int, a, b bool) {
	if i >= len(*p) {
		*p = append(*p, make([]CasePairs, i+1-len(*p))...)
	}
	c := &(*p)[i]
	switch {
	case a && b:
		c.Both++
	case a:
		c.OnlyA++
	case b:
		c.OnlyB++
	default:
		c.Neither++
	}
}

// sums are the clusters of the paired difference: +1 for a pair only A
// met, −1 for one only B met.
func (p PairedCases) sums() clusterSums {
	var sums clusterSums
	for _, c := range p {
		sums.addPaired(c)
	}
	return sums
}

// addPaired counts one case's pairs.
func (s *clusterSums) addPaired(c CasePairs) {
	n := c.n()
	same := int(c.Both) == n || int(c.OnlyA) == n || int(c.OnlyB) == n || int(c.Neither) == n
	s.add(n, int(c.OnlyA-c.OnlyB), int(c.OnlyA+c.OnlyB), same)
}

// Counts is the four outcomes summed over the cases, with the design
// effect of their clusters.
func (p PairedCases) Counts() PairedCounts {
	var out PairedCounts
	for _, c := range p {
		out.Both += int(c.Both)
		out.OnlyA += int(c.OnlyA)
		out.OnlyB += int(c.OnlyB)
		out.Neither += int(c.Neither)
	}
	if out.N() == 0 {
		return out
	}
	s := p.sums()
	out.Cases, out.Deff, out.m = s.cases, s.deff(), s.moments()
	return out
}

// Evidence is the cases and pairs the counts rest on; a case's repeats
// agree when every one of its pairs came out the same way.
func (p PairedCases) Evidence() Evidence {
	s := p.sums()
	return s.evidence()
}

// Components are the one-way analysis-of-variance estimates of the
// variance of the paired difference between cases (Between) and within a
// case (Within): the variance of the mean of m cases of r repeats each is
// about Between/m + Within/(m·r). Within is 0 when every case's repeats
// agreed, and unknown (NaN-free: Known false) with one trial per case.
type Components struct {
	Between float64 `json:"between_cases"`
	Within  float64 `json:"within_case"`
	// Known is false when no case has more than one trial: within-case
	// variance cannot be told apart from between-case variance.
	Known bool `json:"known"`
}

// Components estimates the variance components of the paired difference
// with the usual ANOVA estimators: MSW = Σ within-case squares/(N − m),
// MSB = Σ n_i(ȳ_i − ȳ)²/(m − 1), n₀ = (N − Σn_i²/N)/(m − 1),
// Between = max(0, (MSB − MSW)/n₀), Within = MSW.
func (p PairedCases) Components() Components {
	s := p.sums()
	m, n := float64(s.cases), float64(s.n)
	if s.cases < 2 || s.n == int64(s.cases) {
		return Components{}
	}
	// Within-case squares: Σ y² − Σ s_i²/n_i.
	within := float64(s.q)
	for _, c := range p {
		if k := c.n(); k > 0 {
			d := float64(c.OnlyA - c.OnlyB)
			within -= d * d / float64(k)
		}
	}
	within = max(0, within)
	msw := within / (n - m)
	between := float64(s.q) - within - float64(s.s)*float64(s.s)/n
	msb := max(0, between) / (m - 1)
	n0 := (n - float64(s.nn)/n) / (m - 1)
	if within < 1e-12 {
		msw = 0
	}
	return Components{Between: max(0, (msb-msw)/n0), Within: msw, Known: true}
}

// RepeatsNeeded is the repeats per case with which cases cases would do
// the work of pairs independent pairs; 0 when no number of repeats would
// (the between-case variance alone is too much for that many cases), or
// the components are unknown.
func (c Components) RepeatsNeeded(pairs, cases int) int {
	total := c.Between + c.Within
	if !c.Known || total <= 0 || pairs <= 0 || cases <= 0 {
		return 0
	}
	// cases·(B+W)/(B+W/r) ≥ pairs ⇔ W/r ≤ cases·(B+W)/pairs − B.
	room := float64(cases)*total/float64(pairs) - c.Between
	if room <= 0 || c.Within <= 0 {
		return 0
	}
	return max(1, int(math.Ceil(c.Within/room-1e-9)))
}

// CasesNeeded turns a number of independent pairs that would decide into
// the number of cases of repeats trials each that would do as well, from
// the variance components: a case of r repeats is worth
// (Between + Within)/(Between + Within/r) independent pairs. With no
// variance observed at all, or components unknown, a case is worth one
// pair (the conservative reading: repeats may be copies).
func (c Components) CasesNeeded(pairs int, repeats float64) int {
	if pairs <= 0 {
		return 0
	}
	total := c.Between + c.Within
	if !c.Known || total <= 0 || repeats <= 1 {
		return pairs
	}
	perCase := total / (c.Between + c.Within/repeats)
	return max(1, int(math.Ceil(float64(pairs)/perCase-1e-9)))
}
