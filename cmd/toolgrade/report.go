package main

import (
	"context"
	"fmt"
	"io"

	"github.com/toolgrade/toolgrade/internal/cli"
	"github.com/toolgrade/toolgrade/internal/report"
	"github.com/toolgrade/toolgrade/internal/runs"
	"github.com/toolgrade/toolgrade/internal/store"
	"github.com/toolgrade/toolgrade/internal/summary"
)

// keepTruncatedUsage is the one help text of --keep-truncated.
const keepTruncatedUsage = "count the trials whose prompt reached num_ctx in the rates (by default they are kept out, counted apart, since the model may never have seen its tools)"

func runReport(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("report", "DIR | SHARD_DIR...", stderr)
	format := fs.String("format", "terminal", "the report's `FORMAT`: "+report.List(report.KindRun)+" (json is summary.json)")
	asJSON := fs.Bool("json", false, "the same as --format json")
	outPath := fs.String("o", "", "write the report to `FILE` (replaced atomically) instead of stdout")
	keepTruncated := fs.Bool("keep-truncated", false, keepTruncatedUsage)
	var gf gateFlags
	gf.register(fs)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	gateOn, err := gf.check()
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return cli.Usagef("report: give a run directory, or the shard directories of one run")
	}
	if *asJSON {
		if *format != "terminal" && *format != "json" {
			return cli.Usagef("report: --json is --format json; it cannot go with --format %s", *format)
		}
		*format = "json"
	}
	f, err := report.Find(*format, report.KindRun)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	run, err := runs.OpenRuns("report", pos, stderr)
	if err != nil {
		return err
	}
	applyKeepTruncated(*keepTruncated, run)
	// Every format is computed from the run directory alone; summarizing
	// the run writes its summary.json again, as run's end does.
	r := &report.Run{Reader: run, Warn: stderr, Summary: func() (*summary.Summary, error) { return runs.WriteSummary(run, stderr) }}
	if err := runs.WriteOutput(*outPath, stdout, func(w io.Writer) error { return f.Run(w, r) }); err != nil {
		return err
	}
	// Only --gate: the suite's gates are run's, so re-rendering a report
	// never starts failing a build.
	return gf.judgeRun(ctx, run, nil, gateOn, nil, stderr)
}

// applyKeepTruncated applies --keep-truncated (keep) to the runs a command read,
// for that command only: run.json is read, never written, here. Every
// reader of a run (its summary, HTML, JUnit, comparisons, gates, show) then
// judges its trials with runs.JudgeOptions, the one place a run's judge options
// come from.
func applyKeepTruncated(keep bool, runs ...*store.Reader) {
	for _, r := range runs {
		r.Run.KeepTruncated = r.Run.KeepTruncated || keep
	}
}
