package view

import (
	"fmt"
	"runtime"
	"testing"
	"time"
)

// BenchmarkScan: the index of a folder of runs, as `toolgrade view` builds
// it for every list request. It reads run.json and summary.json only,
// never transcripts, so what it allocates a run is the same for 100 runs
// and 300; it grows with a run's cases, which both files list.
func BenchmarkScan(b *testing.B) {
	for _, c := range []struct{ runs, cases int }{{100, 10}, {300, 10}, {300, 100}} {
		b.Run(fmt.Sprintf("runs=%d/cases=%d", c.runs, c.cases), func(b *testing.B) {
			root := b.TempDir()
			passes := make([]bool, c.cases)
			for i := range passes {
				passes[i] = i%3 != 0
			}
			for i := range c.runs {
				fakeRun{name: fmt.Sprintf("r%03d", i), suite: "docs", start: time.Date(2026, 1, 1, 0, i, 0, 0, time.UTC),
					models: []string{"a", "b"}, passes: [][]bool{passes, passes}}.write(b, root)
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			b.ResetTimer()
			for b.Loop() {
				if got := Scan([]string{root}); len(got) != c.runs {
					b.Fatalf("%d entries, want %d", len(got), c.runs)
				}
			}
			b.StopTimer()
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/float64(c.runs), "B/run")
		})
	}
}
