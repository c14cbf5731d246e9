package compare

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/toolgrade/toolgrade/internal/metric"
	"github.com/toolgrade/toolgrade/internal/stats"
	"github.com/toolgrade/toolgrade/internal/store"
)

// PlanFormat names the JSON schema of a Plan.
const PlanFormat = "toolgrade.plan/1"

// PlanSpec is what `toolgrade plan` is asked: a pilot run and two of its
// models, or two stated rates and their discordance; a margin; a power.
type PlanSpec struct {
	// Dirs is the pilot run directory (one), with Models "a,b" (a the base,
	// b the candidate, as compare pairs them); or none, with Rates and
	// Discordance.
	Dirs   []string
	Models string
	// Rates is "BASE,CURRENT", two pass rates (0.92,0.9 or 92%,90%), and
	// Discordance the share of pairs on which the two would disagree.
	Rates       string
	Discordance string
	// Margin is the non-inferiority margin (0.05 for 5 points); 0 takes the
	// pilot's suite's margin:, and without one it is an error.
	Margin float64
	// Power is the chance the planned pairs show the candidate not worse
	// when it is as good as observed; 0 is NIPower (0.8).
	Power float64
}

// Plan is how many paired trials would decide, rate by rate.
type Plan struct {
	Format string `json:"format"`
	// Dir is the pilot run; empty for stated rates.
	Dir     string  `json:"dir,omitempty"`
	Base    string  `json:"base"`
	Current string  `json:"current"`
	Margin  float64 `json:"margin"`
	Power   float64 `json:"power"`
	// Alpha is the one-sided level, NIAlpha: compare's 95% interval.
	Alpha float64   `json:"alpha"`
	Rows  []PlanRow `json:"rows"`
}

// PlanRow is one rate of one group (a variant of the pilot) planned.
type PlanRow struct {
	// Group names the variant ("base"); empty for stated rates.
	Group  string      `json:"group,omitempty"`
	Metric metric.Name `json:"metric"`
	// LowerIsBetter is the metric table's; the rates below are in the
	// rate's own sense.
	LowerIsBetter bool `json:"lower_is_better,omitempty"`
	// BaseRate and CurrentRate are the rates over the pairs judged, and
	// Discordance the share of those pairs on which the sides disagreed.
	BaseRate    float64 `json:"base_rate"`
	CurrentRate float64 `json:"current_rate"`
	Discordance float64 `json:"discordance"`
	// Pairs is how many pairs the pilot has (0 for stated rates), and
	// Evidence the cases they came from and how many of them had repeats
	// that agreed.
	Pairs    int            `json:"pairs"`
	Evidence stats.Evidence `json:"evidence"`
	// CasesNeeded is the cases that would show the candidate not worse by
	// more than the margin with the plan's power, were the rates,
	// discordance and agreement of repeats as stated or observed (a case
	// is the unit of evidence: its agreeing repeats are one observation);
	// PairsNeeded the paired trials they make at the pilot's repeats per
	// case. Both 0 when none would (the candidate trails by the margin or
	// more). Stated rates plan cases of one trial each.
	CasesNeeded int `json:"cases_needed"`
	PairsNeeded int `json:"pairs_needed"`
	// Variance is the pilot's variance components of the paired
	// difference (between cases, within a case); Advice says in words
	// what would decide: more cases, and more repeats only if they would
	// help. Both absent for stated rates.
	Variance *stats.Components `json:"variance,omitempty"`
	Advice   string            `json:"advice,omitempty"`
	// Verdict is the pilot's own verdict at the margin, and SmallestMargin
	// the smallest margin its pairs already decide; both absent for
	// stated rates.
	Verdict        string   `json:"verdict,omitempty"`
	SmallestMargin *float64 `json:"smallest_margin,omitempty"`
}

// NewPlan plans from a pilot run or from stated rates; its errors are the
// spec's (a bad value, a missing model), for the command to show as such.
func NewPlan(s *PlanSpec) (*Plan, error) {
	p := &Plan{Format: PlanFormat, Margin: s.Margin, Power: s.Power, Alpha: NIAlpha}
	if p.Power == 0 {
		p.Power = NIPower
	}
	if !(p.Power > 0 && p.Power < 1) {
		return nil, fmt.Errorf("--power %g: must be between 0 and 1 (0.8 is 80%%)", p.Power)
	}
	switch {
	case s.Rates != "" && len(s.Dirs) > 0:
		return nil, errors.New("give a pilot run (DIR --models a,b) or --rates with --discordance, not both")
	case s.Rates != "":
		return p, p.fromRates(s)
	case len(s.Dirs) != 1 || s.Models == "":
		return nil, errors.New("give a pilot run and two of its models (DIR --models a,b), or --rates BASE,CURRENT --discordance D")
	}
	return p, p.fromPilot(s)
}

// fromRates plans one row from stated rates.
func (p *Plan) fromRates(s *PlanSpec) error {
	if p.Margin == 0 {
		return errors.New("--margin is needed with --rates: 5pts, 5% or 0.05")
	}
	base, cur, ok := strings.Cut(s.Rates, ",")
	pb, err1 := parseShare(base)
	pc, err2 := parseShare(cur)
	if !ok || err1 != nil || err2 != nil {
		return fmt.Errorf("--rates %q: give two pass rates, the base's then the candidate's, such as 0.92,0.9 or 92%%,90%%", s.Rates)
	}
	if s.Discordance == "" {
		return errors.New("--rates needs --discordance D: the share of pairs on which the two would disagree (a pilot run measures it)")
	}
	d, err := parseShare(s.Discordance)
	if err != nil {
		return fmt.Errorf("--discordance %q: give a share such as 0.1 or 10%%", s.Discordance)
	}
	if diff := pc - pb; d < diff || d < -diff || d > min(pb+pc, 2-pb-pc)+1e-12 {
		return fmt.Errorf("--discordance %s cannot go with rates %s and %s: it must be at least their difference (%.3g) and at most %.3g", s.Discordance, base, cur, max(diff, -diff), min(pb+pc, 2-pb-pc))
	}
	p.Base, p.Current = strings.TrimSpace(base), strings.TrimSpace(cur)
	n := stats.PairsForNonInferiority(pc, pb, d, p.Margin, NIAlpha, p.Power)
	p.Rows = []PlanRow{{Metric: metric.Pass, BaseRate: pb, CurrentRate: pc, Discordance: d, CasesNeeded: n, PairsNeeded: n}}
	return nil
}

// fromPilot plans every paired rate of every group of the pilot's two
// models, from the rates and discordance they showed.
func (p *Plan) fromPilot(s *PlanSpec) error {
	r, err := store.Open(s.Dirs[0])
	if err != nil {
		return err
	}
	sides, err := ParseSides(1, s.Models, "")
	if err != nil {
		return err
	}
	a, b := sides.A, sides.B
	if p.Margin == 0 {
		p.Margin = r.Run.Margin
	}
	if p.Margin == 0 {
		return errors.New("--margin is needed (the pilot's suite sets no margin:): 5pts, 5% or 0.05")
	}
	c, _, err := Models(r, a, b, &Options{Margin: p.Margin})
	if err != nil {
		return err
	}
	p.Dir, p.Base, p.Current = r.Dir, a, b
	for _, g := range c.Groups {
		for i := range g.Rates {
			if r := &g.Rates[i]; r.Metric == metric.ArgValidityCoerced && r.PairedCounts() == g.Rate(metric.ArgValidity).PairedCounts() {
				// Coercion changed nothing: the row would repeat
				// arg_validity.
				continue
			}
			if row, ok := p.pilotRow(&g, &g.Rates[i]); ok {
				p.Rows = append(p.Rows, row)
			}
		}
	}
	return nil
}

// pilotRow plans one rate of a pilot's group; ok is false when no pair
// defines it on both sides.
func (p *Plan) pilotRow(g *Group, r *RateRow) (PlanRow, bool) {
	raw := r.PairedCounts()
	ni := r.JudgeNonInferiority(p.Margin)
	if ni == nil {
		return PlanRow{}, false
	}
	n := float64(raw.N())
	row := PlanRow{Group: VariantLabel(g.Variant), Metric: r.Metric, LowerIsBetter: r.LowerIsBetter, Pairs: raw.N(),
		Evidence: r.Evidence, BaseRate: float64(raw.Both+raw.OnlyB) / n, CurrentRate: float64(raw.Both+raw.OnlyA) / n,
		Discordance: float64(raw.Discordant()) / n, Verdict: ni.Verdict, SmallestMargin: &ni.SmallestMargin, Variance: &ni.Variance}
	// The verdict is compare's (JudgeNonInferiority), and so is the
	// planning of pairs, at this plan's power.
	pairs := r.pairsNeeded(p.Margin, p.Power)
	row.CasesNeeded, row.PairsNeeded = r.casesNeeded(pairs)
	// The advice is the verdict's, planned at this plan's power.
	planned := *ni
	planned.Verdict, planned.independent, planned.CasesNeeded = stats.NIUndecided.String(), pairs, row.CasesNeeded
	row.Advice = planned.Advice()
	return row, true
}

// parseShare reads a share: 0.9 or 90%.
func parseShare(s string) (float64, error) {
	s = strings.TrimSpace(s)
	scale := 1.0
	if t, ok := strings.CutSuffix(s, "%"); ok {
		s, scale = strings.TrimSpace(t), 100
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || !(f/scale >= 0 && f/scale <= 1) {
		return 0, fmt.Errorf("%q is not a share in 0–1", s)
	}
	return f / scale, nil
}
