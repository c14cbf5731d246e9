package compare

import (
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/metric"
	"github.com/toolgrade/toolgrade/internal/stats"
	"github.com/toolgrade/toolgrade/internal/store"
)

func TestPlanFromRates(t *testing.T) {
	p, err := NewPlan(&PlanSpec{Rates: "92%,0.9", Discordance: "0.1", Margin: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	want := stats.PairsForNonInferiority(0.9, 0.92, 0.1, 0.05, 0.025, 0.8)
	if len(p.Rows) != 1 || p.Rows[0].PairsNeeded != want || p.Power != 0.8 || p.Alpha != 0.025 || p.Rows[0].SmallestMargin != nil {
		t.Errorf("plan %+v, want %d pairs", p, want)
	}
	p9, err := NewPlan(&PlanSpec{Rates: "0.92,0.9", Discordance: "10%", Margin: 0.05, Power: 0.9})
	if err != nil || p9.Rows[0].PairsNeeded <= want {
		t.Errorf("90%% power: %+v, %v; want more than %d pairs", p9, err, want)
	}
}

func TestPlanErrors(t *testing.T) {
	for _, tt := range []struct {
		spec PlanSpec
		msg  string
	}{
		{PlanSpec{}, "give a pilot run and two of its models"},
		{PlanSpec{Rates: "0.9,0.9", Discordance: "0.1"}, "--margin is needed with --rates"},
		{PlanSpec{Rates: "0.9", Discordance: "0.1", Margin: 0.05}, `--rates "0.9": give two pass rates`},
		{PlanSpec{Rates: "0.9,1.2", Discordance: "0.1", Margin: 0.05}, "give two pass rates"},
		{PlanSpec{Rates: "0.9,0.9", Margin: 0.05}, "--rates needs --discordance"},
		{PlanSpec{Rates: "0.9,0.9", Discordance: "0.3", Margin: 0.05}, "--discordance 0.3 cannot go with rates 0.9 and 0.9: it must be at least their difference (0) and at most 0.2"},
		{PlanSpec{Rates: "0.9,0.9", Discordance: "0.1", Margin: 0.05, Power: 1.5}, "--power 1.5: must be between 0 and 1"},
		{PlanSpec{Rates: "0.9,0.9", Discordance: "0.1", Margin: 0.05, Dirs: []string{"testdata/base"}}, "not both"},
		{PlanSpec{Dirs: []string{"testdata/base"}, Models: "m,n"}, "--margin is needed (the pilot's suite sets no margin:)"},
		{PlanSpec{Dirs: []string{"testdata/base"}, Models: "m,m", Margin: 0.05}, `--models "m,m": want two different names, a,b`},
		{PlanSpec{Dirs: []string{"testdata/base"}, Models: "m,zz", Margin: 0.05}, `model "zz" has no trials`},
	} {
		_, err := NewPlan(&tt.spec)
		if err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%+v: %v, want %q", tt.spec, err, tt.msg)
		}
	}
}

// From a pilot, each rate is planned at the rates and discordance its pairs
// showed, in the better-is-higher sense, beside what the pilot decides now.
func TestPlanFromPilot(t *testing.T) {
	p, err := NewPlan(&PlanSpec{Dirs: []string{"testdata/base"}, Models: "m,n", Margin: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	if p.Base != "m" || p.Current != "n" || len(p.Rows) != 12 { // 2 variants × 6 rates (coerced = strict)
		t.Fatalf("plan %+v", p)
	}
	for _, r := range p.Rows {
		switch r.Metric {
		case metric.Pass:
			// m 8/12 → n 6/12, 2 discordant: n trails by more than 5 points.
			if r.Pairs != 12 || r.BaseRate != 8.0/12 || r.CurrentRate != 0.5 || r.Discordance != 2.0/12 || r.PairsNeeded != 0 || r.Verdict != "undecided" {
				t.Errorf("%s pass: %+v", r.Group, r)
			}
		case metric.RoundLimit:
			// 2/12 on both sides, the same pairs, 6 cases of 2 agreeing
			// repeats: 73 identical cases decide, and repeats cannot.
			if !r.LowerIsBetter || r.CasesNeeded != 73 || r.PairsNeeded != 146 || *r.SmallestMargin <= 0.05 ||
				r.Advice != "repeats agree on every case (as at temperature 0), so more repeats add nothing: write about 67 more cases" {
				t.Errorf("%s round_limit: %+v", r.Group, r)
			}
		}
	}
}

// A pilot of 11 cases × 10 agreeing repeats plans cases, never repeats; a
// pilot whose repeats disagree may say repeats would help.
func TestPlanCountsCases(t *testing.T) {
	same := func(_ string, c, _ int) bool { return c%3 != 0 }
	p, err := NewPlan(&PlanSpec{Dirs: []string{writeCases(t, 11, 10, same).Dir}, Models: "m,n", Margin: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	pass := p.Rows[0]
	if pass.Metric != metric.Pass || pass.CasesNeeded != 73 || pass.Evidence.Cases != 11 ||
		pass.Advice != "repeats agree on every case (as at temperature 0), so more repeats add nothing: write about 62 more cases" {
		t.Errorf("11 × 10 copies: %+v", pass)
	}
	// n fails one repeat of four of every fifth case: 5 points lost.
	flaky := func(model string, c, rep int) bool { return model == "m" || c%5 != 0 || rep != 0 }
	p, err = NewPlan(&PlanSpec{Dirs: []string{writeCases(t, 30, 4, flaky).Dir}, Models: "m,n", Margin: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	pass = p.Rows[0]
	if pass.Variance == nil || !pass.Variance.Known || pass.Variance.Within <= 0 || !strings.Contains(pass.Advice, "--repeat") {
		t.Errorf("disagreeing repeats: %+v, %+v", pass, pass.Variance)
	}
}

// TestPlanAndCompareAgree: on the same pairs and margin, plan's verdict and
// pairs needed are compare's, row by row.
func TestPlanAndCompareAgree(t *testing.T) {
	for _, margin := range []float64{0.05, 0.2, 0.45} {
		p, err := NewPlan(&PlanSpec{Dirs: []string{"testdata/base"}, Models: "m,n", Margin: margin, Power: NIPower})
		if err != nil {
			t.Fatal(err)
		}
		r, err := store.Open("testdata/base")
		if err != nil {
			t.Fatal(err)
		}
		c, _, err := Models(r, "m", "n", &Options{Margin: margin})
		if err != nil {
			t.Fatal(err)
		}
		checked := 0
		for _, g := range c.Groups {
			for _, row := range p.Rows {
				rr := g.Rate(row.Metric)
				if row.Group != VariantLabel(g.Variant) || rr == nil {
					continue
				}
				ni := rr.JudgeNonInferiority(margin)
				if ni.Verdict != row.Verdict || ni.SmallestMargin != *row.SmallestMargin ||
					ni.Verdict == "undecided" && (ni.PairsNeeded != row.PairsNeeded || ni.CasesNeeded != row.CasesNeeded) {
					t.Errorf("margin %g, %s %s: compare %s (%d pairs), plan %s (%d pairs)", margin, row.Group, row.Metric, ni.Verdict, ni.PairsNeeded, row.Verdict, row.PairsNeeded)
				}
				checked++
			}
		}
		if checked != len(p.Rows) {
			t.Errorf("margin %g: %d of %d plan rows checked", margin, checked, len(p.Rows))
		}
	}
}
