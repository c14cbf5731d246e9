package main

import (
	"io"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/runs"
	"github.com/toolgrade/toolgrade/internal/store"
)

// eachTrial calls fn for every trial of run, warning about unreadable lines
// on stderr (runs.EachTrial).
func eachTrial(run *store.Reader, stderr io.Writer, fn func(*record.Trial)) error {
	return runs.EachTrial(run, stderr, fn)
}
