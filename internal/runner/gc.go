package runner

import (
	"os"
	"runtime/debug"
)

// The GC setting of a run. A run's live heap is a few MiB while every trial
// allocates and drops its requests, streams and transcript, so at Go's
// default (GOGC=100) collections come often. Ollama's Go client made it
// worse with an 8 MB read buffer per /api/chat request; chats now stream
// through llm.StreamChatter, and only the requests that still go through
// api.Client (start-up checks, signed requests) pay it. A higher GOGC lets
// the heap grow between collections, and the soft memory limit caps that
// growth, so memory stays flat and modest over any number of trials.
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
