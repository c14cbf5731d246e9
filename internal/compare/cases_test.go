package compare

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/toolgrade/toolgrade/internal/metric"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/store"
)

// deterministicRun compares at 5 points models m and n over cases cases
// repeated repeats times, each model answering every repeat of a case the
// same way (a model at temperature 0): pass(model, case) says how.
func deterministicRun(t *testing.T, cases, repeats int, pass func(model string, c int) bool) *RateRow {
	t.Helper()
	r := writeCases(t, cases, repeats, func(model string, c, _ int) bool { return pass(model, c) })
	cmp, _, err := Models(r, "m", "n", &Options{Margin: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	return cmp.Groups[0].Rate(metric.Pass)
}

// writeCases writes a run of models m and n over cases cases repeated
// repeats times: pass(model, case, repeat) says which trials pass.
func writeCases(t *testing.T, cases, repeats int, pass func(model string, c, rep int) bool) *store.Reader {
	t.Helper()
	run := baseRun()
	run.Repeat = repeats
	var trials []*record.Trial
	for _, model := range []string{"m", "n"} {
		for c := range cases {
			for rep := range repeats {
				outcome := record.OutcomeWrongTool
				if pass(model, c, rep) {
					outcome = record.OutcomePass
				}
				trials = append(trials, trial(model, "", fmt.Sprintf("c%03d", c), rep, outcome, time.Second))
			}
		}
	}
	return writeRun(t, run, trials)
}

// The unit of evidence is the case. 11 cases × 10 repeats of two
// identical deterministic models are 11 observations: at 5 points no
// verdict, and what would decide is more cases, not more repeats. 100
// distinct cases on which they agree decide "not worse"; a model that fails
// 40 of 100 cases more is worse by more than the margin.
func TestCasesAreTheUnitOfEvidence(t *testing.T) {
	same := func(_ string, c int) bool { return c%3 != 0 }
	for _, tt := range []struct {
		name           string
		cases, repeats int
		pass           func(string, int) bool
		verdict        string
		evidence       string
		reading        string
	}{
		{"11 cases × 10 copies", 11, 10, same, "undecided",
			"11 cases (110 trials, repeats agree on 11 of 11 cases)", "undecided: need more cases (~73 cases, 62 more)"},
		{"100 cases", 100, 1, same, "not_worse",
			"100 cases (one trial each)", "not worse by more than 5 pts"},
		{"100 cases × 10 copies", 100, 10, same, "not_worse",
			"100 cases (1000 trials, repeats agree on 100 of 100 cases)", "not worse by more than 5 pts"},
		{"fails 40 of 100 more", 100, 10, func(model string, c int) bool { return model == "m" || c >= 40 }, "worse",
			"100 cases (1000 trials, repeats agree on 100 of 100 cases)", "worse by more than 5 pts"},
	} {
		row := deterministicRun(t, tt.cases, tt.repeats, tt.pass)
		ni := row.NonInferiority
		if ni.Verdict != tt.verdict || ni.Evidence.String() != tt.evidence || ni.Reading() != tt.reading {
			t.Errorf("%s: %s over %s: %q (interval %+.3f to %+.3f, deff %v)\nwant %s over %s: %q",
				tt.name, ni.Verdict, ni.Evidence, ni.Reading(), ni.Lo, ni.Hi, ni.Deff, tt.verdict, tt.evidence, tt.reading)
		}
		if tt.verdict == "undecided" && (ni.CasesNeeded != 73 || ni.PairsNeeded != 730 || !strings.Contains(ni.Reading(), "cases")) {
			t.Errorf("%s: needs %d cases (%d pairs), want 73 cases", tt.name, ni.CasesNeeded, ni.PairsNeeded)
		}
	}
	// Today's arithmetic with one repeat a case: 40 of 100 lost, McNemar
	// exactly 2/2^40; with ten copies each, the same.
	for _, repeats := range []int{1, 10} {
		row := deterministicRun(t, 100, repeats, func(model string, c int) bool { return model == "m" || c >= 40 })
		if want := 2 / float64(uint64(1)<<40); row.P < want*(1-1e-9) || row.P > want*(1+1e-9) || row.Verdict != Worse {
			t.Errorf("%d repeats: McNemar p %v %s, want %v worse", repeats, row.P, row.Verdict, want)
		}
	}
}
