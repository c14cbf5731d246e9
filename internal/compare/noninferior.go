package compare

import (
	"fmt"
	"math"

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
	// Evidence is what the pairs rest on (cases, trials, cases whose
	// repeats agree), and Deff the design effect of their difference: the
	// interval counts the pairs as Deff times fewer independent ones, so
	// ten agreeing repeats of a case weigh as one pair.
	Evidence stats.Evidence `json:"evidence"`
	Deff     float64        `json:"deff,omitempty"`
	// CasesNeeded is, when undecided, the number of cases (at the
	// comparison's repeats per case) that would show the current side not
	// worse with 80% power if the rates, the discordance and the way
	// repeats agree stayed as observed: the independent pairs
	// stats.PairsForNonInferiority asks for, turned into cases by the
	// variance components of the difference (stats.Components). With
	// repeats that agree, a case is worth one pair whatever its repeats.
	// PairsNeeded is the paired trials those cases make. Both are 0 when
	// no number would, because the observed loss is beyond the margin.
	CasesNeeded int `json:"cases_needed,omitempty"`
	PairsNeeded int `json:"pairs_needed,omitempty"`
	// Variance is the variance components of the paired difference,
	// between cases and within a case (stats.Components): whether more
	// repeats would help at all.
	Variance stats.Components `json:"variance"`
	// independent is the independent pairs CasesNeeded came from.
	independent int
	// SmallestMargin is the smallest margin these pairs show the current
	// side not worse at (0 when it is not worse at any).
	SmallestMargin float64 `json:"smallest_margin"`
}

// PairedCounts are the row's pairs judged for a margin, in the row's own
// sense with A the current side: both met the rate, only current, only
// base, neither. Only pairs on which the rate is defined on both sides
// count.
//
// The counts carry the cases' clusters (PairedCounts.Deff), so every
// interval and test on them treats a case's repeats as one cluster.
func (r *RateRow) PairedCounts() stats.PairedCounts { return r.pairs }

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
		Verdict: v.String(), Words: v.Phrase(margin), SmallestMargin: stats.SmallestMargin(good, NILevel),
		Evidence: r.Evidence, Deff: raw.Deff, Variance: r.components}
	if r.LowerIsBetter {
		ni.Lo, ni.Hi = -hi, -lo
	}
	if v == stats.NIUndecided {
		pairs := r.pairsNeeded(margin, NIPower)
		ni.independent = pairs
		ni.CasesNeeded, ni.PairsNeeded = r.casesNeeded(pairs)
	}
	return ni
}

// pairsNeeded is how many independent pairs would show the current side not worse at
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

// casesNeeded turns the independent pairs a margin needs into cases at the
// row's repeats per case, and the paired trials they make.
func (r *RateRow) casesNeeded(pairs int) (cases, trials int) {
	e := r.Evidence
	switch {
	case pairs <= 0:
		return 0, 0
	case e.Cases == 0:
		// Counts without their cases: every pair its own case.
		return pairs, pairs
	}
	repeats := float64(e.Trials) / float64(e.Cases)
	cases = r.components.CasesNeeded(pairs, repeats)
	return cases, int(math.Ceil(float64(cases)*repeats - 1e-9))
}

// MoreCases is how many cases beyond those compared CasesNeeded asks for.
func (ni *NonInferiority) MoreCases() int { return max(ni.CasesNeeded-ni.Evidence.Cases, 0) }

// Reading is the verdict as reports and gates write it: its words, and when
// undecided how many cases would decide, or that none would.
func (ni *NonInferiority) Reading() string {
	if ni.Verdict != stats.NIUndecided.String() {
		return ni.Words
	}
	if ni.CasesNeeded == 0 {
		return ni.Words + " (the observed loss exceeds " + stats.Points(ni.Margin) + ")"
	}
	return fmt.Sprintf("%s (~%d cases, %d more)", ni.Words, ni.CasesNeeded, ni.MoreCases())
}

// Advice says, when undecided, what would decide in cases and repeats:
// more cases, and more repeats only when the pilot's repeats disagreed
// enough for them to help. Never more repeats on a run whose repeats all
// agreed: at temperature 0 a repeat is a copy. "" when decided, or when
// no number of cases would do.
func (ni *NonInferiority) Advice() string {
	if ni.Verdict != stats.NIUndecided.String() || ni.CasesNeeded == 0 {
		return ""
	}
	v, cases := ni.Variance, ni.Evidence.Cases
	write := fmt.Sprintf("write about %d more cases", ni.MoreCases())
	if ni.MoreCases() == 0 {
		write = fmt.Sprintf("about %d cases would decide with %.0f%% power, as many as the run has: run them again or write more", ni.CasesNeeded, 100*NIPower)
	}
	switch {
	case !v.Known:
		return write
	case v.Within == 0:
		return "repeats agree on every case (as at temperature 0), so more repeats add nothing: " + write
	}
	if r := v.RepeatsNeeded(ni.independent, cases); r > 0 {
		return fmt.Sprintf("%s, or repeat these %d cases %d times each (--repeat %d): their repeats disagree enough for repeats to help", write, cases, r, r)
	}
	return write + ": more repeats alone would not decide, the cases differ too much"
}
