package tgtest

import (
	"fmt"
	"strings"

	"github.com/toolgrade/toolgrade/internal/record"
)

// report makes one subtest per case, named by its ID, and under it one per
// model when there are several. Each judges the case's trials of its model:
// every repeat on its own (a subtest each when there are several), or with
// Options.MinPass their pass rate at once.
func report[S T[S]](t S, r *run, trials []*record.Trial) {
	t.Helper()
	byKey := map[record.TrialKey]*record.Trial{}
	for _, tr := range trials {
		byKey[tr.Key()] = tr
	}
	for i := range r.s.Cases {
		id := r.s.Cases[i].ID
		t.Run(id, func(t S) {
			t.Helper()
			for _, m := range r.models {
				perModel := func(t S) {
					t.Helper()
					if msg, ok := r.skips[m]; ok {
						t.Skipf("%s", msg)
						return
					}
					reps := make([]*record.Trial, r.repeat)
					for rep := range reps {
						reps[rep] = byKey[record.TrialKey{Model: m, CaseID: id, Repeat: rep}]
					}
					if r.o.MinPass > 0 {
						checkRate(t, m, r.o.MinPass, reps)
						return
					}
					checkEach(t, m, reps)
				}
				if len(r.models) == 1 {
					perModel(t)
					continue
				}
				t.Run(m, perModel)
			}
		})
	}
}

// checkEach judges every repeat of model on its own (reps[i] is repeat i,
// nil when it was not recorded), a subtest each when there are several.
func checkEach[S T[S]](t S, model string, reps []*record.Trial) {
	t.Helper()
	for rep, tr := range reps {
		if len(reps) == 1 {
			check(t, model, rep, tr)
			continue
		}
		t.Run(fmt.Sprintf("repeat%d", rep), func(t S) {
			t.Helper()
			check(t, model, rep, tr)
		})
	}
}

// check fails t unless the trial passed, saying how it failed: the outcome,
// the scorer's detail and what the model did.
func check(t TB, model string, rep int, tr *record.Trial) {
	t.Helper()
	if tr == nil {
		t.Errorf("tgtest: %s repeat %d: %s", model, rep, notRecorded)
		return
	}
	if tr.Score.Outcome == record.OutcomePass {
		return
	}
	t.Errorf("tgtest: %s repeat %d: %s%s", model, rep, outcome(tr), describe(tr.Transcript, "  "))
}

// notRecorded is what a subtest says of a repeat that has no trial.
const notRecorded = "no trial was recorded (the run stopped before it)"

// outcome is a trial's outcome with the scorer's detail.
func outcome(tr *record.Trial) string {
	if tr.Score.Detail == "" {
		return tr.Score.Outcome
	}
	return tr.Score.Outcome + ": " + tr.Score.Detail
}

// describe says what the model did in a transcript, one line for the
// calls it made (in order) and one for its answer, each starting with a
// newline and indent, to append to a failure.
func describe(tr *record.Transcript, indent string) string {
	if tr == nil {
		return ""
	}
	var b strings.Builder
	calls := tr.ToolCalls()
	if len(calls) == 0 {
		fmt.Fprintf(&b, "\n%scalls: none", indent)
	} else {
		parts := make([]string, len(calls))
		for i, c := range calls {
			parts[i] = fmt.Sprintf("%s(%s)", c.Name, c.Arguments)
		}
		fmt.Fprintf(&b, "\n%scalls: %s", indent, strings.Join(parts, ", "))
	}
	if tr.Failure != nil {
		fmt.Fprintf(&b, "\n%sfailure: %s: %s", indent, tr.Failure.Kind, tr.Failure.Message)
	}
	fmt.Fprintf(&b, "\n%sanswer: %q", indent, tr.Answer)
	return b.String()
}
