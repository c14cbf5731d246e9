package compare_test

import (
	"path/filepath"
	"testing"

	"github.com/toolgrade/toolgrade/fakes/rig"
	"github.com/toolgrade/toolgrade/internal/choose"
	"github.com/toolgrade/toolgrade/internal/compare"
	"github.com/toolgrade/toolgrade/internal/gate"
	"github.com/toolgrade/toolgrade/internal/gate/expr"
	"github.com/toolgrade/toolgrade/internal/runs"
	"github.com/toolgrade/toolgrade/internal/store"
)

// BenchmarkDecide is the rest of a decision over BenchmarkCompare's runs:
// choose over one 100,000-trial run (its table and each model paired with
// the reference), and the gates compare --gate judges on two (the current
// run's summary, made from the comparison's read of it as compare makes
// it, then the gates on it and on the comparison).
func BenchmarkDecide(b *testing.B) {
	const n = 100_000
	dir := b.TempDir()
	compare.WriteBenchRun(b, filepath.Join(dir, "base"), n, 512, 0)
	compare.WriteBenchRun(b, filepath.Join(dir, "current"), n, 512, 1)
	base, err := store.Open(filepath.Join(dir, "base"))
	if err != nil {
		b.Fatal(err)
	}
	cur, err := store.Open(filepath.Join(dir, "current"))
	if err != nil {
		b.Fatal(err)
	}
	gates, err := expr.Parse("pass>=0.5", "m:p95<=2s", "noninferior(pass, 5pts)")
	if err != nil {
		b.Fatal(err)
	}
	measure := func(b *testing.B, fn func()) {
		rig.ResetPeakRSS()
		cpu := rig.CPUSeconds()
		b.ResetTimer()
		for range b.N {
			fn()
		}
		b.StopTimer()
		b.ReportMetric((rig.CPUSeconds()-cpu)/float64(b.N), "cpu-s/op")
		b.ReportMetric(rig.PeakRSSMB(), "peak-RSS-MB")
	}
	b.Run("choose-100k-trials", func(b *testing.B) {
		measure(b, func() {
			c, _, err := choose.Choose(cur, choose.Options{})
			if err != nil || len(c.Models) != 2 {
				b.Fatalf("%v, %d models", err, len(c.Models))
			}
		})
	})
	b.Run("compare-gates-2x100k-trials", func(b *testing.B) {
		measure(b, func() {
			summarizing := runs.NewSummarizing(cur, runs.JudgeOptions(base, cur))
			c, _, err := compare.Runs(base, cur, &compare.Options{Current: summarizing})
			if err != nil {
				b.Fatal(err)
			}
			sum := summarizing.Summary()
			if rs := gate.CheckCompared(sum, c, gates, gate.OnPoint); len(rs) < 3 {
				b.Fatalf("%d gate results", len(rs))
			}
		})
	})
}
