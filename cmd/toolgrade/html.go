package main

import (
	"io"

	"github.com/toolgrade/toolgrade/internal/compare"
	"github.com/toolgrade/toolgrade/internal/store"
	"github.com/toolgrade/toolgrade/reports"
)

// htmlReportFile is the HTML report `run` leaves in the run directory.
const htmlReportFile = "report.html"

// writeHTMLReport writes the run's HTML report to path ("-" is stdout),
// through a temporary file renamed into place so a reader never sees half a
// page; bad trial lines are reported on warn. A run with variants shows each
// variant paired with the base.
func writeHTMLReport(run *store.Reader, path string, stdout, warn io.Writer) error {
	h := reports.NewHTML(run.Run, &reports.HTMLOptions{Status: run.Run.Status, Comparisons: variantComparisons(run)})
	defer h.Close()
	if err := eachTrial(run, warn, h.Add); err != nil {
		return err
	}
	if path == "-" {
		path = ""
	}
	return writeOutput(path, stdout, h.Write)
}

// variantComparisons pairs every variant of the run with the base; nil
// when the run has none. A variant that cannot be compared (no trials yet,
// in a partial run) is left out of the page rather than failing it.
func variantComparisons(run *store.Reader) []*compare.Comparison {
	var out []*compare.Comparison
	for _, c := range run.Run.Catalogs {
		if c.Variant == "" {
			continue
		}
		// Judged as the run's other reports are (judgeOptions): compare
		// reads the run's options itself.
		cmp, _, err := compare.Variants(run, "base", c.Variant, nil)
		if err == nil {
			out = append(out, cmp)
		}
	}
	return out
}
