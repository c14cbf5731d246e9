package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/record"
)

// timingFields are the summary fields that measure the clock, not the model:
// they differ between any two runs.
var timingFields = map[string]bool{
	"trial_latency": true, "round_latency": true, "tokens_per_second": true,
	"warmup_load_seconds": true, "load_seconds": true,
}

// untimed is summary.json with its timing fields removed, re-encoded.
func untimed(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, record.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	var strip func(any)
	strip = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if timingFields[k] {
					delete(x, k)
					continue
				}
				strip(e)
			}
		case []any:
			for _, e := range x {
				strip(e)
			}
		}
	}
	strip(v)
	out, _ := json.MarshalIndent(v, "", "  ")
	return string(out)
}

// TestMergedShardsReportAsTheUnshardedRun: a suite run in 3 shards (split
// by trial and by model) and merged gives the summary of the same run done
// in one piece, apart from timings, and the trials' scores key by key.
func TestMergedShardsReportAsTheUnshardedRun(t *testing.T) {
	t.Parallel()
	_, url := fakeOllama(t, nil)
	suite := docsSuite(t)
	tmp := t.TempDir()
	whole := filepath.Join(tmp, "whole")
	if r := runCLI(t, context.Background(), "run", suite, "--out", whole, "--ollama", url, "--repeat", "2"); r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	want := untimed(t, whole)
	scoreJSON := func(s record.Score) string { b, _ := json.Marshal(s); return string(b) }
	wantTrials := map[record.TrialKey]string{}
	if err := readTrials(whole, os.Stderr, func(tr *record.Trial) { wantTrials[tr.Key()] = fmt.Sprint(tr.Seed, scoreJSON(tr.Score)) }); err != nil {
		t.Fatal(err)
	}
	for _, by := range []string{"trial", "model"} {
		var dirs []string
		for i := range 3 {
			d := filepath.Join(tmp, fmt.Sprintf("%s-%d", by, i))
			r := runCLI(t, context.Background(), "run", suite, "--out", d, "--ollama", url, "--repeat", "2",
				"--shard", fmt.Sprintf("%d/3", i), "--shard-by", by)
			if r.err != nil {
				t.Fatalf("shard %d by %s: %v\n%s", i, by, r.err, r.stderr)
			}
			meta, err := record.ReadRun(d)
			if err != nil {
				t.Fatal(err)
			}
			if meta.Shard == nil || *meta.Shard != (record.RunShard{I: i, N: 3, By: by}) {
				t.Errorf("shard %d by %s: run.json shard %+v", i, by, meta.Shard)
			}
			dirs = append(dirs, d)
		}
		out := filepath.Join(tmp, "merged-"+by)
		r := runCLI(t, context.Background(), append([]string{"merge", out}, dirs...)...)
		if r.err != nil {
			t.Fatalf("merge by %s: %v\n%s", by, r.err, r.stderr)
		}
		got := untimed(t, out)
		if by == "model" {
			// Each shard ran one model: merged, the models ran one after
			// another, and the summary says their latency may be the
			// machine's. Nothing else differs.
			note := regexp.MustCompile(`,\s*"warnings": \[\s*` + regexp.QuoteMeta(strconv.Quote(record.ConfoundedNote)) + `\s*\]`)
			if !note.MatchString(got) {
				t.Errorf("merged by model: the summary does not say its models ran in blocks:\n%s", got)
			}
			got = note.ReplaceAllString(got, "")
		}
		if got != want {
			t.Errorf("merged by %s: summary differs from the unsharded run's:\n%s\n---\n%s", by, got, want)
		}
		n := 0
		if err := readTrials(out, os.Stderr, func(tr *record.Trial) {
			n++
			if w, ok := wantTrials[tr.Key()]; !ok || w != fmt.Sprint(tr.Seed, scoreJSON(tr.Score)) {
				t.Errorf("merged by %s: %v scored %s, unsharded %s", by, tr.Key(), fmt.Sprint(tr.Seed, scoreJSON(tr.Score)), w)
			}
		}); err != nil {
			t.Fatal(err)
		}
		if n != len(wantTrials) {
			t.Errorf("merged by %s: %d trials, want %d", by, n, len(wantTrials))
		}
		meta, err := record.ReadRun(out)
		if err != nil {
			t.Fatal(err)
		}
		if meta.Shard != nil || meta.Status != "complete" {
			t.Errorf("merged run.json: shard %v, status %s", meta.Shard, meta.Status)
		}
		// Every report reads the merged run; report and show read the
		// shards directly as the same run, writing nothing beside them.
		rep := runCLI(t, context.Background(), "report", out, "--json")
		if rep.err != nil {
			t.Errorf("report of the merged run: %v\n%s", rep.err, rep.stderr)
		}
		shardSummary, _ := os.ReadFile(filepath.Join(dirs[0], record.SummaryFile))
		direct := runCLI(t, context.Background(), append([]string{"report", "--json"}, dirs...)...)
		if direct.err != nil || direct.stdout != rep.stdout {
			t.Errorf("report of the shards by %s (err %v) differs from the merged run's:\n%s\n---\n%s", by, direct.err, direct.stdout, rep.stdout)
		}
		if after, _ := os.ReadFile(filepath.Join(dirs[0], record.SummaryFile)); string(after) != string(shardSummary) {
			t.Errorf("report of the shards rewrote %s's summary", dirs[0])
		}
		showMerged := runCLI(t, context.Background(), "show", out, "--model", "scripted-weak", "--case", "dog")
		showShards := runCLI(t, context.Background(), append([]string{"show", "--model", "scripted-weak", "--case", "dog"}, dirs...)...)
		if showMerged.err != nil || showShards.err != nil || showShards.stdout != showMerged.stdout || !strings.Contains(showMerged.stdout, "invalid_args") {
			t.Errorf("show of the shards (err %v):\n%s\n---\nof the merged run (err %v):\n%s", showShards.err, showShards.stdout, showMerged.err, showMerged.stdout)
		}
		if cmp := runCLI(t, context.Background(), "compare", whole, out); cmp.err != nil || !strings.Contains(cmp.stdout, "scripted-good") {
			t.Errorf("compare with the merged run: %v\n%s%s", cmp.err, cmp.stdout, cmp.stderr)
		}
	}
}

// TestShardFromEnvAndResumeKeepsTheShard: --shard-from env reads a
// Kubernetes Indexed Job's index; a resume finishes that shard alone and
// refuses another.
func TestShardFromEnvAndResumeKeepsTheShard(t *testing.T) {
	_, url := fakeOllama(t, nil)
	suite := docsSuite(t)
	dir := filepath.Join(t.TempDir(), "pod-1")
	t.Setenv("JOB_COMPLETION_INDEX", "1")
	t.Setenv("TOOLGRADE_SHARDS", "3")
	if r := runCLI(t, context.Background(), "run", suite, "--out", dir, "--ollama", url, "--shard-from", "env"); r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	meta, err := record.ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if meta.Shard == nil || *meta.Shard != (record.RunShard{I: 1, N: 3, By: "trial"}) {
		t.Fatalf("run.json shard %+v", meta.Shard)
	}
	want := readTrialKeys(t, dir)
	if len(want) < 16 || len(want) > 17 { // 2 models × 25 cases in 3 shards
		t.Errorf("shard 1/3 of 50 trials holds %d", len(want))
	}
	// As if the pod was killed after 3 trials.
	p := filepath.Join(dir, record.TrialsFile)
	b, _ := os.ReadFile(p)
	lines := strings.SplitAfter(string(b), "\n")
	if err := os.WriteFile(p, []byte(strings.Join(lines[:3], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runCLI(t, context.Background(), "run", "--resume", dir, "--ollama", url, "--shard", "0/3"); r.err == nil || !strings.Contains(r.err.Error(), "holds shard 1/3") {
		t.Errorf("resume with another shard: %v", r.err)
	}
	if r := runCLI(t, context.Background(), "run", "--resume", dir, "--ollama", url); r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	got := readTrialKeys(t, dir)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("resumed shard holds %v, want %v", got, want)
	}
}
