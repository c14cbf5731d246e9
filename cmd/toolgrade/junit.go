package main

import (
	"bytes"
	"io"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/store"
	"github.com/toolgrade/toolgrade/reports"
)

// writeJUnit writes the run's JUnit XML to w, read from the run directory
// alone as every report is, warning about bad lines on stderr.
func writeJUnit(run *store.Reader, w io.Writer, stderr io.Writer) error {
	j := reports.NewJUnit(run.Run, nil)
	if err := eachTrial(run, stderr, j.Add); err != nil {
		return err
	}
	return j.Write(w)
}

// writeJUnitFile writes the run's JUnit XML to path, whole or not at all.
func writeJUnitFile(run *store.Reader, path string, stderr io.Writer) error {
	var b bytes.Buffer
	if err := writeJUnit(run, &b, stderr); err != nil {
		return err
	}
	return record.WriteAtomic(path, b.Bytes())
}
