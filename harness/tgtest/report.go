package tgtest

import (
	"fmt"
	"strings"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/suite"
)

// report makes one subtest per case, and under it one per model and repeat
// when there are several, each judging its trial. skips maps a model to the
// message its subtests skip with.
func report[S T[S]](t S, s *suite.Suite, models []string, repeat int, skips map[string]string, trials []*record.Trial) {
	t.Helper()
	byKey := map[record.TrialKey]*record.Trial{}
	for _, tr := range trials {
		byKey[tr.Key()] = tr
	}
	for i := range s.Cases {
		c := &s.Cases[i]
		t.Run(c.ID, func(t S) {
			t.Helper()
			for _, m := range models {
				perModel := func(t S) {
					t.Helper()
					if msg, ok := skips[m]; ok {
						t.Skipf("%s", msg)
						return
					}
					for rep := range repeat {
						key := record.TrialKey{Model: m, CaseID: c.ID, Repeat: rep}
						if repeat == 1 {
							check(t, key, byKey[key])
							continue
						}
						t.Run(fmt.Sprintf("repeat%d", rep), func(t S) {
							t.Helper()
							check(t, key, byKey[key])
						})
					}
				}
				if len(models) == 1 {
					perModel(t)
					continue
				}
				t.Run(m, perModel)
			}
		})
	}
}

// check fails t unless the trial passed, saying how it failed: the outcome,
// the scorer's detail and what the model did.
func check(t TB, key record.TrialKey, tr *record.Trial) {
	t.Helper()
	if tr == nil {
		t.Errorf("tgtest: %s repeat %d: no trial was recorded (the run stopped before it)", key.Model, key.Repeat)
		return
	}
	if tr.Score.Outcome == record.OutcomePass {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "tgtest: %s repeat %d: %s", key.Model, key.Repeat, tr.Score.Outcome)
	if tr.Score.Detail != "" {
		fmt.Fprintf(&b, ": %s", tr.Score.Detail)
	}
	b.WriteString(describe(tr.Transcript))
	t.Errorf("%s", b.String())
}

// describe says what the model did in a transcript, one line for the
// calls it made (in order) and one for its answer, each starting with a
// newline, for check to append to a failure.
func describe(tr *record.Transcript) string {
	if tr == nil {
		return ""
	}
	var b strings.Builder
	calls := tr.ToolCalls()
	if len(calls) == 0 {
		b.WriteString("\n  calls: none")
	} else {
		parts := make([]string, len(calls))
		for i, c := range calls {
			parts[i] = fmt.Sprintf("%s(%s)", c.Name, c.Arguments)
		}
		fmt.Fprintf(&b, "\n  calls: %s", strings.Join(parts, ", "))
	}
	if tr.Failure != nil {
		fmt.Fprintf(&b, "\n  failure: %s: %s", tr.Failure.Kind, tr.Failure.Message)
	}
	fmt.Fprintf(&b, "\n  answer: %q", tr.Answer)
	return b.String()
}
