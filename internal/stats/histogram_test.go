package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// nearestRank is the exact nearest-rank quantile of sorted: the ⌈q·n⌉-th
// smallest value, the definition Histogram.Quantile estimates.
func nearestRank(sorted []float64, q float64) float64 {
	r := int(math.Ceil(q * float64(len(sorted))))
	return sorted[max(1, min(r, len(sorted)))-1]
}

var testQuantiles = []float64{0, 0.001, 0.01, 0.05, 0.1, 0.25, 0.333, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 1}

func checkQuantiles(t *testing.T, name string, h *Histogram, vals []float64) {
	t.Helper()
	sorted := slices.Sorted(slices.Values(vals))
	for _, q := range testQuantiles {
		want := nearestRank(sorted, q)
		got := h.Quantile(q)
		if want == 0 {
			if got != 0 {
				t.Errorf("%s: Quantile(%v) = %v, want 0", name, q, got)
			}
			continue
		}
		if rel := math.Abs(got-want) / want; rel > 0.01 {
			t.Errorf("%s: Quantile(%v) = %v, want %v (relative error %.4f > 1%%)", name, q, got, want, rel)
		}
	}
	if got, want := h.Quantile(0), sorted[0]; got != want {
		t.Errorf("%s: Quantile(0) = %v, want exact min %v", name, got, want)
	}
	if got, want := h.Quantile(1), sorted[len(sorted)-1]; got != want {
		t.Errorf("%s: Quantile(1) = %v, want exact max %v", name, got, want)
	}
}

func TestHistogramQuantiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	dists := []struct {
		name string
		gen  func() float64
	}{
		{"lognormal-seconds", func() float64 { return math.Exp(rng.NormFloat64()*1.5 - 2) }},
		{"exponential", func() float64 { return rng.ExpFloat64() * 0.8 }},
		{"uniform-tokens", func() float64 { return float64(1 + rng.IntN(5000)) }},
		{"log-uniform-wide", func() float64 { return math.Pow(10, rng.Float64()*11-5) }},
		{"few-distinct", func() float64 { return []float64{0.1, 0.25, 7}[rng.IntN(3)] }},
	}
	for _, d := range dists {
		for _, n := range []int{1, 2, 3, 10, 101, 20000} {
			var h Histogram
			vals := make([]float64, n)
			for i := range vals {
				vals[i] = d.gen()
				h.Add(vals[i])
			}
			if h.Count() != n {
				t.Errorf("%s: Count() = %d, want %d", d.name, h.Count(), n)
			}
			checkQuantiles(t, d.name, &h, vals)
		}
	}
}

func TestHistogramExactStats(t *testing.T) {
	var h Histogram
	vals := []float64{0.5, 2, 0.125, 8, 1}
	for _, v := range vals {
		h.Add(v)
	}
	// 0.5+2+0.125+8+1 = 11.625 exactly in binary floating point.
	if h.Count() != 5 || h.Sum() != 11.625 || h.Mean() != 11.625/5 || h.Min() != 0.125 || h.Max() != 8 {
		t.Errorf("Count %d Sum %v Mean %v Min %v Max %v", h.Count(), h.Sum(), h.Mean(), h.Min(), h.Max())
	}
	// Nearest rank: q=0.4 → ⌈2⌉ = 2nd smallest = 0.5; q=0.5 → ⌈2.5⌉ = 3rd = 1.
	if got := h.Quantile(0.4); math.Abs(got-0.5)/0.5 > 0.01 {
		t.Errorf("Quantile(0.4) = %v, want ~0.5", got)
	}
	if got := h.Quantile(0.5); math.Abs(got-1) > 0.01 {
		t.Errorf("Quantile(0.5) = %v, want ~1", got)
	}
	// Rank 1 and rank n are exact even for q strictly inside (0, 1).
	if got := h.Quantile(0.1); got != 0.125 {
		t.Errorf("Quantile(0.1) = %v, want exact min 0.125", got)
	}
	if got := h.Quantile(0.9); got != 8 {
		t.Errorf("Quantile(0.9) = %v, want exact max 8", got)
	}
}

func TestHistogramEmptyAndDropped(t *testing.T) {
	var h Histogram
	if h.Count() != 0 || h.Mean() != 0 || h.Quantile(0.5) != 0 || h.Min() != 0 || h.Max() != 0 {
		t.Errorf("empty histogram: Count %d Mean %v Quantile %v", h.Count(), h.Mean(), h.Quantile(0.5))
	}
	h.Add(-1)
	h.Add(math.NaN())
	h.Add(math.Inf(1))
	h.Add(math.Inf(-1))
	if h.Count() != 0 || h.Dropped() != 4 || h.Mean() != 0 || len(h.counts) != 0 {
		t.Errorf("after bad values: Count %d Dropped %d Mean %v", h.Count(), h.Dropped(), h.Mean())
	}
	h.Add(3)
	if got := h.Quantile(math.NaN()); got != 3 {
		t.Errorf("Quantile(NaN) = %v, want 3", got)
	}
	if h.Quantile(-1) != 3 || h.Quantile(2) != 3 || h.Mean() != 3 {
		t.Errorf("single value: Quantile(-1) %v Quantile(2) %v Mean %v", h.Quantile(-1), h.Quantile(2), h.Mean())
	}
}

func TestHistogramOutOfRange(t *testing.T) {
	// Below HistogramMin: off by at most HistogramMin absolute.
	var h Histogram
	small := []float64{0, 0, 1e-9, 3e-7, 5e-7, 9e-7, 2e-3}
	for _, v := range small {
		h.Add(v)
	}
	for _, q := range testQuantiles {
		want := nearestRank(small, q)
		got := h.Quantile(q)
		if want < HistogramMin && math.Abs(got-want) > HistogramMin {
			t.Errorf("Quantile(%v) = %v, want %v within %v", q, got, want, HistogramMin)
		}
	}
	if h.Quantile(0) != 0 || h.Quantile(1) != 2e-3 {
		t.Errorf("min/max = %v/%v", h.Quantile(0), h.Quantile(1))
	}
	// Above HistogramMax: shares one bucket, reported as Max; min/max exact.
	var big Histogram
	for _, v := range []float64{1, 2e7, 3e7, 5e9} {
		big.Add(v)
	}
	if got := big.Quantile(0.5); got != 5e9 {
		t.Errorf("overflow Quantile(0.5) = %v, want Max 5e9", got)
	}
	if big.Quantile(1) != 5e9 || big.Quantile(0) != 1 || big.Sum() != 1+2e7+3e7+5e9 {
		t.Errorf("overflow min/max/sum = %v/%v/%v", big.Quantile(0), big.Quantile(1), big.Sum())
	}
}

func TestHistogramBuckets(t *testing.T) {
	// The log buckets reach HistogramMax, and not needlessly far past it.
	top := HistogramMin * math.Pow(histGrowth, histLogBuckets)
	if top < HistogramMax || top > HistogramMax*histGrowth {
		t.Errorf("log buckets end at %v, want in [%v, %v]", top, HistogramMax, HistogramMax*histGrowth)
	}
	// Every bucket edge and its neighbours are reported within 1%.
	for b := 1; b <= histLogBuckets; b += 7 {
		edge := HistogramMin * math.Pow(histGrowth, float64(b-1))
		for _, v := range []float64{math.Nextafter(edge, 0), edge, math.Nextafter(edge, math.Inf(1))} {
			if v < HistogramMin {
				continue // the underflow bucket; see TestHistogramOutOfRange
			}
			var h Histogram
			h.Add(v / 2)
			h.Add(v)
			h.Add(v * 2)
			if got := h.Quantile(0.5); math.Abs(got-v)/v > 0.01 {
				t.Errorf("edge of bucket %d: Quantile(0.5) = %v, want %v", b, got, v)
			}
		}
	}
}

func TestHistogramBoundedMemory(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var h Histogram
	// Spread over 1e-9..1e9, wider than the bucket range, so every bucket
	// including under- and overflow ends up used.
	add := func(n int) {
		for range n {
			h.Add(math.Pow(10, rng.Float64()*18-9))
		}
	}
	add(100_000)
	capAfter1e5 := cap(h.counts)
	add(900_000)
	if h.Count() != 1_000_000 {
		t.Fatalf("Count() = %d, want 1e6", h.Count())
	}
	if len(h.counts) > histBuckets || cap(h.counts) > histBuckets {
		t.Errorf("bucket storage len %d cap %d, want <= %d", len(h.counts), cap(h.counts), histBuckets)
	}
	if cap(h.counts) != capAfter1e5 {
		t.Errorf("bucket storage grew from %d to %d between 1e5 and 1e6 values", capAfter1e5, cap(h.counts))
	}
	if allocs := testing.AllocsPerRun(1000, func() { h.Add(rng.Float64()) }); allocs != 0 {
		t.Errorf("Add allocates %v times per call once warm", allocs)
	}
	var total uint64
	for _, n := range h.counts {
		total += n
	}
	if total != 1_000_000+1001 { // AllocsPerRun runs once more to warm up
		t.Errorf("bucket counts sum to %d", total)
	}
}

func TestHistogramMerge(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var a, b, all Histogram
	var vals []float64
	for i := range 5000 {
		// a gets small values and b large ones, so Merge must grow both ends.
		v := math.Exp(rng.NormFloat64() - 3)
		if i%2 == 1 {
			v = 50 + rng.ExpFloat64()*100
		}
		vals = append(vals, v)
		all.Add(v)
		if i%2 == 0 {
			a.Add(v)
		} else {
			b.Add(v)
		}
	}
	b.Add(-5) // dropped values merge too
	var m Histogram
	m.Merge(&b)
	m.Merge(&a)
	m.Merge(nil)
	m.Merge(&Histogram{})
	if m.Count() != all.Count() || m.Min() != all.Min() || m.Max() != all.Max() || m.Dropped() != 1 {
		t.Errorf("merged Count %d Min %v Max %v Dropped %d; want %d %v %v 1",
			m.Count(), m.Min(), m.Max(), m.Dropped(), all.Count(), all.Min(), all.Max())
	}
	if math.Abs(m.Sum()-all.Sum()) > 1e-9*all.Sum() {
		t.Errorf("merged Sum %v, want %v", m.Sum(), all.Sum())
	}
	for _, q := range testQuantiles {
		if got, want := m.Quantile(q), all.Quantile(q); got != want {
			t.Errorf("merged Quantile(%v) = %v, single histogram says %v", q, got, want)
		}
	}
	checkQuantiles(t, "merged", &m, vals)

	// Merging into itself doubles every count and leaves quantiles alone.
	before := m.Quantile(0.5)
	m.Merge(&m)
	if m.Count() != 2*all.Count() || m.Quantile(0.5) != before || m.Dropped() != 2 {
		t.Errorf("self-merge: Count %d Quantile(0.5) %v Dropped %d", m.Count(), m.Quantile(0.5), m.Dropped())
	}
}
