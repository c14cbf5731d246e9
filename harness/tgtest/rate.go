package tgtest

import (
	"fmt"
	"strings"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/stats"
	"github.com/toolgrade/toolgrade/internal/termtext"
)

// checkRate judges the repeats of model at once (reps[i] is repeat i, nil
// when it was not recorded), as a pass>=minPass gate judged on the lower
// bound judges a run: t fails unless the lower end of the pass rate's 95%
// Wilson interval reaches minPass. Repeats are counted as reports count
// them (record.Judge), so an infrastructure error is left out. The message
// shows the rate, its interval and every repeat that did not pass; when the
// case passes all the same, it is logged.
//
// The rate is one case's: its question is that case's own pass rate, of
// which the repeats are the observations, independent given the case. So
// it is not clustered as a model's rate over many cases is (a case there is
// the unit of evidence); at temperature 0 its repeats agree, and 10 of 10
// says the case passes, not that ten cases would.
func checkRate(t TB, model string, minPass float64, reps []*record.Trial) {
	t.Helper()
	var rate stats.Rate
	var notes strings.Builder
	for rep, tr := range reps {
		if tr == nil {
			fmt.Fprintf(&notes, "\n  repeat %d: %s", rep, notRecorded)
			continue
		}
		j := record.Judge(tr)
		switch {
		case j.Infra:
			fmt.Fprintf(&notes, "\n  repeat %d (not counted): %s", rep, outcome(tr))
		case j.Excluded:
			fmt.Fprintf(&notes, "\n  repeat %d (not counted: the prompt reached num_ctx): %s", rep, outcome(tr))
		case j.Pass.OK:
			rate.K++
			rate.N++
			continue
		default:
			rate.N++
			fmt.Fprintf(&notes, "\n  repeat %d: %s", rep, outcome(tr))
		}
		notes.WriteString(describe(tr.Transcript, "    "))
	}
	if rate.Empty() {
		t.Errorf("tgtest: %s: pass >= %s: nothing to judge: no repeat counts toward the pass rate%s", model, termtext.TrimPercent(minPass), notes.String())
		return
	}
	lo, _ := rate.Wilson95()
	held := lo >= minPass
	op := ">="
	if !held {
		op = "<"
	}
	verdict := fmt.Sprintf("tgtest: %s: pass %s (%d/%d): lower bound %s %s %s (Options.MinPass)",
		model, rate.Percent(), rate.K, rate.N, termtext.Percent(lo, minPass, 1), op, termtext.TrimPercent(minPass))
	switch {
	case !held:
		t.Errorf("%s%s", verdict, notes.String())
	case notes.Len() > 0:
		t.Logf("%s%s", verdict, notes.String())
	}
}

// checkMinPass says whether Options.MinPass can be judged with repeat
// repeats: it must be below 1, and reachable when every repeat passes.
func checkMinPass(minPass float64, repeat int) error {
	switch {
	case minPass == 0:
		return nil
	case !(minPass > 0 && minPass < 1):
		return fmt.Errorf("Options.MinPass %v: must be at least 0 and below 1", minPass)
	}
	best, _ := stats.Rate{K: repeat, N: repeat}.Wilson95()
	if best >= minPass {
		return nil
	}
	need := repeat
	for lo := best; lo < minPass; {
		need++
		lo, _ = stats.Rate{K: need, N: need}.Wilson95()
	}
	return fmt.Errorf("Options.MinPass %s cannot hold with Repeat %d: even %d passes of %d give a lower bound of %s; it takes Repeat %d at least",
		termtext.TrimPercent(minPass), repeat, repeat, repeat, termtext.Percent(best, minPass, 1), need)
}
