package stats

import (
	"encoding/json"
	"math"
	"testing"
)

// One trial per case is today's arithmetic exactly: the design effect is
// 1 and every interval and test equals the independent one, bit for bit.
func TestOneRepeatIsIndependent(t *testing.T) {
	for _, tt := range []struct{ k, n int }{{0, 10}, {10, 10}, {7, 11}, {81, 263}, {1, 3}} {
		var rc RateCases
		for i := range tt.n {
			rc.Add(i, i < tt.k)
		}
		r := rc.Rate()
		if r.Deff != 1 || r.Cases != tt.n || r.K != tt.k || r.N != tt.n {
			t.Fatalf("%d/%d: %+v, want deff 1 over %d cases", tt.k, tt.n, r, tt.n)
		}
		lo, hi := r.Wilson95()
		wlo, whi := Rate{K: tt.k, N: tt.n}.Wilson95()
		if lo != wlo || hi != whi {
			t.Errorf("%d/%d: (%v, %v), want today's (%v, %v)", tt.k, tt.n, lo, hi, wlo, whi)
		}
	}
	pairs := PairedCounts{Both: 59, OnlyA: 6, OnlyB: 16, Neither: 80}
	var pc PairedCases
	i := 0
	for cell, n := range map[[2]bool]int{{true, true}: 59, {true, false}: 6, {false, true}: 16, {false, false}: 80} {
		for range n {
			pc.Add(i, cell[0], cell[1])
			i++
		}
	}
	c := pc.Counts()
	if c.Deff != 1 || c.Cases != 161 || c.N() != pairs.N() {
		t.Fatalf("counts %+v, want deff 1 over 161 cases", c)
	}
	lo, hi := PairedDiffInterval(c, 0.95)
	wlo, whi := PairedDiffInterval(pairs, 0.95)
	if lo != wlo || hi != whi || SmallestMargin(c, 0.95) != SmallestMargin(pairs, 0.95) {
		t.Errorf("interval (%v, %v), want today's (%v, %v)", lo, hi, wlo, whi)
	}
	if McNemarCounts(c) != McNemar(6, 16) {
		t.Errorf("McNemarCounts = %v, want McNemar(6, 16) = %v", McNemarCounts(c), McNemar(6, 16))
	}
}

// Ten exact copies of each of 11 cases are 11 observations: the rate's
// interval is the Wilson interval of the 11 cases, and identical models'
// difference interval that of 11 concordant pairs.
func TestCopiesCountOnce(t *testing.T) {
	var rc RateCases
	var pc PairedCases
	for i := range 11 {
		for range 10 {
			rc.Add(i, i < 8)
			pc.Add(i, i < 8, i < 8)
		}
	}
	r := rc.Rate()
	if r.Deff != 10 || r.K != 80 || r.N != 110 {
		t.Fatalf("rate %+v, want 80/110 at deff 10", r)
	}
	lo, hi := r.Wilson95()
	wlo, whi := Rate{K: 8, N: 11}.Wilson95()
	if math.Abs(lo-wlo) > 1e-9 || math.Abs(hi-whi) > 1e-9 {
		t.Errorf("copies: (%v, %v), want the 11 cases' (%v, %v)", lo, hi, wlo, whi)
	}
	c := pc.Counts()
	lo, hi = PairedDiffInterval(c, 0.95)
	wlo, whi = PairedDiffInterval(PairedCounts{Both: 8, Neither: 3}, 0.95)
	if math.Abs(lo-wlo) > 1e-9 || math.Abs(hi-whi) > 1e-9 || c.EffectiveN() != 11 {
		t.Errorf("identical models: (%v, %v) over %v, want 11 pairs' (%v, %v)", lo, hi, c.EffectiveN(), wlo, whi)
	}
	if v := NonInferiority(lo, hi, 0.05); v != NIUndecided {
		t.Errorf("11 cases × 10 copies at 5 pts: %v, want undecided", v)
	}
	if e := pc.Evidence(); e.String() != "11 cases (110 trials, repeats agree on 11 of 11 cases)" || !e.AllAgree() {
		t.Errorf("evidence %q", e)
	}
}

// A model that fails 40 of 100 cases more than another, ten copies each,
// is judged on 100 cases: worse by more than 5 points; McNemar on the
// effective counts 40 and 0 equals McNemar(40, 0).
func TestClusteredCopiesOfAWorseModel(t *testing.T) {
	var pc PairedCases
	for i := range 100 {
		for range 10 {
			pc.Add(i, i >= 40, true)
		}
	}
	c := pc.Counts()
	lo, hi := PairedDiffInterval(c, 0.95)
	if v := NonInferiority(lo, hi, 0.05); v != NIWorse {
		t.Errorf("(%v, %v): %v, want worse", lo, hi, v)
	}
	if p, want := McNemarCounts(c), McNemar(0, 40); math.Abs(p-want) > 1e-12*want {
		t.Errorf("McNemarCounts = %v, want McNemar(0, 40) = %v", p, want)
	}
}

// The incomplete beta tail equals the binomial one at whole counts.
func TestRegIncBetaIsBinomialTail(t *testing.T) {
	for _, tt := range []struct {
		k, n int
		p    float64
	}{{3, 10, 0.5}, {0, 7, 0.5}, {12, 40, 0.3}, {5, 6, 0.9}, {50, 200, 0.2}} {
		want := binomCDF(tt.k, tt.n, tt.p)
		got := regIncBeta(float64(tt.n-tt.k), float64(tt.k+1), 1-tt.p)
		if math.Abs(got-want) > 1e-10 {
			t.Errorf("P(X ≤ %d | %d, %v) = %v, want %v", tt.k, tt.n, tt.p, got, want)
		}
	}
	// Fractional counts fall between their whole neighbours.
	if a, b, c := McNemarCounts(PairedCounts{OnlyA: 2, OnlyB: 16, Deff: 2}), McNemar(1, 8), McNemar(1, 7); math.Abs(a-b) > 1e-12 {
		t.Errorf("deff 2 of (2, 16) = %v, want McNemar(1, 8) = %v (McNemar(1, 7) = %v)", a, b, c)
	}
	if p := McNemarCounts(PairedCounts{OnlyA: 3, OnlyB: 17, Deff: 2}); !(p > McNemar(1, 8) && p < McNemar(2, 8)) {
		t.Errorf("deff 2 of (3, 17) = %v, want between McNemar(1, 8) and McNemar(2, 8)", p)
	}
}

func TestStudentQuantile(t *testing.T) {
	// R: qt(0.975, c(1, 2, 4, 9, 29, 99))
	for df, want := range map[float64]float64{1: 12.7062047, 2: 4.3026527, 4: 2.7764451, 9: 2.2621572, 29: 2.0452296, 99: 1.9842169} {
		if got := studentQuantile(0.975, df); math.Abs(got-want) > 5e-4*want {
			t.Errorf("t(0.975, %v) = %v, want %v", df, got, want)
		}
	}
}

func TestEvidenceString(t *testing.T) {
	for e, want := range map[Evidence]string{
		{Cases: 11, Trials: 110, Repeated: 11, Agree: 11}: "11 cases (110 trials, repeats agree on 11 of 11 cases)",
		{Cases: 100, Trials: 100}:                         "100 cases (one trial each)",
		{Cases: 1, Trials: 1}:                             "1 case (1 trial)",
		{Cases: 5, Trials: 8, Repeated: 3, Agree: 1}:      "5 cases (8 trials, repeats agree on 1 of 3 repeated cases)",
		{}: "no case",
	} {
		if got := e.String(); got != want {
			t.Errorf("%+v: %q, want %q", e, got, want)
		}
	}
}

// Within-case variance is 0 when repeats agree, and a case of r repeats
// is then worth one pair; with independent repeats it is worth r.
func TestComponentsCasesNeeded(t *testing.T) {
	var copies PairedCases
	for i := range 20 {
		for range 5 {
			copies.Add(i, i%4 == 0, i%4 == 1)
		}
	}
	c := copies.Components()
	if !c.Known || c.Within != 0 || c.Between <= 0 {
		t.Fatalf("copies: %+v, want no within-case variance", c)
	}
	if n := c.CasesNeeded(73, 5); n != 73 {
		t.Errorf("copies: %d cases, want 73", n)
	}
	if n := (Components{Within: 0.1, Known: true}).CasesNeeded(73, 5); n != 15 {
		t.Errorf("independent repeats: %d cases, want ⌈73/5⌉ = 15", n)
	}
	if n := (Components{}).CasesNeeded(73, 5); n != 73 {
		t.Errorf("unknown components: %d, want 73", n)
	}
	var once PairedCases
	once.Add(0, true, false)
	once.Add(1, false, false)
	if c := once.Components(); c.Known {
		t.Errorf("one trial per case: %+v, want unknown", c)
	}
}

// A summary.json rate written before cases were counted reads as
// independent trials; one written now reads back with its interval.
func TestRateJSONCases(t *testing.T) {
	var old Rate
	if err := json.Unmarshal([]byte(`{"k":8,"n":10,"value":0.8,"lo":0.4,"hi":0.9}`), &old); err != nil {
		t.Fatal(err)
	}
	if old != (Rate{K: 8, N: 10}) {
		t.Errorf("old rate read as %+v", old)
	}
	var rc RateCases
	for i := range 6 {
		rc.AddCounts(i, []int{3, 0, 3, 2, 3, 1}[i], 3)
	}
	r := rc.Rate()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back Rate
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back != r {
		t.Errorf("read back %+v from %s, want %+v", back, b, r)
	}
	lo, hi := r.Wilson95()
	ilo, ihi := Rate{K: r.K, N: r.N}.Wilson95()
	if !(r.Deff > 1 && lo < ilo && hi > ihi) {
		t.Errorf("clustered (%v, %v) deff %v, want wider than independent (%v, %v)", lo, hi, r.Deff, ilo, ihi)
	}
}
