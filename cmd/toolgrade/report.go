package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/toolgrade/toolgrade/harness/record"
	"github.com/toolgrade/toolgrade/harness/store"
	"github.com/toolgrade/toolgrade/reports"
	"io"
)

func runReport(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("report", "DIR", stderr)
	asJSON := fs.Bool("json", false, "print summary.json instead of the table")
	htmlOut := fs.String("html", "", "also write the self-contained HTML report (overview and transcript viewer) to `FILE`; - writes it to stdout instead of the table")
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
	run, err := store.Open(pos[0])
	if err != nil {
		return asUsage(fmt.Errorf("report: %w", err))
	}
	if *htmlOut == "-" {
		// The page alone on stdout; the summary's read warns about bad
		// lines once, as the table would.
		if _, err := summarize(run, stderr); err != nil {
			return err
		}
		if err := writeHTMLReport(run, "-", stdout); err != nil {
			return err
		}
	} else if *asJSON {
		sum, err := summarize(run, stderr)
		if err != nil {
			return err
		}
		if err := reports.WriteJSON(stdout, sum); err != nil {
			return err
		}
	} else if err := writeReports(run, stdout, stderr); err != nil {
		return err
	}
	if *htmlOut != "" && *htmlOut != "-" {
		if err := writeHTMLReport(run, *htmlOut, stdout); err != nil {
			return err
		}
	}
	// Only --gate: the suite's gates are run's, so re-rendering a report
	// never starts failing a build.
	return gf.judgeRun(ctx, run, nil, gateOn, nil, stderr)
}

// summarize reads a run's trials into its summary, warning about bad lines
// on stderr.
func summarize(run *store.Reader, stderr io.Writer) (*reports.Summary, error) {
	sum := reports.NewSummarizer(run.Run.Suite.Name, run.Run.Models)
	warnings, err := run.Trials(sum.Add)
	store.Warn(stderr, warnings)
	var fe *record.FormatError
	if errors.As(err, &fe) {
		return nil, asUsage(err) // written by a newer toolgrade
	}
	if err != nil {
		return nil, err
	}
	return sum.Summary().WithRestarts(run.Run.Servers), nil
}

// writeReports writes the run's summary.json and the terminal report to
// stdout.
func writeReports(run *store.Reader, stdout, stderr io.Writer) error {
	sum, err := summarize(run, stderr)
	if err != nil {
		return err
	}
	if err := store.WriteSummary(run.Dir, sum); err != nil {
		return err
	}
	if run.Run.Status != store.StatusComplete {
		fmt.Fprintf(stdout, "Run %s (%s): partial results.\n", run.Dir, run.Run.Status)
	}
	return reports.WriteTerminal(stdout, sum)
}
