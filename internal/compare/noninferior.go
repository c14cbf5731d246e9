package compare

import (
	"fmt"

	"github.com/toolgrade/toolgrade/internal/stats"
)

// NILevel is the confidence level of the interval a margin is judged on:
// a two-sided 95% interval, so a "not worse" verdict is a one-sided test at
// NIAlpha.
const NILevel = 0.95

// NIAlpha is the one-sided significance level of a non-inferiority verdict,
// (1 − NILevel)/2: the level the planned number of pairs is computed at.
const NIAlpha = (1 - NILevel) / 2

// NIPower is the power the pairs an undecided verdict needs are planned
// for.
const NIPower = 0.8

// NonInferiority is one rate of a group judged at a margin: is the current
// side not worse than the base by more than Margin? It answers another
// question than the row's McNemar verdict ("is there a detectable
// difference?"): a side can be detectably worse and still within the
// margin, and no detectable difference is not evidence of being as good.
type NonInferiority struct {
	Margin float64 `json:"margin"`
	// Pairs counts the scored pairs on which the rate is defined on both
	// sides: the pairs judged.
	Pairs int `json:"pairs"`
	// Diff is current − base over those pairs, in the rate's own sense (the
	// sense of the row's Delta: for round_limit a rise is a loss), and Lo
	// and Hi are Tango's 95% score interval of it (stats.PairedDiffInterval).
	Diff float64 `json:"diff"`
	Lo   float64 `json:"lo"`
	Hi   float64 `json:"hi"`
	// Verdict is not_worse, worse or undecided (stats.NIVerdict), and Words
	// the same as reports write it: "not worse by more than 5 pts".
	Verdict string `json:"verdict"`
	Words   string `json:"words"`
	// PairsNeeded is, when undecided, the number of paired trials that
	// would show the current side not worse with 80% power if the rates
	// and the discordance stayed as observed (stats.PairsForNonInferiority);
	// 0 when no number would, because the observed loss is beyond the margin.
	PairsNeeded int `json:"pairs_needed,omitempty"`
	// SmallestMargin is the smallest margin these pairs show the current
	// side not worse at (0 when it is not worse at any).
	SmallestMargin float64 `json:"smallest_margin"`
}

// PairedCounts are the row's pairs judged for a margin, in the row's own
// sense with A the current side: both met the rate, only current, only
// base, neither. Only pairs on which the rate is defined on both sides
// count.
func (r *RateRow) PairedCounts() stats.PairedCounts {
	c := stats.PairedCounts{Both: r.both, Neither: r.neither, OnlyA: r.Better, OnlyB: r.Worse}
	if r.LowerIsBetter {
		// Worse and Better count losses and gains; for a lower-is-better
		// rate a loss is a pair on which only current met it.
		c.OnlyA, c.OnlyB = r.Worse, r.Better
	}
	return c
}

// JudgeNonInferiority judges the row at margin. The metric table's
// LowerIsBetter (carried on the row) turns the question around: the pairs
// are flipped (met ↔ not met), so "worse" is always a loss, and the verdict
// is the stats package's one rule.
func (r *RateRow) JudgeNonInferiority(margin float64) *NonInferiority {
	raw := r.PairedCounts()
	if raw.N() == 0 {
		return nil
	}
	good := raw
	if r.LowerIsBetter {
		good = raw.Flip()
	}
	lo, hi := stats.PairedDiffInterval(good, NILevel)
	v := stats.NonInferiority(lo, hi, margin)
	ni := &NonInferiority{Margin: margin, Pairs: raw.N(), Diff: raw.Diff(), Lo: lo, Hi: hi,
		Verdict: v.String(), Words: v.Phrase(margin), SmallestMargin: stats.SmallestMargin(good, NILevel)}
	if r.LowerIsBetter {
		ni.Lo, ni.Hi = -hi, -lo
	}
	if v == stats.NIUndecided {
		ni.PairsNeeded = r.pairsNeeded(margin, NIPower)
	}
	return ni
}

// pairsNeeded is how many pairs would show the current side not worse at
// margin with the given power, were the row's rates and discordance to stay
// as observed (in the better-is-higher sense, as the verdict is judged); 0
// when none would. compare's undecided verdicts and plan's rows both ask
// it here, so the two never plan the same pairs differently.
func (r *RateRow) pairsNeeded(margin, power float64) int {
	good := r.PairedCounts()
	if good.N() == 0 {
		return 0
	}
	if r.LowerIsBetter {
		good = good.Flip()
	}
	n := float64(good.N())
	pA, pB := float64(good.Both+good.OnlyA)/n, float64(good.Both+good.OnlyB)/n
	return stats.PairsForNonInferiority(pA, pB, float64(good.Discordant())/n, margin, NIAlpha, power)
}

// Reading is the verdict as reports and gates write it: its words, and when
// undecided how many pairs would decide, or that none would.
func (ni *NonInferiority) Reading() string {
	if ni.Verdict != stats.NIUndecided.String() {
		return ni.Words
	}
	if ni.PairsNeeded == 0 {
		return ni.Words + " (the observed loss exceeds " + stats.Points(ni.Margin) + ")"
	}
	return fmt.Sprintf("%s (~%d pairs)", ni.Words, ni.PairsNeeded)
}
