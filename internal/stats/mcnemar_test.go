package stats

import (
	"math"
	"math/big"
	"testing"
)

// The exact two-sided McNemar p-value is p = min(1, 2·Σ_{i≤min(b,c)} C(b+c,i) / 2^(b+c)).
// By hand:
//
//	b=0, c=6:  2·C(6,0)/64 = 2/64 = 0.03125
//	b=1, c=1:  2·(C(2,0)+C(2,1))/4 = 2·3/4 = 1.5 → 1
//	b=2, c=8:  2·(1+10+45)/1024 = 112/1024 = 0.109375
//	b=3, c=0:  2·1/8 = 0.25
//	b=1, c=5:  2·(1+6)/64 = 14/64 = 0.21875
//	b=0, c=1:  2·1/2 = 1
//	b=8, c=1:  2·(C(9,0)+C(9,1))/512 = 20/512 = 0.0390625
//	b=5, c=5:  2·(1+10+45+120+210+252)/1024 = 1276/1024 → 1
func TestMcNemar(t *testing.T) {
	tests := []struct {
		b, c int
		want float64
	}{
		{0, 0, 1},
		{0, 6, 0.03125},
		{6, 0, 0.03125},
		{1, 1, 1},
		{2, 8, 0.109375},
		{8, 2, 0.109375},
		{3, 0, 0.25},
		{1, 5, 0.21875},
		{0, 1, 1},
		{5, 5, 1},
		{8, 1, 0.0390625},
		{1, 8, 0.0390625},
		{-1, 3, 1}, // invalid: no evidence
	}
	for _, tt := range tests {
		if got := McNemar(tt.b, tt.c); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("McNemar(%d, %d) = %v, want %v", tt.b, tt.c, got, tt.want)
		}
	}
}

// exactMcNemar computes the p-value with big integers.
func exactMcNemar(b, c int) float64 {
	n := int64(b + c)
	sum := new(big.Int)
	for i := int64(0); i <= int64(min(b, c)); i++ {
		sum.Add(sum, new(big.Int).Binomial(n, i))
	}
	sum.Lsh(sum, 1)
	den := new(big.Int).Lsh(big.NewInt(1), uint(n))
	p, _ := new(big.Rat).SetFrac(sum, den).Float64()
	return min(1, p)
}

func TestMcNemarLarge(t *testing.T) {
	for _, tt := range [][2]int{{480, 600}, {30, 70}, {1000, 1100}, {5, 1500}, {700, 700}, {999, 1000}} {
		b, c := tt[0], tt[1]
		want := exactMcNemar(b, c)
		got := McNemar(b, c)
		if math.Abs(got-want) > 1e-9*math.Max(want, 1e-300) && math.Abs(got-want) > 1e-300 {
			t.Errorf("McNemar(%d, %d) = %v, want %v", b, c, got, want)
		}
	}
	// Far past float range for 2^-n: a tiny p, never NaN.
	if p := McNemar(0, 5000); math.IsNaN(p) || p < 0 || p > 1e-300 {
		t.Errorf("McNemar(0, 5000) = %v, want ~0", p)
	}
	if p := McNemar(100000, 100000); p != 1 {
		t.Errorf("McNemar(100000, 100000) = %v, want 1", p)
	}
}
