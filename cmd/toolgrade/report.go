package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/store"
	"github.com/toolgrade/toolgrade/internal/summary"
	"github.com/toolgrade/toolgrade/reports"
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
		return usageErrorf("report: give a run directory, or the shard directories of one run")
	}
	if *asJSON {
		if *format != "terminal" && *format != "json" {
			return usageErrorf("report: --json is --format json; it cannot go with --format %s", *format)
		}
		*format = "json"
	}
	if !knownFormat(*format) {
		return usageErrorf("report: --format %q: want one of terminal, json, markdown, junit, html", *format)
	}
	run, err := openRuns("report", pos, stderr)
	if err != nil {
		return err
	}
	applyKeepTruncated(*keepTruncated, run)
	if err := writeOutput(*outPath, stdout, func(w io.Writer) error {
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
		_, err := writeReports(run, w, stderr)
		return err
	case "json":
		sum, err := summarize(run, stderr)
		if err != nil {
			return err
		}
		return summary.WriteJSON(w, sum)
	case "markdown":
		sum, err := summarize(run, stderr)
		if err != nil {
			return err
		}
		return reports.WriteMarkdown(w, sum, markdownOptions(run))
	case "junit":
		return writeJUnit(run, w, stderr)
	case "html":
		return writeHTMLReport(run, "-", w, stderr)
	}
	return usageErrorf("report: --format %q: want one of terminal, json, markdown, junit, html", format)
}

func markdownOptions(run *store.Reader) *reports.MarkdownOptions {
	return &reports.MarkdownOptions{Run: run.Dir, Status: run.Run.Status}
}

// writeOutput runs write on stdout when path is "", and otherwise on a
// temporary file beside path that replaces path only once write succeeded,
// so a reader of path never sees half a report and a failed report leaves
// the old one in place.
func writeOutput(path string, stdout io.Writer, write func(io.Writer) error) error {
	if path == "" {
		return write(stdout)
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	err = write(f)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("writing %s: %w", path, cerr)
	}
	if err == nil {
		// CreateTemp makes the file 0600; a report is for others to read.
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}

// applyKeepTruncated applies --keep-truncated (keep) to the runs a command read,
// for that command only: run.json is read, never written, here. Every
// reader of a run (its summary, HTML, JUnit, comparisons, gates, show) then
// judges its trials with judgeOptions, the one place a run's judge options
// come from.
func applyKeepTruncated(keep bool, runs ...*store.Reader) {
	for _, r := range runs {
		r.Run.KeepTruncated = r.Run.KeepTruncated || keep
	}
}

// judgeOptions are the options the trials of runs read together are judged
// with: as their run.json recorded them (record.JudgeOptionsOf), so the
// sides of a comparison are judged alike.
func judgeOptions(runs ...*store.Reader) record.JudgeOptions {
	rs := make([]*record.Run, len(runs))
	for i, r := range runs {
		rs[i] = r.Run
	}
	return record.JudgeOptionsOf(rs...)
}

// summarize reads a run's trials into its summary, judged as the run says,
// warning about bad lines on stderr.
func summarize(run *store.Reader, stderr io.Writer) (*summary.Summary, error) {
	return summarizeWith(run, judgeOptions(run), stderr)
}

// summarizeWith is summarize judging with judge: a comparison's gates judge
// its current side as the comparison judged it.
func summarizeWith(run *store.Reader, judge record.JudgeOptions, stderr io.Writer) (*summary.Summary, error) {
	sum := summary.NewSummarizer(run.Run.Suite.Name, run.Run.Models)
	sum.Judge = judge
	if err := eachTrial(run, stderr, sum.Add); err != nil {
		return nil, err
	}
	return sum.Summary().WithRun(run.Run), nil
}

// writeReports writes the run's summary.json and the terminal report to
// stdout, and returns the summary.
func writeReports(run *store.Reader, stdout, stderr io.Writer) (*summary.Summary, error) {
	sum, err := summarize(run, stderr)
	if err != nil {
		return nil, err
	}
	// Shards read as one have no directory of their own: nothing is
	// written beside them.
	if !run.Joined() {
		if err := store.WriteSummary(run.Dir, sum); err != nil {
			return nil, err
		}
	}
	if run.Run.Status != store.StatusComplete {
		fmt.Fprintf(stdout, "Run %s (%s): partial results.\n", run.Dir, run.Run.Status)
	}
	return sum, reports.WriteTerminal(stdout, sum)
}

// writeMarkdownReports writes the run's report.md and, when the environment
// names a GitHub step summary file (GITHUB_STEP_SUMMARY), appends the same
// report to it, as CI tools in GitHub's ecosystem do: several runs in one
// job each add theirs. A step summary that cannot be written is a warning on
// stderr: the run's own files are what failed runs are judged by.
func writeMarkdownReports(run *store.Reader, sum *summary.Summary, stderr io.Writer) error {
	opts := markdownOptions(run)
	if err := writeOutput(filepath.Join(run.Dir, record.MarkdownFile), nil, func(w io.Writer) error {
		return reports.WriteMarkdown(w, sum, opts)
	}); err != nil {
		return err
	}
	path := os.Getenv("GITHUB_STEP_SUMMARY")
	if path == "" {
		return nil
	}
	if err := appendStepSummary(path, sum, opts); err != nil {
		fmt.Fprintf(stderr, "toolgrade: warning: GITHUB_STEP_SUMMARY: %v\n", err)
	}
	return nil
}

// appendStepSummary appends the Markdown report to the file at path. The
// report goes in one write, so with O_APPEND two runs of one job that end
// together do not interleave their reports.
func appendStepSummary(path string, sum *summary.Summary, opts *reports.MarkdownOptions) error {
	var b bytes.Buffer
	if err := reports.WriteMarkdown(&b, sum, opts); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(b.Bytes())
	return errors.Join(err, f.Close())
}
