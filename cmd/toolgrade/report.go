package main

import (
	"context"
	"io"

	"github.com/toolgrade/toolgrade/internal/cli"
	"github.com/toolgrade/toolgrade/internal/report"
	"github.com/toolgrade/toolgrade/internal/runs"
	"github.com/toolgrade/toolgrade/internal/store"
	"github.com/toolgrade/toolgrade/internal/summary"
)

// keepTruncatedUsage is the one help text of --keep-truncated.
const keepTruncatedUsage = "count the trials whose prompt reached num_ctx in the rates (by default they are kept out, counted apart, since the model may never have seen its tools)"

// reportFormats are --format's values, in the order usage lists them.
var reportFormats = []string{"terminal", "json", "markdown", "junit", "html"}

func runReport(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("report", "DIR | SHARD_DIR...", stderr)
	format := fs.String("format", "terminal", "the report's `FORMAT`: terminal, json (summary.json), markdown, junit or html")
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
	if !knownFormat(*format) {
		return cli.Usagef("report: --format %q: want one of terminal, json, markdown, junit, html", *format)
	}
	run, err := openRuns("report", pos, stderr)
	if err != nil {
		return err
	}
	applyKeepTruncated(*keepTruncated, run)
	if err := runs.WriteOutput(*outPath, stdout, func(w io.Writer) error {
		return writeReport(run, *format, w, stderr)
	}); err != nil {
		return err
	}
	// Only --gate: the suite's gates are run's, so re-rendering a report
	// never starts failing a build.
	return gf.judgeRun(ctx, run, nil, gateOn, nil, stderr)
}

func knownFormat(f string) bool {
	for _, k := range reportFormats {
		if f == k {
			return true
		}
	}
	return false
}

// writeReport writes the run's report in one format to w: the one switch
// over --format. Every format is computed from the run directory alone.
func writeReport(run *store.Reader, format string, w, stderr io.Writer) error {
	switch format {
	case "terminal":
		_, err := runs.WriteReports(run, w, stderr)
		return err
	case "json":
		sum, err := runs.Summarize(run, stderr)
		if err != nil {
			return err
		}
		return summary.WriteJSON(w, sum)
	case "markdown":
		sum, err := runs.Summarize(run, stderr)
		if err != nil {
			return err
		}
		return report.WriteMarkdown(w, sum, runs.MarkdownOptions(run))
	case "junit":
		return runs.WriteJUnit(run, w, stderr)
	case "html":
		return runs.WriteHTMLReport(run, "-", w, stderr)
	}
	return cli.Usagef("report: --format %q: want one of terminal, json, markdown, junit, html", format)
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
