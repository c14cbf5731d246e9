package runner_test

import (
	"context"
	"testing"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/runner"
	"github.com/toolgrade/toolgrade/internal/shard"
)

// TestOnlyRunsTheShardAndLoadsOnlyItsModels: with Config.Only a run writes
// exactly its shard's trials, and a model with no trial in the shard is
// never loaded (the point of --shard-by model).
func TestOnlyRunsTheShardAndLoadsOnlyItsModels(t *testing.T) {
	r := newRig(t, nil, nil, nil, "docs")
	s := loadSuite(t, "../../cases/docs.yaml", r.cat)
	ms := models(t, r, "scripted-good", "scripted-weak")
	m := shard.Matrix{Models: []string{"scripted-good", "scripted-weak"}, Repeat: 2}
	for i := range s.Cases {
		m.Cases = append(m.Cases, s.Cases[i].ID)
	}
	sp, err := shard.Make(1, 2, shard.ByModel)
	if err != nil {
		t.Fatal(err)
	}
	only := sp.Filter(m)
	var last runner.Progress
	r.runner.OnProgress = func(p runner.Progress) { last = p }
	if _, err := r.runner.Run(context.Background(), runner.Config{Suite: s, Models: ms, Repeat: 2, Only: only}); err != nil {
		t.Fatal(err)
	}
	got := map[record.TrialKey]bool{}
	for _, tr := range r.trials(t) {
		if !only[tr.Key()] || got[tr.Key()] {
			t.Errorf("trial %v outside the shard or twice", tr.Key())
		}
		got[tr.Key()] = true
	}
	if len(got) != len(only) || last.Total != len(only) || last.Done != len(only) {
		t.Errorf("%d trials, progress %d/%d; the shard holds %d", len(got), last.Done, last.Total, len(only))
	}
	for _, req := range r.fake.Requests() {
		if c := req.Chat; c != nil && c.Model == "scripted-good" {
			t.Fatalf("scripted-good, all in shard 0, was sent a request")
		}
	}
}
