package suite

import "github.com/toolgrade/toolgrade/internal/srcpos"

// The suite's errors are the shared ones of every config reader, so a typo
// reads the same in a suite, a servers file and a fake Ollama script.
type (
	// Error is one problem in a suite file, rendered file:line:col: field: msg.
	Error = srcpos.Error
	// Errors is every problem found in a suite, sorted by position; its
	// message puts each on its own line, up to MaxErrors of them.
	Errors = srcpos.List
	// Pos is a position in a suite file.
	Pos = srcpos.Pos
)

// MaxErrors is how many problems an Errors message lists before it stops.
const MaxErrors = srcpos.MaxErrors

// closest returns the candidate a mistyped name most likely meant, or "".
func closest(s string, candidates []string) string { return srcpos.Suggest(s, candidates) }
