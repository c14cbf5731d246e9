package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/toolgrade/toolgrade/harness/record"
	"github.com/toolgrade/toolgrade/reports"
)

func runReport(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("report", "DIR", stderr)
	asJSON := fs.Bool("json", false, "print summary.json instead of the table")
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
	if len(pos) != 1 {
		return usageErrorf("report: give one run directory")
	}
	meta, err := record.ReadRun(pos[0])
	if err != nil {
		return asUsage(fmt.Errorf("report: %w", err))
	}
	if *asJSON {
		sum, err := summarize(pos[0], meta, stderr)
		if err != nil {
			return err
		}
		if err := reports.WriteJSON(stdout, sum); err != nil {
			return err
		}
	} else if err := writeReports(pos[0], meta, stdout, stderr); err != nil {
		return err
	}
	// Only --gate: the suite's gates are run's, so re-rendering a report
	// never starts failing a build.
	return gf.judgeRun(ctx, pos[0], meta, nil, gateOn, nil, stderr)
}

// summarize reads a run's trials into its summary.
func summarize(dir string, meta *record.Run, stderr io.Writer) (*reports.Summary, error) {
	sum := reports.NewSummarizer(meta.Suite.Name, meta.Models)
	if err := readTrials(dir, stderr, sum.Add); err != nil {
		return nil, err
	}
	return sum.Summary().WithRestarts(meta.Servers), nil
}

// writeReports writes summary.json into dir and the terminal report to stdout.
func writeReports(dir string, meta *record.Run, stdout, stderr io.Writer) error {
	sum, err := summarize(dir, meta, stderr)
	if err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, record.SummaryFile))
	if err != nil {
		return err
	}
	if err := reports.WriteJSON(f, sum); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if meta.Status != "complete" {
		fmt.Fprintf(stdout, "Run %s (%s): partial results.\n", dir, meta.Status)
	}
	return reports.WriteTerminal(stdout, sum)
}
