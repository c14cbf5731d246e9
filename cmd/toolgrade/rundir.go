package main

import (
	"io"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/runs"
	"github.com/toolgrade/toolgrade/internal/store"
)

// runDirError says what a run directory refused in terms of run's flags
// (runs.DirError).
func runDirError(dir string, err error) error { return runs.DirError(dir, err) }

// eachTrial calls fn for every trial of run, warning about unreadable lines
// on stderr (runs.EachTrial).
func eachTrial(run *store.Reader, stderr io.Writer, fn func(*record.Trial)) error {
	return runs.EachTrial(run, stderr, fn)
}
