package report

import (
	"encoding/json"
	"fmt"
	"github.com/toolgrade/toolgrade/internal/termtext"
	"io"
	"math"

	"github.com/toolgrade/toolgrade/internal/compare"
	"github.com/toolgrade/toolgrade/internal/metric"
	"github.com/toolgrade/toolgrade/internal/stats"
)

// WritePlanTerminal writes a plan: per rate, the rates and discordance it
// starts from, the pairs the pilot has and what they decide, and the
// paired trials needed; then the formula, so the number can be checked.
func WritePlanTerminal(w io.Writer, p *compare.Plan) error {
	m := stats.Points(p.Margin)
	if p.Dir != "" {
		fmt.Fprintf(w, "Planning %s against %s from the pilot in %s: margin %s, %.0f%% power, one-sided alpha %.3g (compare's 95%% interval)\n",
			termtext.Printable(p.Current), termtext.Printable(p.Base), termtext.Printable(p.Dir), m, 100*p.Power, p.Alpha)
	} else {
		fmt.Fprintf(w, "Planning from stated rates (base %s, candidate %s): margin %s, %.0f%% power, one-sided alpha %.3g (compare's 95%% interval)\n",
			termtext.Printable(p.Base), termtext.Printable(p.Current), m, 100*p.Power, p.Alpha)
	}
	head := []string{"Variant", "Rate", "base → candidate", "Discordant", "Cases now", "Decides now at", "Cases needed"}
	var rows [][]string
	var advice adviceLines
	for _, r := range p.Rows {
		name := metric.Get(r.Metric).Short
		if r.LowerIsBetter {
			name += " (lower is better)"
		}
		need := fmt.Sprint(r.CasesNeeded)
		if r.CasesNeeded == 0 {
			need = "none would: the candidate trails by the margin or more"
		}
		rates := fmt.Sprintf("%.1f%% → %.1f%%", 100*r.BaseRate, 100*r.CurrentRate)
		disc := fmt.Sprintf("%.1f%%", 100*r.Discordance)
		if r.SmallestMargin == nil {
			head = []string{"Rate", "base → candidate", "Discordant", "Cases needed"}
			rows = append(rows, []string{name, rates, disc, need})
			continue
		}
		// The smallest margin rounded up: a margin must exceed it.
		at := stats.Points(math.Ceil(1000**r.SmallestMargin-1e-9) / 1000)
		rows = append(rows, []string{termtext.Printable(r.Group), name, rates, disc, fmt.Sprintf("%s (%s)", r.Evidence, r.Verdict), at, need})
		advice.add(r.Group+" "+name, r.Advice)
	}
	if err := Table(w, head, rows); err != nil {
		return err
	}
	advice.write(w)
	fmt.Fprint(w, "Cases needed: a case is the unit of evidence (its repeats are one observation when they agree). The independent pairs n = ⌈(z(1−α)·σ0 + z(power)·σ1)² / (δ + M)²⌉, with δ the candidate's rate minus the base's (for a lower-is-better rate, the other way), M the margin, "+
		"ψ the discordant share, σ1² = ψ − δ², and σ0² = 2q + δ0(1 − δ0) at δ0 = −M, q the share of pairs only the base passes restricted to δ0 (Nam 1997, on Tango's score statistic), "+
		"are turned into cases of r repeats as n·(B + W/r)/(B + W), B and W the pilot's variance of the paired difference between cases and within a case (one-way ANOVA); with no variance to tell them apart, a case counts as one pair.\n")
	if p.Dir != "" {
		fmt.Fprint(w, "Cases now: the pilot's cases and their verdict at the margin. Decides now at: the smallest margin they already show the candidate not worse at (−lo of Tango's 95% interval; 0 when it is not worse at any).\n")
	}
	return nil
}

// WritePlanJSON writes the plan as indented JSON ("format":
// "toolgrade.plan/1").
func WritePlanJSON(w io.Writer, p *compare.Plan) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(p)
}
