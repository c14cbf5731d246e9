package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/toolgrade/toolgrade/internal/compare"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/store"
)

// runMerge is `toolgrade merge OUT DIR...`: store.Merge joins the shards,
// with compare's drift as the check that they ran the same thing, then the
// reports of the merged run are written as a run's end writes them.
func runMerge(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("merge", "OUT DIR...", stderr)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 2 {
		return usageErrorf("merge: give the output directory and at least one shard directory")
	}
	out, dirs := pos[0], pos[1:]
	rd, warnings, err := store.Merge(out, dirs, store.MergeOptions{Drift: mergeDrift})
	store.Warn(stderr, warnings)
	if err != nil {
		var me *store.MergeError
		if errors.As(err, &me) {
			return usageErrorf("merge: %v", err)
		}
		return runDirError(out, err)
	}
	fmt.Fprintf(stderr, "toolgrade: merged %d shards into %s\n", len(dirs), out)
	sum, err := writeReports(rd, stdout, stderr)
	if err != nil {
		return err
	}
	if err := writeMarkdownReports(rd, sum, stderr); err != nil {
		return err
	}
	return writeHTMLReport(rd, filepath.Join(out, htmlReportFile), stdout, io.Discard)
}

// openRuns opens the run directory of report or show (cmd), or, given
// several, reads them as the shards of one run, in memory and read-only,
// with the checks of merge.
func openRuns(cmd string, dirs []string, stderr io.Writer) (*store.Reader, error) {
	if len(dirs) == 1 {
		run, err := store.Open(dirs[0])
		if err != nil {
			return nil, asUsage(fmt.Errorf("%s: %w", cmd, err))
		}
		return run, nil
	}
	run, warnings, err := store.Join(dirs, store.MergeOptions{Drift: mergeDrift})
	store.Warn(stderr, warnings)
	if err != nil {
		return nil, usageErrorf("%s: %v", cmd, err)
	}
	return run, nil
}

// mergeDrift is compare's drift between two shards, less what may differ
// between machines that ran the same thing: the Ollama version (a warning
// a report of hosts makes) is not a reason to refuse.
func mergeDrift(a, b *record.Run) []string {
	d, cat := compare.RunDrift(a, b)
	var out []string
	for _, x := range d {
		if x.Field == "ollama version" {
			continue
		}
		out = append(out, fmt.Sprintf("%s: %s ≠ %s", x.Field, x.Base, x.Current))
	}
	for _, c := range cat {
		s := fmt.Sprintf("catalog %s: %s", c.Variant, c.Change)
		if c.Tool != "" {
			s += " of " + c.Tool
		}
		out = append(out, s)
	}
	return out
}
