package runs

import (
	"testing"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/shard"
)

// TestResumeKeepsItsExecutionAndShard: --no-execute may repeat a resumed
// run's setting, not change it; the shard likewise, and a resume without a
// shard flag keeps the run's.
func TestResumeKeepsItsExecutionAndShard(t *testing.T) {
	old := &record.Run{NoExecute: true, Shard: &record.RunShard{I: 1, N: 3, By: shard.ByTrial}}
	if err := (&Spec{NoExecute: ptr(true)}).checkNoExecute(old); err != nil {
		t.Errorf("repeated --no-execute: %v", err)
	}
	if err := (&Spec{NoExecute: ptr(false)}).checkNoExecute(old); err == nil {
		t.Error("--no-execute=false resumes a run without execution")
	}
	getenv := func(string) string { return "" }
	kept, err := (&Shard{}).resolve(old, getenv)
	if err != nil || kept != (shard.Spec{I: 1, N: 3, By: shard.ByTrial}) {
		t.Errorf("kept: %v %v", kept, err)
	}
	if _, err := (&Shard{Spec: "1/3"}).resolve(old, getenv); err != nil {
		t.Errorf("repeated: %v", err)
	}
	_, err = (&Shard{Spec: "0/3"}).resolve(old, getenv)
	if err == nil || err.Error() != "--resume: the run holds shard 1/3 by trial; --shard cannot change it" {
		t.Errorf("changed: %v", err)
	}
	_, err = (&Shard{Spec: "0/2"}).resolve(&record.Run{}, getenv)
	if err == nil || err.Error() != "--resume: the run holds shard all (no shard); --shard cannot change it" {
		t.Errorf("added: %v", err)
	}
}
