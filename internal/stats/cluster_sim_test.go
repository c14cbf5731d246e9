package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// The clustered simulation: m cases of r repeats each, with a within-case
// correlation rho between the repeats of a case, from 0 (every trial
// independent) to 1 (a case's repeats are exact copies, a model at
// temperature 0). A rate's trials follow the beta-binomial model: case i
// has its own pass probability p_i ~ Beta(μ(1−ρ)/ρ, (1−μ)(1−ρ)/ρ), whose
// intra-case correlation is ρ, and its repeats pass with p_i. A pair's four
// outcomes follow the Dirichlet-multinomial model the same way: case i has
// its own cell probabilities π_i ~ Dirichlet(π(1−ρ)/ρ). The truth is μ (the
// mean over cases) or π_A − π_B.
//
// Tolerances, stated in docs/measures.md too: every grid point's coverage
// of the 95% intervals at least 0.95 − 0.025 = 0.925; the type-I error of
// McNemar's test at 5% at most 0.05 + 0.025, and of the non-inferiority
// verdict (one-sided 2.5%) at most 0.025 + 0.0125. With 2,000 draws a point
// the simulation error is about ±0.005 at 0.95, and ±0.0035 at 0.025.
const (
	simCoverageFloor = 0.95 - 0.025
	simMcNemarCeil   = 0.05 + 0.025
	simNICeil        = 0.025 + 0.0125
)

type simGrid struct {
	cases, repeats []int
	rho, mu        []float64
	draws          int
}

// grid is the full grid, or with -short a reduced one (fewer points, the
// same 2,000 draws a point, so the same tolerance) that runs in a few
// seconds.
func grid() simGrid {
	if testing.Short() {
		return simGrid{cases: []int{10, 30}, repeats: []int{1, 10}, rho: []float64{0, 0.3, 1}, mu: []float64{0.5, 0.8}, draws: 2000}
	}
	return simGrid{cases: []int{10, 30, 100}, repeats: []int{1, 3, 10}, rho: []float64{0, 0.3, 0.7, 1}, mu: []float64{0.5, 0.8, 0.9}, draws: 2000}
}

// gammaDraw is a Gamma(shape, 1) variate (Marsaglia and Tsang, with the
// boost U^(1/shape) for shape < 1).
func gammaDraw(r *rand.Rand, shape float64) float64 {
	if shape < 1 {
		return gammaDraw(r, shape+1) * math.Pow(r.Float64(), 1/shape)
	}
	d := shape - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := r.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := r.Float64()
		if math.Log(u) < 0.5*x*x+d-d*v+d*math.Log(v) {
			return d * v
		}
	}
}

// caseProbs draws one case's outcome probabilities around mean with
// intra-case correlation rho (Dirichlet; at rho 1 one outcome for sure,
// drawn with the mean's probabilities).
func caseProbs(r *rand.Rand, mean []float64, rho float64, out []float64) {
	switch {
	case rho <= 0:
		copy(out, mean)
		return
	case rho >= 1:
		u, acc := r.Float64(), 0.0
		for i, p := range mean {
			out[i] = 0
			acc += p
			if u < acc && acc-p <= u {
				out[i] = 1
			}
		}
		return
	}
	conc, sum := (1-rho)/rho, 0.0
	for i, p := range mean {
		out[i] = 0
		if p > 0 {
			out[i] = gammaDraw(r, p*conc)
		}
		sum += out[i]
	}
	for i := range out {
		out[i] /= sum
	}
}

// pick draws an outcome index from probabilities p.
func pick(r *rand.Rand, p []float64) int {
	u, acc := r.Float64(), 0.0
	for i, x := range p {
		acc += x
		if u < acc {
			return i
		}
	}
	return len(p) - 1
}

// drawClusteredRate draws m cases of r trials of a rate of mean mu.
func drawClusteredRate(rng *rand.Rand, m, r int, mu, rho float64) Rate {
	var sums clusterSums
	mean, pi := []float64{1 - mu, mu}, make([]float64, 2)
	for range m {
		caseProbs(rng, mean, rho, pi)
		k := 0
		for range r {
			if rng.Float64() < pi[1] {
				k++
			}
		}
		sums.addRate(k, r)
	}
	return sums.rate()
}

// drawClusteredPairs draws m cases of r pairs whose cells have mean
// probabilities (both, onlyA, onlyB, neither).
func drawClusteredPairs(rng *rand.Rand, m, r int, cells []float64, rho float64) PairedCounts {
	var sums clusterSums
	var total PairedCounts
	pi := make([]float64, 4)
	for range m {
		caseProbs(rng, cells, rho, pi)
		var c CasePairs
		for range r {
			switch pick(rng, pi) {
			case 0:
				c.Both++
			case 1:
				c.OnlyA++
			case 2:
				c.OnlyB++
			default:
				c.Neither++
			}
		}
		sums.addPaired(c)
		total.Both += int(c.Both)
		total.OnlyA += int(c.OnlyA)
		total.OnlyB += int(c.OnlyB)
		total.Neither += int(c.Neither)
	}
	total.Cases, total.Deff, total.m = sums.cases, sums.deff(), sums.moments()
	return total
}

// simTable collects a grid's figures for the log: one line per point.
type simTable struct{ b strings.Builder }

func (t *simTable) row(format string, a ...any) { fmt.Fprintf(&t.b, format+"\n", a...) }

// The Wilson interval of a clustered rate covers the mean pass rate of the
// cases at every grid point.
func TestClusteredRateCoverage(t *testing.T) {
	t.Parallel()
	g := grid()
	rng := rand.New(rand.NewPCG(29, 1))
	var tab simTable
	tab.row("%-4s %-3s %-4s %-5s %s", "m", "r", "rho", "mu", "coverage")
	for _, mu := range g.mu {
		for _, m := range g.cases {
			for _, r := range g.repeats {
				for _, rho := range g.rho {
					hit := 0
					for range g.draws {
						lo, hi := drawClusteredRate(rng, m, r, mu, rho).Wilson95()
						if lo <= mu && mu <= hi {
							hit++
						}
					}
					cov := float64(hit) / float64(g.draws)
					tab.row("%-4d %-3d %-4.1f %-5.2f %.3f", m, r, rho, mu, cov)
					if cov < simCoverageFloor {
						t.Errorf("rate m=%d r=%d rho=%v mu=%v: coverage %.3f, want ≥ %.3f", m, r, rho, mu, cov, simCoverageFloor)
					}
				}
			}
		}
	}
	t.Log("Wilson 95% on clustered rates:\n" + tab.b.String())
}

// pairedCellsOf is the four cells' mean probabilities (both, onlyA, onlyB,
// neither) of rates pA and pB with a share disc of discordant pairs.
func pairedCellsOf(pA, pB, disc float64) []float64 {
	onlyA, onlyB, both, _ := pairedCells(pA, pB, disc)
	return []float64{both, onlyA, onlyB, 1 - both - onlyA - onlyB}
}

// Tango's interval on clustered pairs covers the true difference, and
// McNemar's test on them keeps its level when the two sides are equal.
func TestClusteredPairedCoverage(t *testing.T) {
	t.Parallel()
	g := grid()
	rng := rand.New(rand.NewPCG(29, 2))
	var tab simTable
	tab.row("%-4s %-3s %-4s %-16s %-8s %s", "m", "r", "rho", "pB,d,disc", "coverage", "mcnemar type-I")
	for _, tc := range []struct{ pB, d, disc float64 }{{0.8, 0, 0.1}, {0.5, 0, 0.3}, {0.8, -0.05, 0.15}} {
		cells := pairedCellsOf(tc.pB+tc.d, tc.pB, tc.disc)
		for _, m := range g.cases {
			for _, r := range g.repeats {
				for _, rho := range g.rho {
					hit, reject := 0, 0
					for range g.draws {
						c := drawClusteredPairs(rng, m, r, cells, rho)
						if lo, hi := PairedDiffInterval(c, 0.95); lo <= tc.d && tc.d <= hi {
							hit++
						}
						if McNemarCounts(c) < 0.05 {
							reject++
						}
					}
					cov := float64(hit) / float64(g.draws)
					typeI := "–"
					if tc.d == 0 {
						typeI = fmt.Sprintf("%.3f", float64(reject)/float64(g.draws))
						if e := float64(reject) / float64(g.draws); e > simMcNemarCeil {
							t.Errorf("McNemar m=%d r=%d rho=%v %+v: type-I error %.3f, want ≤ %.3f", m, r, rho, tc, e, simMcNemarCeil)
						}
					}
					tab.row("%-4d %-3d %-4.1f %-16s %-8.3f %s", m, r, rho, fmt.Sprintf("%.2f,%+.2f,%.2f", tc.pB, tc.d, tc.disc), cov, typeI)
					if cov < simCoverageFloor {
						t.Errorf("paired m=%d r=%d rho=%v %+v: coverage %.3f, want ≥ %.3f", m, r, rho, tc, cov, simCoverageFloor)
					}
				}
			}
		}
	}
	t.Log("Tango 95% and McNemar 5% on clustered pairs:\n" + tab.b.String())
}

// A candidate exactly on the margin (π_A − π_B = −M) is called not worse
// no more often than the one-sided level, however its pairs cluster.
func TestClusteredNonInferiorityTypeI(t *testing.T) {
	t.Parallel()
	g := grid()
	rng := rand.New(rand.NewPCG(29, 3))
	const margin = 0.1
	var tab simTable
	tab.row("%-4s %-3s %-4s %-10s %s", "m", "r", "rho", "pB,disc", "type-I")
	for _, tc := range []struct{ pB, disc float64 }{{0.9, 0.1}, {0.7, 0.2}} {
		cells := pairedCellsOf(tc.pB-margin, tc.pB, tc.disc)
		for _, m := range g.cases {
			for _, r := range g.repeats {
				for _, rho := range g.rho {
					wrong := 0
					for range g.draws {
						lo, hi := PairedDiffInterval(drawClusteredPairs(rng, m, r, cells, rho), 0.95)
						if NonInferiority(lo, hi, margin) == NINotWorse {
							wrong++
						}
					}
					e := float64(wrong) / float64(g.draws)
					tab.row("%-4d %-3d %-4.1f %-10s %.3f", m, r, rho, fmt.Sprintf("%.2f,%.2f", tc.pB, tc.disc), e)
					if e > simNICeil {
						t.Errorf("non-inferiority m=%d r=%d rho=%v %+v: type-I error %.3f, want ≤ %.4f", m, r, rho, tc, e, simNICeil)
					}
				}
			}
		}
	}
	t.Logf("non-inferiority at %s on the margin, one-sided 2.5%%:\n%s", Points(margin), tab.b.String())
}
