package report

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/toolgrade/toolgrade/internal/compare"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/store"
	"github.com/toolgrade/toolgrade/internal/summary"
)

// The reports of a run directory: those a run leaves in it when it ends
// (RunFiles, the reporter cmd/toolgrade gives internal/runs), and those
// `toolgrade report` and `view` make from it again.

// RunFiles writes a run's reports where a run leaves them: the terminal
// report on Stdout, report.md (and the GitHub step summary), report.html;
// and the JUnit XML to the file the run names. It reads the run directory
// alone, and is the reporter internal/runs' Finish is given.
type RunFiles struct {
	// Stdout gets the terminal report; nil: io.Discard.
	Stdout io.Writer
	// Stderr gets the warnings of reading the trials and of a step summary
	// that could not be written; nil: io.Discard.
	Stderr io.Writer
}

func (f *RunFiles) stdout() io.Writer { return orDiscard(f.Stdout) }
func (f *RunFiles) stderr() io.Writer { return orDiscard(f.Stderr) }

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// Reports prints the terminal report of sum and writes report.md from it,
// then report.html from the trials. A nil sum is a summary that could not
// be made (its error already given to failed): only the HTML report is
// written. Each report that fails is given to failed, and Reports stops
// with what failed returns when it is not nil.
func (f *RunFiles) Reports(run *store.Reader, sum *summary.Summary, failed func(error) error) error {
	if sum != nil {
		err := WriteRunTerminal(f.stdout(), run, sum)
		if err == nil {
			err = f.markdown(run, sum)
		}
		if err != nil {
			if err := failed(err); err != nil {
				return err
			}
		}
	}
	path := filepath.Join(run.Dir, record.HTMLFile)
	if err := record.WriteAtomicWith(path, func(w io.Writer) error { return WriteRunHTML(w, run, io.Discard) }); err != nil {
		return failed(err)
	}
	return nil
}

// JUnit writes the run's JUnit XML to path, whole or not at all.
func (f *RunFiles) JUnit(run *store.Reader, path string) error {
	var b bytes.Buffer
	if err := WriteRunJUnit(&b, run, f.stderr()); err != nil {
		return err
	}
	return record.WriteAtomic(path, b.Bytes())
}

// markdown writes the run's report.md and, when the environment names a
// GitHub step summary file (GITHUB_STEP_SUMMARY), appends the same report
// to it, as CI tools in GitHub's ecosystem do: several runs in one job each
// add theirs. A step summary that cannot be written is a warning: the
// run's own files are what failed runs are judged by.
func (f *RunFiles) markdown(run *store.Reader, sum *summary.Summary) error {
	opts := RunMarkdownOptions(run)
	if err := record.WriteAtomicWith(filepath.Join(run.Dir, record.MarkdownFile), func(w io.Writer) error {
		return WriteMarkdown(w, sum, opts)
	}); err != nil {
		return err
	}
	path := os.Getenv("GITHUB_STEP_SUMMARY")
	if path == "" {
		return nil
	}
	if err := appendStepSummary(path, sum, opts); err != nil {
		fmt.Fprintf(f.stderr(), "toolgrade: warning: GITHUB_STEP_SUMMARY: %v\n", err)
	}
	return nil
}

// appendStepSummary appends the Markdown report to the file at path. The
// report goes in one write, so with O_APPEND two runs of one job that end
// together do not interleave their reports.
func appendStepSummary(path string, sum *summary.Summary, opts *MarkdownOptions) error {
	var b bytes.Buffer
	if err := WriteMarkdown(&b, sum, opts); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(b.Bytes())
	return errors.Join(err, f.Close())
}

// RunMarkdownOptions are the Markdown report's options for run: its
// directory and status.
func RunMarkdownOptions(run *store.Reader) *MarkdownOptions {
	return &MarkdownOptions{Run: run.Dir, Status: run.Run.Status}
}

// WriteRunTerminal writes the terminal report of run, whose summary is sum:
// a partial run says so first.
func WriteRunTerminal(w io.Writer, run *store.Reader, sum *summary.Summary) error {
	if run.Run.Status != store.StatusComplete {
		fmt.Fprintf(w, "Run %s (%s): partial results.\n", run.Dir, run.Run.Status)
	}
	return WriteTerminal(w, sum)
}

// WriteRunHTML writes the run's HTML report to w; bad trial lines are
// reported on warn. A run with variants shows each variant paired with the
// base.
func WriteRunHTML(w io.Writer, run *store.Reader, warn io.Writer) error {
	h := NewHTML(run.Run, &HTMLOptions{Status: run.Run.Status, Comparisons: variantComparisons(run)})
	defer h.Close()
	if err := run.EachTrial(warn, h.Add); err != nil {
		return err
	}
	return h.Write(w)
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
		// Judged as the run's other reports are: compare reads the run's
		// options itself.
		cmp, _, err := compare.Variants(run, "base", c.Variant, nil)
		if err == nil {
			out = append(out, cmp)
		}
	}
	return out
}

// WriteRunJUnit writes the run's JUnit XML to w, read from the run
// directory alone as every report is, warning about bad lines on warn.
func WriteRunJUnit(w io.Writer, run *store.Reader, warn io.Writer) error {
	j := NewJUnit(run.Run, nil)
	if err := run.EachTrial(warn, j.Add); err != nil {
		return err
	}
	return j.Write(w)
}
