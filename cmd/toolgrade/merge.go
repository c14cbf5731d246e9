package main

import (
	"context"
	"fmt"
	"io"

	"github.com/toolgrade/toolgrade/internal/cli"
	"github.com/toolgrade/toolgrade/internal/report"
	"github.com/toolgrade/toolgrade/internal/runs"
	"github.com/toolgrade/toolgrade/internal/termtext"
)

// runMerge is `toolgrade merge OUT DIR...`: runs.Merge joins the shards,
// then the reports of the merged run are written as a run's end writes
// them.
func runMerge(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("merge", "OUT DIR...", stderr)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 2 {
		return cli.Usagef("merge: give the output directory and at least one shard directory")
	}
	out, dirs := pos[0], pos[1:]
	rd, err := runs.Merge(out, dirs, stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "toolgrade: merged %s into %s\n", termtext.Count(len(dirs), "shard"), out)
	rep := &runReporter{RunFiles: report.RunFiles{Stdout: stdout, Stderr: stderr}}
	return runs.WriteReports(rd, rep, func(err error) error { return err }, stderr)
}
