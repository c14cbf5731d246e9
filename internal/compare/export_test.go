package compare

import "testing"

// WriteBenchRun writes BenchmarkCompare's run of n trials for the
// benchmarks of package compare_test (choose, gates), which import
// packages that import compare.
func WriteBenchRun(b *testing.B, dir string, n, resultBytes, side int) {
	benchRun(b, dir, n, resultBytes, side)
}
