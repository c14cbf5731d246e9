package main

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/fakes/rig"
)

// BenchmarkDecide times the commands of a decision over two 100,000-trial
// runs (rig.BenchRun's) as a user runs them: compare, choose and compare
// with gates, each from the run directories on disk (run.json and
// trials.jsonl read, trials paired, judged, the statistics computed) to
// its terminal rendering, written to a discarding writer. peak-RSS-MB is
// the process's peak resident memory, cpu-s/op the CPU time of one (on a
// shared machine, what the others' load leaves alone).
func BenchmarkDecide(b *testing.B) {
	const n = 100_000
	dir := b.TempDir()
	base, cur := filepath.Join(dir, "base"), filepath.Join(dir, "current")
	for i, d := range []string{base, cur} {
		if err := rig.BenchRun(d, n, 512, i); err != nil {
			b.Fatal(err)
		}
	}
	gates := []string{"--gate", "pass>=0.5", "--gate", "m:p95<=2s", "--gate", "noninferior(pass, 5pts)"}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"compare-2x100k-trials", []string{"compare", base, cur}},
		{"choose-100k-trials", []string{"choose", cur}},
		{"compare-gates-2x100k-trials", append([]string{"compare", base, cur}, gates...)},
	} {
		b.Run(c.name, func(b *testing.B) {
			rig.ResetPeakRSS()
			cpu := rig.CPUSeconds()
			b.ResetTimer()
			for range b.N {
				err := run(context.Background(), c.args, strings.NewReader(""), io.Discard, io.Discard)
				// A gate that fails (exit 4) is a verdict, not a failure.
				if _, failed := errors.AsType[*gateError](err); err != nil && !failed {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric((rig.CPUSeconds()-cpu)/float64(b.N), "cpu-s/op")
			b.ReportMetric(rig.PeakRSSMB(), "peak-RSS-MB")
		})
	}
}
