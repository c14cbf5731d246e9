package stats

import (
	"encoding/json"
	"fmt"
	"math"
	"testing"
)

// The Wilson score interval for k successes in n trials at quantile z, with
// p = k/n, is
//
//	center = (p + z²/2n) / (1 + z²/n)
//	half   = z/(1 + z²/n) · sqrt(p(1-p)/n + z²/4n²)
//	[lo, hi] = [center - half, center + half]
//
// With z = 1.959964, z² = 3.841459. Worked by hand:
//
//	0/10:   d = 1 + 0.384146 = 1.384146; center = 0.192073/d = 0.138766;
//	        half = (z/d = 1.416010)·sqrt(0 + 0.009604) = 1.416010·0.097998 = 0.138766
//	        → [0, 0.277533]
//	10/10:  mirror image of 0/10 → [0.722467, 1]
//	5/10:   center = 0.5; half = 1.416010·sqrt(0.025 + 0.009604) = 1.416010·0.186021 = 0.263407
//	        → [0.236593, 0.763407]
//	1/3:    d = 1 + 1.280486 = 2.280486; center = (0.333333 + 0.640243)/d = 0.426916;
//	        half = (z/d = 0.859450)·sqrt(0.074074 + 0.106707) = 0.859450·0.425184 = 0.365424
//	        → [0.061492, 0.792340]
//	81/263: p = 0.307985; d = 1.014606; center = (0.307985 + 0.007303)/d = 0.310749;
//	        half = (z/d = 1.931748)·sqrt(0.00081038 + 0.00001388) = 1.931748·0.028710 = 0.055461
//	        → [0.255288, 0.366210]
//	10/12:  d = 1.320122; center = (0.833333 + 0.160061)/d = 0.752502;
//	        half = (z/d = 1.484684)·sqrt(0.011574 + 0.006669) = 1.484684·0.135068 = 0.200533
//	        → [0.551969, 0.953035]
func TestWilson95(t *testing.T) {
	tests := []struct {
		k, n   int
		lo, hi float64
	}{
		{0, 10, 0, 0.277533},
		{10, 10, 0.722467, 1},
		{5, 10, 0.236593, 0.763407},
		{1, 3, 0.061492, 0.792340},
		{81, 263, 0.255288, 0.366210},
		{10, 12, 0.551969, 0.953035},
	}
	for _, tt := range tests {
		r := Rate{K: tt.k, N: tt.n}
		lo, hi := r.Wilson95()
		if math.Abs(lo-tt.lo) > 1e-4 || math.Abs(hi-tt.hi) > 1e-4 {
			t.Errorf("Rate{%d, %d}.Wilson95() = (%.6f, %.6f), want (%.6f, %.6f)", tt.k, tt.n, lo, hi, tt.lo, tt.hi)
		}
		if v := r.Value(); !(lo <= v && v <= hi) {
			t.Errorf("Rate{%d, %d}: Value %v outside its interval [%v, %v]", tt.k, tt.n, v, lo, hi)
		}
	}
}

func TestWilsonEnds(t *testing.T) {
	// The ends are pinned exactly, not just within rounding.
	for _, n := range []int{1, 2, 7, 100, 1_000_000} {
		if lo, _ := (Rate{K: 0, N: n}).Wilson95(); lo != 0 {
			t.Errorf("Rate{0, %d} lo = %v, want exactly 0", n, lo)
		}
		if _, hi := (Rate{K: n, N: n}).Wilson95(); hi != 1 {
			t.Errorf("Rate{%d, %d} hi = %v, want exactly 1", n, n, hi)
		}
	}
	// z = 0 collapses the interval onto the point estimate.
	if lo, hi := (Rate{K: 3, N: 4}).Wilson(0); lo != 0.75 || hi != 0.75 {
		t.Errorf("Wilson(0) = (%v, %v), want (0.75, 0.75)", lo, hi)
	}
	// A wider z gives a wider interval.
	lo95, hi95 := Rate{K: 3, N: 10}.Wilson95()
	lo99, hi99 := Rate{K: 3, N: 10}.Wilson(2.5758293035489)
	if !(lo99 < lo95 && hi95 < hi99) {
		t.Errorf("99%% interval [%v, %v] not wider than 95%% [%v, %v]", lo99, hi99, lo95, hi95)
	}
}

func TestRateEmpty(t *testing.T) {
	for _, r := range []Rate{{}, {K: 3, N: 0}, {K: 0, N: -1}} {
		if !r.Empty() {
			t.Errorf("%#v.Empty() = false", r)
		}
		if v := r.Value(); v != 0 {
			t.Errorf("%#v.Value() = %v, want 0", r, v)
		}
		if lo, hi := r.Wilson95(); lo != 0 || hi != 1 {
			t.Errorf("%#v.Wilson95() = (%v, %v), want (0, 1)", r, lo, hi)
		}
		if s := r.String(); s != "–" {
			t.Errorf("%#v.String() = %q, want %q", r, s, "–")
		}
	}
	if (Rate{K: 0, N: 1}).Empty() {
		t.Error("Rate{K: 0, N: 1}.Empty() = true")
	}
}

func TestRateClamp(t *testing.T) {
	if v := (Rate{K: 12, N: 10}).Value(); v != 1 {
		t.Errorf("Rate{K: 12, N: 10}.Value() = %v, want clamped 1", v)
	}
	if v := (Rate{K: -2, N: 10}).Value(); v != 0 {
		t.Errorf("Rate{-2, 10}.Value() = %v, want clamped 0", v)
	}
	if lo, hi := (Rate{K: 12, N: 10}).Wilson95(); math.IsNaN(lo) || math.IsNaN(hi) || hi != 1 {
		t.Errorf("Rate{K: 12, N: 10}.Wilson95() = (%v, %v)", lo, hi)
	}
}

func TestRateString(t *testing.T) {
	tests := []struct {
		r    Rate
		want string
	}{
		{Rate{K: 10, N: 12}, "83.3% [55.2–95.3] (10/12)"}, // interval from TestWilson95
		{Rate{K: 0, N: 10}, "0.0% [0.0–27.8] (0/10)"},
		{Rate{K: 10, N: 10}, "100.0% [72.2–100.0] (10/10)"},
		{Rate{K: 5, N: 10}, "50.0% [23.7–76.3] (5/10)"},
		{Rate{}, "–"},
	}
	for _, tt := range tests {
		if got := tt.r.String(); got != tt.want {
			t.Errorf("%#v.String() = %q, want %q", tt.r, got, tt.want)
		}
	}
}

func TestRatePercentAndJSON(t *testing.T) {
	tests := []struct {
		r    Rate
		want string
	}{
		{Rate{}, "–"},
		{Rate{K: 10, N: 12}, "83% [55–96]"},
		{Rate{K: 0, N: 5}, "0% [0–44]"},
		{Rate{K: 5, N: 5}, "100% [56–100]"},
	}
	for _, tt := range tests {
		if got := tt.r.Percent(); got != tt.want {
			t.Errorf("%#v.Percent() = %q, want %q", tt.r, got, tt.want)
		}
	}
	b, err := json.Marshal(Rate{K: 10, N: 12})
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := Rate{K: 10, N: 12}.Wilson95()
	want := fmt.Sprintf(`{"k":10,"n":12,"value":%v,"lo":%v,"hi":%v}`, 10.0/12, lo, hi)
	if string(b) != want {
		t.Errorf("JSON = %s, want %s", b, want)
	}
	var back Rate
	if err := json.Unmarshal([]byte(`{"k":3,"n":4,"value":0.1,"lo":0,"hi":1}`), &back); err != nil {
		t.Fatal(err)
	}
	if back != (Rate{K: 3, N: 4}) {
		t.Errorf("read back %#v, want {3 4}", back)
	}
}
