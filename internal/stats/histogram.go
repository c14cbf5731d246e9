package stats

import "math"

// Histogram bucket layout: bucket 0 holds [0, HistogramMin); buckets
// 1..histLogBuckets are log-spaced with ratio histGrowth starting at
// HistogramMin; the last bucket holds everything from about HistogramMax up.
const (
	// HistogramMin is the smallest value a Histogram resolves relatively;
	// smaller values share one bucket.
	HistogramMin = 1e-6
	// HistogramMax is the largest value a Histogram resolves relatively;
	// larger values share one bucket.
	HistogramMax = 1e6

	histGrowth     = 1.01
	histLogBuckets = 2777 // ceil(ln(HistogramMax/HistogramMin) / ln(histGrowth))
	histBuckets    = histLogBuckets + 2
)

var histLogGrowth = math.Log(histGrowth)

// Histogram is a constant-memory distribution of non-negative quantities,
// such as latencies in seconds or token counts, with exact count, sum, min
// and max and 1%-wide log-spaced buckets. The zero value is ready to use;
// it is not safe for concurrent use.
type Histogram struct {
	// counts[i] is the count of bucket offset+i. It covers only the
	// buckets seen so far and never exceeds histBuckets entries.
	counts   []uint64
	offset   int
	count    uint64
	dropped  uint64
	sum      float64
	min, max float64
}

// bucketOf returns the bucket index of a finite v >= 0.
func bucketOf(v float64) int {
	if v < HistogramMin {
		return 0
	}
	i := int(math.Log(v/HistogramMin)/histLogGrowth) + 1
	return min(i, histBuckets-1)
}

// Add records v. Negative, NaN and infinite values are not recorded but
// counted in Dropped, so a report can warn instead of skewing the numbers.
func (h *Histogram) Add(v float64) {
	if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		h.dropped++
		return
	}
	b := bucketOf(v)
	h.cover(b, b)
	h.counts[b-h.offset]++
	if h.count == 0 || v < h.min {
		h.min = v
	}
	if h.count == 0 || v > h.max {
		h.max = v
	}
	h.count++
	h.sum += v
}

// cover grows counts so that buckets lo..hi are addressable, with some
// slack to amortise growth, never beyond the fixed bucket range.
func (h *Histogram) cover(lo, hi int) {
	if len(h.counts) == 0 {
		h.offset = lo
		h.counts = make([]uint64, hi-lo+1)
		return
	}
	curLo, curHi := h.offset, h.offset+len(h.counts)-1
	if lo >= curLo && hi <= curHi {
		return
	}
	const slack = 32
	newLo, newHi := curLo, curHi
	if lo < curLo {
		newLo = max(0, lo-slack)
	}
	if hi > curHi {
		newHi = min(histBuckets-1, hi+slack)
	}
	grown := make([]uint64, newHi-newLo+1)
	copy(grown[curLo-newLo:], h.counts)
	h.counts, h.offset = grown, newLo
}

// Merge adds everything recorded in other, as if its values had been added
// to h.
func (h *Histogram) Merge(other *Histogram) {
	switch other {
	case nil:
		return
	case h:
		h.mergeSelf()
		return
	}
	h.dropped += other.dropped
	if other.count == 0 {
		return
	}
	h.cover(other.offset, other.offset+len(other.counts)-1)
	for i, n := range other.counts {
		h.counts[other.offset+i-h.offset] += n
	}
	if h.count == 0 || other.min < h.min {
		h.min = other.min
	}
	if h.count == 0 || other.max > h.max {
		h.max = other.max
	}
	h.count += other.count
	h.sum += other.sum
}

// mergeSelf doubles every count, which is what merging h into itself means.
func (h *Histogram) mergeSelf() {
	for i := range h.counts {
		h.counts[i] *= 2
	}
	h.count *= 2
	h.dropped *= 2
	h.sum *= 2
}

// Count is the number of values recorded (excluding Dropped).
func (h *Histogram) Count() int { return int(h.count) }

// Dropped is the number of negative, NaN or infinite values Add refused.
func (h *Histogram) Dropped() int { return int(h.dropped) }

// Sum is the exact sum of the recorded values.
func (h *Histogram) Sum() float64 { return h.sum }

// Mean is the exact mean of the recorded values, or 0 when Count is 0.
func (h *Histogram) Mean() float64 {
	if h.count == 0 {
		return 0
	}
	return h.sum / float64(h.count)
}

// Min is the exact smallest recorded value, or 0 when Count is 0.
func (h *Histogram) Min() float64 { return h.min }

// Max is the exact largest recorded value, or 0 when Count is 0.
func (h *Histogram) Max() float64 { return h.max }

// Quantile estimates the nearest-rank q-quantile, the ⌈q·Count⌉-th smallest
// value, within 1% relative error (q ≤ 0 and rank 1 give Min, q ≥ 1 and the
// last rank give Max, exactly). Values below HistogramMin are off by at most
// HistogramMin absolute and values above HistogramMax may be reported as
// Max. It returns 0 when Count is 0.
func (h *Histogram) Quantile(q float64) float64 {
	if h.count == 0 {
		return 0
	}
	if math.IsNaN(q) || q <= 0 {
		return h.min
	}
	if q >= 1 {
		return h.max
	}
	rank := uint64(math.Ceil(q * float64(h.count)))
	rank = max(1, min(rank, h.count))
	switch rank {
	case 1:
		return h.min
	case h.count:
		return h.max
	}
	var cum uint64
	for i, n := range h.counts {
		cum += n
		if cum >= rank {
			return max(h.min, min(h.max, bucketValue(h.offset+i, h.min, h.max)))
		}
	}
	return h.max // unreachable: counts sum to count
}

// bucketValue is the representative of bucket b: the geometric midpoint of
// a log bucket, within sqrt(1.01)-1 ≈ 0.5% of any value in it.
func bucketValue(b int, lo, hi float64) float64 {
	switch b {
	case 0:
		return lo // the underflow bucket holds Min whenever it is used
	case histBuckets - 1:
		return hi // likewise the overflow bucket holds Max
	}
	return HistogramMin * math.Exp((float64(b-1)+0.5)*histLogGrowth)
}
