package stats

import (
	"math"
	"slices"
)

// MannWhitneyExactLimit is the largest combined sample size for which
// MannWhitney computes the exact distribution of U (ties included); larger
// samples use the normal approximation.
const MannWhitneyExactLimit = 50

// UTest is the result of a two-sided Mann-Whitney U test.
type UTest struct {
	N1, N2 int
	// U is the statistic of the first sample: the number of pairs (x, y)
	// with x > y, ties counting one half.
	U float64
	// P is the two-sided p-value; 1 when either sample is empty or every
	// value is equal (no evidence either way).
	P float64
	// Exact says P came from the exact permutation distribution rather
	// than the normal approximation.
	Exact bool
}

// MannWhitney tests whether x and y come from distributions with the same
// location, as benchstat judges a latency change. Ties get mid-ranks. Up to
// MannWhitneyExactLimit values in all, P is exact (the permutation
// distribution of the rank sum given the ties, as benchmath does); above,
// it is the normal approximation with the tie correction and a continuity
// correction, as R's wilcox.test(exact=FALSE). x and y are not modified.
func MannWhitney(x, y []float64) UTest {
	n1, n2 := len(x), len(y)
	r := UTest{N1: n1, N2: n2, P: 1}
	if n1 == 0 || n2 == 0 {
		return r
	}
	type obs struct {
		v     float64
		first bool
	}
	all := make([]obs, 0, n1+n2)
	for _, v := range x {
		all = append(all, obs{v, true})
	}
	for _, v := range y {
		all = append(all, obs{v, false})
	}
	slices.SortFunc(all, func(a, b obs) int {
		switch {
		case a.v < b.v:
			return -1
		case a.v > b.v:
			return 1
		}
		return 0
	})
	n := n1 + n2
	// Doubled mid-ranks are integers: a tie group over ranks i+1..j has
	// mid-rank (i+1+j)/2.
	ranks2 := make([]int, n)
	var rankSum2 int // twice the rank sum of x
	var tieTerm float64
	for i := 0; i < n; {
		j := i + 1
		for j < n && all[j].v == all[i].v {
			j++
		}
		for k := i; k < j; k++ {
			ranks2[k] = i + 1 + j
			if all[k].first {
				rankSum2 += i + 1 + j
			}
		}
		t := float64(j - i)
		tieTerm += t*t*t - t
		i = j
	}
	r.U = float64(rankSum2-n1*(n1+1)) / 2
	if n <= MannWhitneyExactLimit {
		r.Exact = true
		r.P = exactRankSumP(ranks2, n1, rankSum2)
		return r
	}
	f1, f2, fn := float64(n1), float64(n2), float64(n)
	variance := f1 * f2 / 12 * ((fn + 1) - tieTerm/(fn*(fn-1)))
	if variance <= 0 {
		return r
	}
	z := (math.Abs(r.U-f1*f2/2) - 0.5) / math.Sqrt(variance)
	r.P = min(1, math.Erfc(max(0, z)/math.Sqrt2))
	return r
}

// exactRankSumP is the two-sided p-value of the observed doubled rank sum
// obs of n1 values drawn without replacement from the doubled ranks: twice
// the smaller tail, at most 1.
func exactRankSumP(ranks2 []int, n1, obs int) float64 {
	total := 0
	for _, v := range ranks2 {
		total += v
	}
	// ways[j][s]: subsets of j of the ranks seen so far with doubled sum s.
	ways := make([][]float64, n1+1)
	for j := range ways {
		ways[j] = make([]float64, total+1)
	}
	ways[0][0] = 1
	for _, v := range ranks2 {
		for j := n1; j >= 1; j-- {
			prev, cur := ways[j-1], ways[j]
			for s := total; s >= v; s-- {
				cur[s] += prev[s-v]
			}
		}
	}
	var lo, hi, all float64
	for s, w := range ways[n1] {
		all += w
		if s <= obs {
			lo += w
		}
		if s >= obs {
			hi += w
		}
	}
	return min(1, 2*min(lo, hi)/all)
}
