package stats

import (
	"math"
	"math/big"
	"testing"
)

// Hand-computed, with C(a,b) the binomial coefficient:
//
//	n=4,  c=2, k=2: pass@2 = 1 - C(2,2)/C(4,2) = 1 - 1/6 = 0.833333;  pass^2 = C(2,2)/C(4,2) = 1/6
//	n=10, c=3, k=1: pass@1 = 1 - C(7,1)/C(10,1) = 0.3;                  pass^1 = C(3,1)/C(10,1) = 0.3
//	n=10, c=3, k=5: pass@5 = 1 - C(7,5)/C(10,5) = 1 - 21/252 = 0.916667; pass^5 = C(3,5)/… = 0
//	n=10, c=7, k=3: pass@3 = 1 - C(3,3)/C(10,3) = 1 - 1/120 = 0.991667;  pass^3 = C(7,3)/C(10,3) = 35/120
//	n=8,  c=2, k=8: pass@8 = 1 - C(6,8)/C(8,8) = 1;                       pass^8 = C(2,8)/… = 0
//	n=5,  c=0, k=1: pass@1 = 1 - C(5,1)/C(5,1) = 0;                       pass^1 = 0
//	n=5,  c=5, k=3: pass@3 = 1 - C(0,3)/C(5,3) = 1;                       pass^3 = C(5,3)/C(5,3) = 1
//	n=1,  c=1, k=1: pass@1 = 1;                                           pass^1 = 1
func TestPassK(t *testing.T) {
	tests := []struct {
		n, c, k   int
		atK, hatK float64
	}{
		{n: 4, c: 2, k: 2, atK: 1 - 1.0/6, hatK: 1.0 / 6},
		{n: 10, c: 3, k: 1, atK: 0.3, hatK: 0.3},
		{n: 10, c: 3, k: 5, atK: 1 - 21.0/252, hatK: 0},
		{n: 10, c: 7, k: 3, atK: 1 - 1.0/120, hatK: 35.0 / 120},
		{n: 8, c: 2, k: 8, atK: 1, hatK: 0},
		{n: 5, c: 0, k: 1, atK: 0, hatK: 0},
		{n: 5, c: 5, k: 3, atK: 1, hatK: 1},
		{n: 1, c: 1, k: 1, atK: 1, hatK: 1},
	}
	for _, tt := range tests {
		if got := PassAtK(tt.n, tt.c, tt.k); math.Abs(got-tt.atK) > 1e-9 {
			t.Errorf("PassAtK(%d, %d, %d) = %v, want %v", tt.n, tt.c, tt.k, got, tt.atK)
		}
		if got := PassHatK(tt.n, tt.c, tt.k); math.Abs(got-tt.hatK) > 1e-9 {
			t.Errorf("PassHatK(%d, %d, %d) = %v, want %v", tt.n, tt.c, tt.k, got, tt.hatK)
		}
	}
	// At k = 1 both are the plain pass rate.
	for n := 1; n <= 12; n++ {
		for c := 0; c <= n; c++ {
			want := float64(c) / float64(n)
			if a, h := PassAtK(n, c, 1), PassHatK(n, c, 1); math.Abs(a-want) > 1e-12 || math.Abs(h-want) > 1e-12 {
				t.Errorf("n=%d c=%d k=1: pass@1 = %v, pass^1 = %v, want %v", n, c, a, h, want)
			}
		}
	}
}

func TestPassKInvalid(t *testing.T) {
	for _, in := range [][3]int{
		{4, 2, 5},  // k > n
		{4, 2, 0},  // k < 1
		{4, 2, -1}, // k < 1
		{0, 0, 1},  // no trials
		{4, 5, 2},  // c > n
		{4, -1, 2}, // c < 0
	} {
		n, c, k := in[0], in[1], in[2]
		if got := PassAtK(n, c, k); got != 0 {
			t.Errorf("PassAtK(%d, %d, %d) = %v, want 0", n, c, k, got)
		}
		if got := PassHatK(n, c, k); got != 0 {
			t.Errorf("PassHatK(%d, %d, %d) = %v, want 0", n, c, k, got)
		}
	}
}

// bigRatio returns C(a,k)/C(b,k) computed exactly.
func bigRatio(a, b, k int) float64 {
	num := new(big.Int).Binomial(int64(a), int64(k))
	den := new(big.Int).Binomial(int64(b), int64(k))
	f, _ := new(big.Rat).SetFrac(num, den).Float64()
	return f
}

func TestPassKLargeN(t *testing.T) {
	// Against exact big-integer binomials; the naive float ratio of
	// C(2000,·) overflows, the product form does not.
	for _, tt := range [][3]int{{2000, 37, 50}, {2000, 1990, 100}, {500, 250, 40}, {10000, 3, 9000}} {
		n, c, k := tt[0], tt[1], tt[2]
		wantAt := 1.0
		if n-c >= k {
			wantAt = 1 - bigRatio(n-c, n, k)
		}
		wantHat := 0.0
		if c >= k {
			wantHat = bigRatio(c, n, k)
		}
		if got := PassAtK(n, c, k); math.Abs(got-wantAt) > 1e-9 {
			t.Errorf("PassAtK(%d, %d, %d) = %v, want %v", n, c, k, got, wantAt)
		}
		if got := PassHatK(n, c, k); math.Abs(got-wantHat) > 1e-9*math.Max(wantHat, 1e-300) && math.Abs(got-wantHat) > 1e-15 {
			t.Errorf("PassHatK(%d, %d, %d) = %v, want %v", n, c, k, got, wantHat)
		}
	}
	// One pass in n: pass@k = 1 - C(n-1,k)/C(n,k) = 1 - (n-k)/n = k/n.
	if got := PassAtK(100000, 1, 10); math.Abs(got-1e-4) > 1e-12 {
		t.Errorf("PassAtK(100000, 1, 10) = %v, want 1e-4", got)
	}
}

// Over cases {4,2}, {10,7}, {4,4} at k=2:
//
//	pass@2: 1 - 1/6 = 0.833333, 1 - C(3,2)/C(10,2) = 1 - 3/45 = 0.933333, 1 → mean 0.922222
//	pass^2: 1/6 = 0.166667, C(7,2)/C(10,2) = 21/45 = 0.466667, 1 → mean 0.544444
func TestMeanPassK(t *testing.T) {
	cases := []CaseCount{{N: 4, C: 2}, {N: 10, C: 7}, {N: 4, C: 4}}
	if got, ok := MeanPassAtK(cases, 2); !ok || math.Abs(got-0.922222) > 1e-6 {
		t.Errorf("MeanPassAtK(k=2) = %v, %v; want 0.922222, true", got, ok)
	}
	if got, ok := MeanPassHatK(cases, 2); !ok || math.Abs(got-0.544444) > 1e-6 {
		t.Errorf("MeanPassHatK(k=2) = %v, %v; want 0.544444, true", got, ok)
	}
	// k=5 exceeds the 4 trials of two cases: refuse rather than drop them.
	if got, ok := MeanPassAtK(cases, 5); ok || got != 0 {
		t.Errorf("MeanPassAtK(k=5) = %v, %v; want 0, false", got, ok)
	}
	if got, ok := MeanPassHatK(cases, 5); ok || got != 0 {
		t.Errorf("MeanPassHatK(k=5) = %v, %v; want 0, false", got, ok)
	}
	if got, ok := MeanPassAtK(nil, 1); ok || got != 0 {
		t.Errorf("MeanPassAtK(nil) = %v, %v; want 0, false", got, ok)
	}
	if got, ok := MeanPassHatK([]CaseCount{}, 1); ok || got != 0 {
		t.Errorf("MeanPassHatK(empty) = %v, %v; want 0, false", got, ok)
	}
}
