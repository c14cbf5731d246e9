package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/toolgrade/toolgrade/internal/record"
)

// editedSuite writes beside suite a copy with old replaced by new, once.
func editedSuite(t *testing.T, suite, old, new string) string {
	t.Helper()
	b, err := os.ReadFile(suite)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(b), old, new, 1)
	if text == string(b) {
		t.Fatalf("%s no longer holds %q", suite, old)
	}
	p := filepath.Join(filepath.Dir(suite), "edited.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func trialsByKey(t *testing.T, dir string) map[record.TrialKey]*record.Trial {
	t.Helper()
	out := map[record.TrialKey]*record.Trial{}
	if err := readTrials(dir, os.Stderr, func(tr *record.Trial) { out[tr.Key()] = tr }); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRescoreOffline runs the docs suite against the fake Ollama once, then
// rescores it three ways without a single request reaching the fake: with
// the same suite every trial's score is identical to the fresh run's; a
// matcher fixed to accept the weak model's menu call turns its wrong_args
// into a pass; a case whose question changed is listed and copied, not
// rescored.
func TestRescoreOffline(t *testing.T) {
	t.Parallel()
	fake, url := fakeOllama(t, nil)
	suite := docsSuite(t)
	dir := filepath.Join(t.TempDir(), "run")
	if r := runCLI(t, context.Background(), "run", suite, "--out", dir, "--ollama", url, "--repeat", "2", "--parallel", "2"); r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	fresh := trialsByKey(t, dir)
	ranMeta, err := record.ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	requests := len(fake.Requests())

	t.Run("unchanged", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "same")
		r := runCLI(t, context.Background(), "rescore", dir, "--suite", suite, "--out", out)
		if r.err != nil {
			t.Fatalf("%v\n%s", r.err, r.stderr)
		}
		got := trialsByKey(t, out)
		if len(got) != len(fresh) || len(got) != 2*2*25 {
			t.Fatalf("%d trials rescored, fresh run has %d", len(got), len(fresh))
		}
		for k, tr := range fresh {
			if diff := cmp.Diff(tr.Score, got[k].Score); diff != "" {
				t.Errorf("%v: rescored score differs (-fresh +rescored):\n%s", k, diff)
			}
		}
		meta, err := record.ReadRun(out)
		if err != nil {
			t.Fatal(err)
		}
		if rs := meta.Rescored; rs == nil || rs.From != dir || rs.Rescored != 100 || len(rs.Copied) != 0 || rs.Time.IsZero() || rs.FromSuiteHash == "" {
			t.Errorf("run.json rescored = %+v", meta.Rescored)
		}
		if !strings.Contains(r.stdout, "rescored from "+dir) {
			t.Errorf("report does not say it was rescored:\n%s", r.stdout)
		}
	})

	t.Run("fixed matcher", func(t *testing.T) {
		// The weak model asks for "menu", which the docs server has no
		// document of: its call fails, so the case allows that.
		fixed := editedSuite(t, suite, "args: {name: menu.txt}", "args: {name: {one_of: [menu.txt, menu]}}\n      call_may_fail: true")
		out := filepath.Join(t.TempDir(), "fixed")
		r := runCLI(t, context.Background(), "rescore", dir, "--suite", fixed, "--out", out)
		if r.err != nil {
			t.Fatalf("%v\n%s", r.err, r.stderr)
		}
		got := trialsByKey(t, out)
		for rep := range 2 {
			k := record.TrialKey{Model: "scripted-weak", CaseID: "menu-in-full", Repeat: rep}
			if fresh[k].Score.Outcome != record.OutcomeWrongArgs || got[k].Score.Outcome != record.OutcomePass {
				t.Errorf("%v: %s, rescored %s; want wrong_args then pass", k, fresh[k].Score.Outcome, got[k].Score.Outcome)
			}
		}
		meta, err := record.ReadRun(out)
		if err != nil {
			t.Fatal(err)
		}
		if meta.Suite.Hash == meta.Rescored.FromSuiteHash || meta.Cases["menu-in-full"] == ranMeta.Cases["menu-in-full"] || meta.Cases["dog"] != ranMeta.Cases["dog"] {
			t.Errorf("run.json does not tell the edited suite and case from the run's: %+v %v", meta.Suite, meta.Cases)
		}
	})

	t.Run("changed question", func(t *testing.T) {
		changed := editedSuite(t, suite, `ask: "Can I bring my dog?"`, `ask: "May my dog come along?"`)
		out := filepath.Join(t.TempDir(), "changed")
		r := runCLI(t, context.Background(), "rescore", dir, "--suite", changed, "--out", out)
		if r.err != nil {
			t.Fatalf("%v\n%s", r.err, r.stderr)
		}
		if !strings.Contains(r.stderr, "case dog not rescored (its conversation changed)") {
			t.Errorf("stderr does not list the changed case:\n%s", r.stderr)
		}
		meta, err := record.ReadRun(out)
		if err != nil {
			t.Fatal(err)
		}
		if rs := meta.Rescored; !cmp.Equal(rs.Copied, []string{"dog"}) || rs.Rescored != 96 {
			t.Errorf("run.json rescored = %+v, want dog copied and 96 rescored", rs)
		}
		got := trialsByKey(t, out)
		for k, tr := range fresh {
			if diff := cmp.Diff(tr.Score, got[k].Score); diff != "" {
				t.Errorf("%v: copied score differs:\n%s", k, diff)
			}
		}
	})

	t.Run("never over the run", func(t *testing.T) {
		r := runCLI(t, context.Background(), "rescore", dir, "--suite", suite, "--out", dir)
		if r.code != exitUsage || !strings.Contains(r.err.Error(), "never overwrites") {
			t.Errorf("rescore into the run itself: code %d, %v", r.code, r.err)
		}
	})

	if n := len(fake.Requests()); n != requests {
		t.Errorf("rescoring sent %d requests to the fake Ollama; want none", n-requests)
	}
}

// TestRunStopEarlySavesTrials: with --stop-early the deterministic demo
// models settle every case of the docs suite after 4 of 20 repeats; run.json
// records the rule and the 2 × 25 × 16 trials saved, and the report says so.
func TestRunStopEarlySavesTrials(t *testing.T) {
	t.Parallel()
	_, url := fakeOllama(t, nil)
	dir := filepath.Join(t.TempDir(), "run")
	r := runCLI(t, context.Background(), "run", docsSuite(t), "--out", dir, "--ollama", url, "--repeat", "20", "--parallel", "2", "--stop-early")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	meta, err := record.ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := &record.RunStopEarly{Threshold: 0.5, Delta: 0.2, Alpha: 0.05, Beta: 0.05, TrialsSaved: 2 * 25 * 16}
	if diff := cmp.Diff(want, meta.StopEarly); diff != "" {
		t.Errorf("run.json stop_early (-want +got):\n%s", diff)
	}
	if n := len(readTrialKeys(t, dir)); n != 2*25*4 {
		t.Errorf("%d trials ran, want %d", n, 2*25*4)
	}
	if !strings.Contains(r.stdout, "stop-early: 800 trials saved") {
		t.Errorf("report does not say how many trials were saved:\n%s", r.stdout)
	}
	// Every case stopped early, so each states the exact interval that
	// covers under the rule: 4/4 at 99% is [0.266, 1].
	var sum struct {
		Models []struct {
			Cases []struct {
				ID      string
				Stopped *struct{ Level, Lo, Hi float64 } `json:"stopped_early"`
			}
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, record.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	for _, m := range sum.Models {
		for _, c := range m.Cases {
			if s := c.Stopped; s == nil || s.Level != 0.99 || (s.Hi != 1 && s.Lo != 0) || s.Hi-s.Lo < 0.7 || s.Hi-s.Lo > 0.75 {
				t.Errorf("case %s: stopped_early = %+v", c.ID, c.Stopped)
			}
		}
	}
	if r := runCLI(t, context.Background(), "run", "--resume", dir, "--stop-threshold", "0.6"); r.code != exitUsage {
		t.Errorf("a resume that changes the rule: code %d, %v", r.code, r.err)
	}
}

// TestRescoreNoExecuteChecksCallsAgainstTheRecordedCatalog: trials run
// without execution have no executions to say whether a call named a tool or
// fit its schema; rescoring checks them against the catalog run.json
// recorded, and agrees with the live catalog's verdicts on every trial. Only
// the detail of an invalid call may differ: the recorded catalog is the
// schema the model was shown, which lacks what Ollama's shape drops (here
// additionalProperties: false), so the validator may name another fault.
func TestRescoreNoExecuteChecksCallsAgainstTheRecordedCatalog(t *testing.T) {
	t.Parallel()
	_, url := fakeOllama(t, nil)
	suite := docsSuite(t)
	dir := filepath.Join(t.TempDir(), "run")
	if r := runCLI(t, context.Background(), "run", suite, "--out", dir, "--ollama", url, "--no-execute"); r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	out := filepath.Join(t.TempDir(), "rescored")
	if r := runCLI(t, context.Background(), "rescore", dir, "--suite", suite, "--out", out); r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	fresh, got := trialsByKey(t, dir), trialsByKey(t, out)
	outcomes := map[string]bool{}
	for k, tr := range fresh {
		outcomes[tr.Score.Outcome] = true
		if diff := cmp.Diff(tr.Score, got[k].Score, cmpopts.IgnoreFields(record.Score{}, "Detail")); diff != "" {
			t.Errorf("%v: rescored score differs (-live +offline):\n%s", k, diff)
		}
	}
	if !outcomes[record.OutcomeInvalidArgs] {
		t.Errorf("no trial was invalid_args (%v): the test no longer checks offline validation", outcomes)
	}
}
