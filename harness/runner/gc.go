package runner

import (
	"os"
	"runtime/debug"
)

// The GC setting of a run. Ollama's Go client allocates an 8 MB read
// buffer for every /api/chat request while a run's live heap is a few MiB,
// so at Go's default (GOGC=100) nearly every request starts a collection.
// Measured on 2 cores with 8 trials in flight, that GC work alone kept
// --parallel 8 under 7x the throughput of --parallel 1 (see
// BenchmarkParallelSpeedup). A higher GOGC lets the heap grow between
// collections, and the soft memory limit caps that growth, so memory stays
// flat and modest over any number of trials.
const (
	gcPercent   = 800
	memoryLimit = 160 << 20
)

// TuneGC sets the garbage collector for a run, unless the user set GOGC or
// GOMEMLIMIT.
func TuneGC() {
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetGCPercent(gcPercent)
		debug.SetMemoryLimit(memoryLimit)
	}
}
