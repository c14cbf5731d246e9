package stats

// validPassK reports whether n trials with c passes support an estimate at k.
func validPassK(n, c, k int) bool {
	return n >= 1 && k >= 1 && k <= n && c >= 0 && c <= n
}

// PassAtK is the unbiased estimate (Chen et al., 2021) of the chance that at
// least one of k trials drawn from n, of which c passed, passes:
// 1 - C(n-c,k)/C(n,k). It is computed as a product, so large n is fine.
// Invalid input (k < 1, k > n, c outside [0, n]) returns 0; use MeanPassAtK
// for an ok flag.
func PassAtK(n, c, k int) float64 {
	if !validPassK(n, c, k) {
		return 0
	}
	if n-c < k {
		return 1
	}
	// C(n-c,k)/C(n,k) = prod_{i=n-c+1}^{n} (1 - k/i).
	miss := 1.0
	for i := n - c + 1; i <= n; i++ {
		miss *= 1 - float64(k)/float64(i)
	}
	return 1 - miss
}

// PassHatK is tau-bench's pass^k for one case: the chance that all k trials
// drawn from n, of which c passed, pass, C(c,k)/C(n,k). It measures
// reliability where pass@k measures reach. Invalid input returns 0 as in
// PassAtK.
func PassHatK(n, c, k int) float64 {
	if !validPassK(n, c, k) || c < k {
		return 0
	}
	// C(c,k)/C(n,k) = prod_{i=0}^{k-1} (c-i)/(n-i).
	all := 1.0
	for i := range k {
		all *= float64(c-i) / float64(n-i)
	}
	return all
}

// CaseCount is one case's tally: N trials, C of which passed.
type CaseCount struct {
	N, C int
}

// MeanPassAtK averages PassAtK over cases. ok is false, and the mean 0, when
// there are no cases or any case cannot support k (for example N < k):
// dropping such cases silently would bias the mean.
func MeanPassAtK(cases []CaseCount, k int) (mean float64, ok bool) {
	return meanOver(cases, k, PassAtK)
}

// MeanPassHatK averages PassHatK over cases, with ok as in MeanPassAtK.
func MeanPassHatK(cases []CaseCount, k int) (mean float64, ok bool) {
	return meanOver(cases, k, PassHatK)
}

func meanOver(cases []CaseCount, k int, f func(n, c, k int) float64) (float64, bool) {
	if len(cases) == 0 {
		return 0, false
	}
	sum := 0.0
	for _, cc := range cases {
		if !validPassK(cc.N, cc.C, k) {
			return 0, false
		}
		sum += f(cc.N, cc.C, k)
	}
	return sum / float64(len(cases)), true
}
