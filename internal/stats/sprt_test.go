package stats

import (
	"math/rand/v2"
	"testing"
)

func TestSPRTSettlesClearCasesInFour(t *testing.T) {
	s := SPRT{}
	for n := 1; n <= 3; n++ {
		if d := s.Decide(n, n); d != Undecided {
			t.Errorf("Decide(%d,%d) = %d, want undecided", n, n, d)
		}
		if d := s.Decide(0, n); d != Undecided {
			t.Errorf("Decide(0,%d) = %d, want undecided", n, d)
		}
	}
	if d := s.Decide(4, 4); d != Above {
		t.Errorf("Decide(4,4) = %d, want Above", d)
	}
	if d := s.Decide(0, 4); d != Below {
		t.Errorf("Decide(0,4) = %d, want Below", d)
	}
	// Alternating passes and failures never settle: the borderline case.
	for n := 1; n <= 20; n++ {
		if d := s.Decide(n/2, n); d != Undecided {
			t.Errorf("Decide(%d,%d) = %d, want undecided", n/2, n, d)
		}
	}
}

func TestClopperPearsonKnownValues(t *testing.T) {
	// R: binom.test(3, 10)$conf.int = 0.06673951 0.65245285
	lo, hi := Rate{K: 3, N: 10}.ClopperPearson(0.95)
	if d := lo - 0.06673951; d > 1e-6 || d < -1e-6 {
		t.Errorf("lo = %v, want 0.06673951", lo)
	}
	if d := hi - 0.65245285; d > 1e-6 || d < -1e-6 {
		t.Errorf("hi = %v, want 0.65245285", hi)
	}
	if lo, hi := (Rate{K: 4, N: 4}).ClopperPearson(0.95); hi != 1 || lo < 0.39 || lo > 0.40 {
		t.Errorf("4/4: [%v, %v], want [0.398, 1]", lo, hi)
	}
}

// simulateStopped runs the stopping rule of `run --stop-early` (SPRT after
// every trial, at most max trials) on a case of true rate p, and says whether
// the interval stated for it contains p.
func simulateStopped(rng *rand.Rand, s SPRT, p float64, maxN int, interval func(Rate, bool) (float64, float64)) bool {
	k, n := 0, 0
	stopped := false
	for n < maxN {
		if rng.Float64() < p {
			k++
		}
		n++
		if s.Decide(k, n) != Undecided {
			stopped = n < maxN
			break
		}
	}
	lo, hi := interval(Rate{K: k, N: n}, stopped)
	return lo <= p && p <= hi
}

// newStated returns the interval toolgrade states, memoized (runs end at few
// distinct k, n): Clopper-Pearson at StoppedLevel for a case that stopped
// early, Wilson 95% for one that ran every repeat (whose number of trials
// the data did not choose).
func newStated() func(Rate, bool) (float64, float64) {
	cache := map[[3]int][2]float64{}
	return func(r Rate, stopped bool) (float64, float64) {
		key := [3]int{r.K, r.N, 0}
		if stopped {
			key[2] = 1
		}
		if v, ok := cache[key]; ok {
			return v[0], v[1]
		}
		lo, hi := r.Wilson95()
		if stopped {
			lo, hi = r.ClopperPearson(StoppedLevel)
		}
		cache[key] = [2]float64{lo, hi}
		return lo, hi
	}
}

func TestStoppedIntervalCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 20))
	stated := newStated()
	const runs = 4000
	// Coverage of a 95% claim: with 4000 runs, the standard error at 0.95 is
	// 0.0034, so a true coverage of 0.94 would fail this almost surely.
	for _, p := range []float64{0.02, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.98} {
		in := 0
		for range runs {
			if simulateStopped(rng, SPRT{}, p, 20, stated) {
				in++
			}
		}
		if cov := float64(in) / runs; cov < 0.95 {
			t.Errorf("p=%.2f: stated intervals cover %.3f of runs, want ≥ 0.95", p, cov)
		}
	}
}

// TestWilsonUndercoversUnderStopping shows why stopped cases need another
// interval: the plain Wilson interval falls short of its 95% claim at some
// true rate under the stopping rule.
func TestWilsonUndercoversUnderStopping(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 20))
	const runs = 4000
	worst := 1.0
	for _, p := range []float64{0.2, 0.3, 0.35, 0.4, 0.6, 0.65, 0.7, 0.8} {
		in := 0
		for range runs {
			if simulateStopped(rng, SPRT{}, p, 20, func(r Rate, _ bool) (float64, float64) { return r.Wilson95() }) {
				in++
			}
		}
		worst = min(worst, float64(in)/runs)
	}
	if worst >= 0.95 {
		t.Errorf("Wilson's worst coverage under stopping = %.3f; the test no longer shows the problem", worst)
	}
}

// --stop-early's test is per case: it stops repeating a case whose own
// pass rate is settled, so its observations are that case's repeats, which
// are independent given the case however much cases differ (the
// latent-case-probability model of the clustered simulation). Across the
// grid of within-case correlation (0: every case at the mean rate; 1:
// every case always passes or always fails, its repeats copies), a case
// whose own rate is at most Threshold−Delta is called Above, and one at
// least Threshold+Delta called Below, no more often than Alpha (0.05),
// plus 0.01 for the simulation's error (±0.004 at 2,000 cases a point).
func TestSPRTPerCaseUnderClustering(t *testing.T) {
	g := grid()
	rng := rand.New(rand.NewPCG(29, 4))
	s := SPRT{}.Filled()
	p0, p1 := s.hypotheses()
	const maxRepeats, tol = 20, 0.01
	var tab simTable
	tab.row("%-4s %-5s %-10s %-10s %s", "rho", "mu", "wrong", "of", "trials/case")
	for _, rho := range g.rho {
		for _, mu := range []float64{0.2, 0.5, 0.8} {
			wrong, judged, trials := 0, 0, 0
			mean, pi := []float64{1 - mu, mu}, make([]float64, 2)
			for range 2000 {
				caseProbs(rng, mean, rho, pi)
				k, n, d := 0, 0, Undecided
				for n < maxRepeats && d == Undecided {
					if rng.Float64() < pi[1] {
						k++
					}
					n++
					d = s.Decide(k, n)
				}
				trials += n
				switch p := pi[1]; {
				case p <= p0:
					judged++
					if d == Above {
						wrong++
					}
				case p >= p1:
					judged++
					if d == Below {
						wrong++
					}
				}
			}
			e := 0.0
			if judged > 0 {
				e = float64(wrong) / float64(judged)
			}
			tab.row("%-4.1f %-5.2f %-10.4f %-10d %.1f", rho, mu, e, judged, float64(trials)/2000)
			if e > s.Alpha+tol {
				t.Errorf("rho=%v mu=%v: %d of %d cases outside the indifference zone settled the wrong way (%.3f), want ≤ %.2f", rho, mu, wrong, judged, e, s.Alpha+tol)
			}
		}
	}
	t.Log("--stop-early's per-case error under clustering:\n" + tab.b.String())
}
