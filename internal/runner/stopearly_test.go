package runner_test

import (
	"context"
	"testing"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/runner"
	"github.com/toolgrade/toolgrade/internal/stats"
)

// TestStopEarlySavesTheTrialsOfSettledCases runs the docs suite 20 times
// with --stop-early against the deterministic demo models: every case of
// scripted-good always passes and every case of scripted-weak always fails,
// so each settles after exactly 4 trials (the default test's bound) and the
// other 16 repeats are saved, exactly.
func TestStopEarlySavesTheTrialsOfSettledCases(t *testing.T) {
	r := newRig(t, nil, nil, nil, "docs")
	s := loadSuite(t, "../../cases/docs.yaml", r.cat)
	saved := map[string]runner.Progress{}
	r.runner.OnProgress = func(p runner.Progress) { saved[p.Model] = p }
	_, err := r.runner.Run(context.Background(), runner.Config{
		Suite: s, Models: models(t, r, "scripted-good", "scripted-weak"),
		Repeat: 20, Parallel: 3, StopEarly: &stats.SPRT{},
	})
	if err != nil {
		t.Fatal(err)
	}
	n := len(s.Cases)
	perCase := map[record.TrialKey]int{}
	for _, tr := range r.trials(t) {
		perCase[record.TrialKey{Model: tr.Model, CaseID: tr.CaseID}]++
		if tr.Repeat >= 4 {
			t.Errorf("%s/%s ran repeat %d; settled cases stop after 4", tr.Model, tr.CaseID, tr.Repeat)
		}
	}
	if len(perCase) != 2*n {
		t.Fatalf("%d (model, case) pairs ran, want %d", len(perCase), 2*n)
	}
	for k, c := range perCase {
		if c != 4 {
			t.Errorf("%s/%s: %d trials, want 4", k.Model, k.CaseID, c)
		}
	}
	for _, m := range []string{"scripted-good", "scripted-weak"} {
		p := saved[m]
		if p.Saved != 16*n || p.Total != 4*n || p.Done != 4*n {
			t.Errorf("%s: saved %d, total %d, done %d; want %d, %d, %d", m, p.Saved, p.Total, p.Done, 16*n, 4*n, 4*n)
		}
	}
}

// TestStopEarlyIgnoresInfraErrorsAndCountsResumedEvidence: trials recorded
// by an earlier session count (a case with 4 passes on record runs no more),
// and infra errors on record are no evidence (a case with 4 of them still
// needs its 4 scored trials).
func TestStopEarlyIgnoresInfraErrorsAndCountsResumedEvidence(t *testing.T) {
	r := newRig(t, nil, nil, nil, "docs")
	s := loadSuite(t, "../../cases/docs.yaml", r.cat)
	done := map[record.TrialKey]bool{}
	outcomes := map[record.TrialKey]string{}
	for i, c := range s.Cases[:2] {
		for rep := range 4 {
			k := record.TrialKey{Model: "scripted-good", CaseID: c.ID, Repeat: rep}
			done[k] = true
			outcomes[k] = []string{record.OutcomePass, record.OutcomeInfraError}[i]
		}
	}
	_, err := r.runner.Run(context.Background(), runner.Config{
		Suite: s, Models: models(t, r, "scripted-good"), Repeat: 10,
		StopEarly: &stats.SPRT{}, Done: done, Outcomes: outcomes,
	})
	if err != nil {
		t.Fatal(err)
	}
	ran := map[string][]int{}
	for _, tr := range r.trials(t) {
		ran[tr.CaseID] = append(ran[tr.CaseID], tr.Repeat)
	}
	if got := ran[s.Cases[0].ID]; len(got) != 0 {
		t.Errorf("settled on record, yet ran repeats %v", got)
	}
	if got := ran[s.Cases[1].ID]; len(got) != 4 || got[0] != 4 || got[3] != 7 {
		t.Errorf("4 infra errors on record: ran repeats %v, want 4..7", got)
	}
	if got := ran[s.Cases[2].ID]; len(got) != 4 {
		t.Errorf("fresh case ran repeats %v, want 0..3", got)
	}
}

// TestStopEarlyIgnoresTruncatedTrials: trials whose prompt reached num_ctx
// are kept out of the rates, so they are no evidence either: with a num_ctx
// every prompt reaches, no case settles and every repeat runs; with
// KeepTruncated they count, and each case settles after 4.
func TestStopEarlyIgnoresTruncatedTrials(t *testing.T) {
	for _, keep := range []bool{false, true} {
		r := newRig(t, nil, nil, nil, "docs")
		s := loadSuite(t, "../../cases/docs.yaml", r.cat)
		s.Defaults.Options["num_ctx"] = int64(64) // the fake's prompt_eval_count stops there
		var last runner.Progress
		r.runner.OnProgress = func(p runner.Progress) { last = p }
		_, err := r.runner.Run(context.Background(), runner.Config{
			Suite: s, Models: models(t, r, "scripted-good"), Repeat: 6,
			StopEarly: &stats.SPRT{}, Judge: record.JudgeOptions{KeepTruncated: keep},
		})
		if err != nil {
			t.Fatal(err)
		}
		trials := r.trials(t)
		want := 6 * len(s.Cases)
		if keep {
			want = 4 * len(s.Cases)
		}
		if len(trials) != want {
			t.Errorf("keep truncated %v: %d trials, want %d", keep, len(trials), want)
		}
		// The progress line counts as the rates do.
		scored := 0
		if keep {
			scored = want
		}
		if last.Done != want || last.Scored != scored || last.Pass > last.Scored {
			t.Errorf("keep truncated %v: progress done %d, scored %d, pass %d; want %d, %d", keep, last.Done, last.Scored, last.Pass, want, scored)
		}
		for _, tr := range trials {
			if !tr.Score.Truncated {
				t.Fatalf("%s: not truncated at num_ctx 64", tr.CaseID)
			}
		}
	}
}
