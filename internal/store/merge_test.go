package store

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/shard"
)

// shardRuns writes the n shards (split by) of a run of models × cases ×
// repeat 2 into dirs under root, each with its trials, and returns them.
func shardRuns(t *testing.T, root string, n int, by string) []string {
	t.Helper()
	m := shard.Matrix{Models: []string{"m1", "m2"}, Cases: []string{"b", "a", "c"}, Repeat: 2}
	var dirs []string
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		s, err := shard.Make(i, n, by)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(root, fmt.Sprintf("shard%d", i))
		run := &record.Run{
			Suite:  record.RunSuite{Name: "s", Hash: "h1"},
			Models: []record.Model{{Name: "m1", Digest: "d1"}, {Name: "m2", Digest: "d2"}},
			Repeat: 2, Cases: map[string]string{"a": "ha", "b": "hb", "c": "hc"}, Shard: s.Record(),
			CatalogHash: "cat", Status: StatusComplete, Servers: []record.RunServer{{Name: "docs", Restarts: 1}},
			Start: t0.Add(time.Duration(i) * time.Hour), End: t0.Add(time.Duration(i+1) * time.Hour),
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := record.WriteRun(dir, run); err != nil {
			t.Fatal(err)
		}
		var lines []*record.Trial
		for k := range s.Filter(m) {
			// Case a's prompt was cut: a third of each model's trials.
			lines = append(lines, &record.Trial{Model: k.Model, CaseID: k.CaseID, Repeat: k.Repeat,
				Score: record.Score{Outcome: record.OutcomePass, Truncated: k.CaseID == "a"}, Transcript: &record.Transcript{Wall: time.Second}})
		}
		writeTrials(t, dir, lines...)
		dirs = append(dirs, dir)
	}
	return dirs
}

func writeTrials(t *testing.T, dir string, trials ...*record.Trial) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, record.TrialsFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := record.NewWriter(f)
	for _, tr := range trials {
		if err := w.Write(tr); err != nil {
			t.Fatal(err)
		}
	}
}

func TestMergeJoinsShardsInKeyOrder(t *testing.T) {
	for _, by := range []string{shard.ByTrial, shard.ByModel} {
		root := t.TempDir()
		dirs := shardRuns(t, root, 3, by)
		out := filepath.Join(root, "out")
		rd, _, err := Merge(out, dirs, MergeOptions{})
		if err != nil {
			t.Fatalf("by %s: %v", by, err)
		}
		run := readRun(t, out)
		if run.Shard != nil || run.Status != StatusComplete || run.Start.Hour() != 0 || run.End.Hour() != 3 || rd.Run.Repeat != 2 || run.Servers[0].Restarts != 3 {
			t.Errorf("by %s: merged run.json %+v", by, run)
		}
		var got []string
		if _, err := ReadTrials(out, func(tr *record.Trial) { got = append(got, KeyString(tr.Key())) }); err != nil {
			t.Fatal(err)
		}
		want := "m1/base/a#0 m1/base/b#0 m1/base/c#0 m1/base/a#1 m1/base/b#1 m1/base/c#1 m2/base/a#0 m2/base/b#0 m2/base/c#0 m2/base/a#1 m2/base/b#1 m2/base/c#1"
		if strings.Join(got, " ") != want {
			t.Errorf("by %s: merged trials\n%s\nwant\n%s", by, strings.Join(got, " "), want)
		}
	}
}

// TestMergeMeasuresEveryShardsTrials: each shard's run.json measured its
// own trials; the merged run's cost is measured on all of them.
func TestMergeMeasuresEveryShardsTrials(t *testing.T) {
	root := t.TempDir()
	dirs := shardRuns(t, root, 3, shard.ByTrial)
	if _, _, err := Merge(filepath.Join(root, "out"), dirs, MergeOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, m := range readRun(t, filepath.Join(root, "out")).Models {
		if c := m.Cost; c == nil || c.Trials != 6 || c.Truncated != 2 || c.P50 != time.Second {
			t.Errorf("%s: cost %+v", m.Name, c)
		}
	}
}

// TestMergeRefuses: each way shards cannot be joined is refused, with a
// message naming the shard directory and, for trials, the key.
func TestMergeRefuses(t *testing.T) {
	for _, c := range []struct {
		name  string
		spoil func(t *testing.T, dirs []string) []string
		want  []string
	}{
		{"gap: a shard not given", func(t *testing.T, d []string) []string { return d[:2] },
			[]string{"shard 2/3 (not given): trial", "missing"}},
		{"gap: a trial missing in its shard", func(t *testing.T, d []string) []string {
			p := filepath.Join(d[1], record.TrialsFile)
			b, _ := os.ReadFile(p)
			lines := strings.SplitAfter(string(b), "\n")
			os.WriteFile(p, []byte(strings.Join(lines[1:], "")), 0o644)
			return d
		}, []string{"shard1: trial", "missing"}},
		{"overlap: a trial in two shards", func(t *testing.T, d []string) []string {
			writeTrials(t, d[2], &record.Trial{Model: "m1", CaseID: "a", Repeat: 0})
			return d
		}, []string{"shard2: trial m1/base/a#0", "also in"}},
		{"overlap: the same shard twice", func(t *testing.T, d []string) []string { return append(d, d[0]) },
			[]string{"shard0: holds shard 0/3 by trial, as", "shard0 does"}},
		{"a trial outside the matrix", func(t *testing.T, d []string) []string {
			writeTrials(t, d[0], &record.Trial{Model: "m3", CaseID: "a"})
			return d
		}, []string{"shard0: trial m3/base/a#0: not in the run's matrix"}},
		{"drift: a model's digest", func(t *testing.T, d []string) []string {
			editRun(t, d[1], func(r *record.Run) { r.Models[1].Digest = "other" })
			return d
		}, []string{"shard1: did not run what", "model m2 digest: d2 ≠ other"}},
		{"drift: the suite", func(t *testing.T, d []string) []string {
			editRun(t, d[2], func(r *record.Run) { r.Suite.Hash = "h2" })
			return d
		}, []string{"shard2: did not run what", "suite hash: h1 ≠ h2"}},
		{"another split", func(t *testing.T, d []string) []string {
			editRun(t, d[2], func(r *record.Run) { r.Shard.N = 4 })
			return d
		}, []string{"shard2: shard 2/4 by trial of a different split"}},
		{"not a shard", func(t *testing.T, d []string) []string {
			editRun(t, d[0], func(r *record.Run) { r.Shard = nil })
			return d
		}, []string{"shard0: not a shard"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			dirs := c.spoil(t, shardRuns(t, root, 3, shard.ByTrial))
			out := filepath.Join(root, "out")
			_, _, err := Merge(out, dirs, MergeOptions{})
			if err == nil {
				t.Fatal("merged")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if _, err := os.Stat(filepath.Join(out, record.RunFile)); err == nil {
				t.Error("a refused merge wrote run.json")
			}
		})
	}
}

// TestMergeCountsTheLastLinePerKey: a shard whose resume reran a trial
// holds two lines of its key; only the last counts, so it is no overlap.
func TestMergeCountsTheLastLinePerKey(t *testing.T) {
	root := t.TempDir()
	dirs := shardRuns(t, root, 2, shard.ByTrial)
	writeTrials(t, dirs[0], &record.Trial{Model: "m1", CaseID: "a", Repeat: 0, Score: record.Score{Outcome: "wrong_tool"}})
	out := filepath.Join(root, "out")
	if _, _, err := Merge(out, dirs, MergeOptions{}); err != nil {
		t.Fatal(err)
	}
	var outcome string
	ReadTrials(out, func(tr *record.Trial) {
		if tr.Key() == (record.TrialKey{Model: "m1", CaseID: "a"}) {
			outcome = tr.Score.Outcome
		}
	})
	if outcome != "wrong_tool" {
		t.Errorf("m1/a#0 merged as %q, want the last line's wrong_tool", outcome)
	}
}

func editRun(t *testing.T, dir string, fn func(*record.Run)) {
	t.Helper()
	r := readRun(t, dir)
	fn(r)
	if err := record.WriteRun(dir, r); err != nil {
		t.Fatal(err)
	}
}

// TestJoinReadsShardsAsMergeWritesThem: Join yields the trials Merge
// writes, in the same order, refuses what Merge refuses, and writes nothing.
func TestJoinReadsShardsAsMergeWritesThem(t *testing.T) {
	root := t.TempDir()
	dirs := shardRuns(t, root, 3, shard.ByModel)
	out := filepath.Join(root, "out")
	if _, _, err := Merge(out, dirs, MergeOptions{}); err != nil {
		t.Fatal(err)
	}
	keys := func(r *Reader) string {
		var s []string
		if _, err := r.Trials(func(tr *record.Trial) { s = append(s, KeyString(tr.Key())) }); err != nil {
			t.Fatal(err)
		}
		return strings.Join(s, " ")
	}
	merged, err := Open(out)
	if err != nil {
		t.Fatal(err)
	}
	j, _, err := Join(dirs, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !j.Joined() || merged.Joined() || keys(j) != keys(merged) || j.Run.Shard != nil {
		t.Errorf("joined %s\nmerged %s", keys(j), keys(merged))
	}
	if _, _, err := Join(dirs[:2], MergeOptions{}); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("Join of two of three shards: %v", err)
	}
	entries, _ := os.ReadDir(dirs[0])
	for _, e := range entries {
		if e.Name() != record.RunFile && e.Name() != record.TrialsFile {
			t.Errorf("Join or Merge wrote %s in a shard", e.Name())
		}
	}
}
