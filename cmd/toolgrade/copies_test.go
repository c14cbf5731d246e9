package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/store"
)

// TestRunSkipsRepeatsThatCopyAndSaysSo: `run --repeat 4` of a suite at
// temperature 0 records repeats 2 and 3 of every case as copies and says so
// at the end; run.json says how the models were ordered (the fake keeps
// both loaded: interleaved); `show` says which repeat a copy copies;
// `--all-repeats` sends every repeat, and run.json records it.
func TestRunSkipsRepeatsThatCopyAndSaysSo(t *testing.T) {
	t.Parallel()
	_, url := fakeOllama(t, nil)
	suite := smallSuite(t)
	dir := filepath.Join(t.TempDir(), "run")
	r := runCLI(t, context.Background(), "run", suite, "--out", dir, "--ollama", url, "--repeat", "4", "--models", "scripted-good,scripted-weak")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	for _, want := range []string{
		"toolgrade: skipped 8 of 16 trials: their cases' first two repeats agreed at temperature 0 (copies); --all-repeats runs them\n",
		"toolgrade: the models' trials are interleaved case by case: scripted-good and scripted-weak stay loaded together on one Ollama\n",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	meta, err := record.ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if meta.Schedule != record.ScheduleInterleaved || meta.AllRepeats {
		t.Errorf("run.json: schedule %q, all_repeats %v", meta.Schedule, meta.AllRepeats)
	}
	s := runCLI(t, context.Background(), "show", dir, "--model", "scripted-good", "--case", "dog", "--color", "never")
	if s.err != nil || strings.Count(s.stdout, "a copy of repeat 0, not sent to the model") != 2 {
		t.Errorf("show: %v\n%s", s.err, s.stdout)
	}

	all := filepath.Join(t.TempDir(), "all")
	r = runCLI(t, context.Background(), "run", suite, "--out", all, "--ollama", url, "--repeat", "4", "--all-repeats")
	if r.err != nil || strings.Contains(r.stderr, "skipped") {
		t.Fatalf("--all-repeats: %v\n%s", r.err, r.stderr)
	}
	if meta, err := record.ReadRun(all); err != nil || !meta.AllRepeats || meta.Schedule != "" {
		t.Errorf("--all-repeats: run.json %+v, %v", meta, err)
	}
}

// TestRunSaysWhyEveryRepeatRuns: a suite that sets no temperature runs
// every repeat and says why, once.
func TestRunSaysWhyEveryRepeatRuns(t *testing.T) {
	t.Parallel()
	_, url := fakeOllama(t, nil)
	dir := filepath.Join(t.TempDir(), "run")
	r := runCLI(t, context.Background(), "run", smallSuite(t), "--out", dir, "--ollama", url, "--repeat", "3", "-o", "temperature=0.7")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	want := "toolgrade: every repeat is sent to the model: the temperature is not 0, so repeats may differ\n"
	if strings.Count(r.stderr, want) != 1 || strings.Contains(r.stderr, "skipped") {
		t.Errorf("stderr:\n%s\nwant once: %q", r.stderr, want)
	}
	copies, trials := 0, 0
	_, err := store.ReadTrials(dir, func(t *record.Trial) {
		trials++
		if t.IsCopy() {
			copies++
		}
	})
	if err != nil || copies != 0 || trials != 6 {
		t.Errorf("%d trials, %d copies, %v; want 6, none", trials, copies, err)
	}
}
