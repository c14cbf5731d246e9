package compare

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/toolgrade/toolgrade/fakes/rig"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/store"
)

// BenchmarkCompare compares two 100,000-trial runs (rig.BenchRun's) as a
// library call (cmd/toolgrade's BenchmarkDecide times the commands);
// peak-RSS-MB is the process's peak resident memory during the
// comparisons, cpu-s/op the CPU time of one (on a shared machine, what the others' load leaves alone).
// The large variant has tool results 8 times longer: neither time nor
// memory may follow the transcripts, which a comparison never decodes.
func BenchmarkCompare(b *testing.B) {
	const n = 100_000
	for _, size := range []struct {
		name   string
		result int
	}{{"100k-trials-results-512B", 512}, {"100k-trials-results-4KB", 4096}}[:benchSizes()] {
		dir := b.TempDir()
		for i, side := range []string{"base", "current"} {
			if err := rig.BenchRun(filepath.Join(dir, side), n, size.result, i); err != nil {
				b.Fatal(err)
			}
		}
		st, _ := os.Stat(filepath.Join(dir, "base", record.TrialsFile))
		b.Run(size.name, func(b *testing.B) {
			base, err := store.Open(filepath.Join(dir, "base"))
			if err != nil {
				b.Fatal(err)
			}
			cur, err := store.Open(filepath.Join(dir, "current"))
			if err != nil {
				b.Fatal(err)
			}
			rig.ResetPeakRSS()
			cpu := rig.CPUSeconds()
			b.ResetTimer()
			for range b.N {
				c, _, err := Runs(base, cur, nil)
				if err != nil {
					b.Fatal(err)
				}
				if got := c.Groups[0].Pairs; got != n/2 {
					b.Fatalf("%d pairs, want %d", got, n/2)
				}
			}
			b.StopTimer()
			b.ReportMetric((rig.CPUSeconds()-cpu)/float64(b.N), "cpu-s/op")
			b.ReportMetric(rig.PeakRSSMB(), "peak-RSS-MB")
			b.ReportMetric(float64(st.Size())/(1<<20), "file-MB")
		})
	}
}

// benchSizes is how many transcript sizes BenchmarkCompare runs:
// TOOLGRADE_BENCH_SMALL=1 keeps only the first, for profiling.
func benchSizes() int {
	if os.Getenv("TOOLGRADE_BENCH_SMALL") == "1" {
		return 1
	}
	return 2
}
