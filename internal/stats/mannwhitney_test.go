package stats

import (
	"math"
	"testing"
)

func seq(lo, hi int) []float64 {
	var s []float64
	for v := lo; v <= hi; v++ {
		s = append(s, float64(v))
	}
	return s
}

func TestMannWhitney(t *testing.T) {
	tests := []struct {
		name  string
		x, y  []float64
		u, p  float64
		exact bool
	}{
		// benchmath's TestCompareNone (golang.org/x/perf), which benchstat's
		// verdicts rest on: ties within a sample, exact distribution.
		{"benchstat too small", []float64{-1, -1, -1}, []float64{1, 1, 1}, 0, 0.1, true},
		{"benchstat difference", []float64{-1, -1, -1, -1}, []float64{1, 1, 1, 1}, 0, 0.02857142857142857, true},
		{"benchstat no difference", []float64{1, -1, -1, -1}, []float64{-1, 1, 1, 1}, 4, 0.4857142857142857, true},
		{"benchstat all equal", []float64{1, 1, 1, 1}, []float64{1, 1, 1, 1}, 8, 1, true},
		// R's ?wilcox.test example (Hollander & Wolfe, p. 110): W = 35,
		// one-sided p = 0.1272, so two-sided 0.2544 (exactly 0.254412...).
		{"R wilcox.test example",
			[]float64{0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46},
			[]float64{1.15, 0.88, 0.90, 0.74, 1.21}, 35, 0.2544, true},
		// Large samples with ties across them: the normal approximation with
		// tie and continuity corrections, R's wilcox.test(1:30, 21:50,
		// exact=FALSE), computed by hand: U = 50, tie term 10·6 = 60,
		// σ² = 900/12·(61 − 60/3540), z = (400 − 0.5)/σ.
		{"normal approximation with ties", seq(1, 30), seq(21, 50), 50, 3.479739872462869e-09, false},
		{"empty", nil, []float64{1}, 0, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := MannWhitney(tt.x, tt.y)
			if r.U != tt.u || r.Exact != tt.exact || r.N1 != len(tt.x) || r.N2 != len(tt.y) {
				t.Errorf("got %+v, want U=%v exact=%v", r, tt.u, tt.exact)
			}
			tol := 1e-12
			if tt.name == "R wilcox.test example" {
				tol = 1e-4 // R prints four digits
			}
			if math.Abs(r.P-tt.p) > tol*math.Max(1, tt.p) && math.Abs(r.P-tt.p) > tol {
				t.Errorf("P = %v, want %v", r.P, tt.p)
			}
		})
	}
}

// The test is symmetric: swapping the samples keeps P and mirrors U.
func TestMannWhitneySymmetric(t *testing.T) {
	x := []float64{3, 1, 4, 1, 5, 9, 2, 6}
	y := []float64{2, 7, 1, 8, 2, 8, 1, 8, 2, 8}
	a, b := MannWhitney(x, y), MannWhitney(y, x)
	if math.Abs(a.P-b.P) > 1e-12 || a.U+b.U != float64(len(x)*len(y)) {
		t.Errorf("%+v vs %+v", a, b)
	}
}
