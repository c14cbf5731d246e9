package runs

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
	"github.com/toolgrade/toolgrade/reports"
)

// The report files a run leaves in its directory, and the summary they are
// made of: written at the run's finish, and by report, merge and rescore.

func MarkdownOptions(run *store.Reader) *reports.MarkdownOptions {
	return &reports.MarkdownOptions{Run: run.Dir, Status: run.Run.Status}
}

// WriteOutput runs write on stdout when path is "", and otherwise writes
// path atomically (record.WriteAtomicWith), so a reader of path never sees
// half a report and a failed report leaves the old one in place.
func WriteOutput(path string, stdout io.Writer, write func(io.Writer) error) error {
	if path == "" {
		return write(stdout)
	}
	return record.WriteAtomicWith(path, write)
}

// JudgeOptions are the options the trials of runs read together are judged
// with: as their run.json recorded them (record.JudgeOptionsOf), so the
// sides of a comparison are judged alike.
func JudgeOptions(runs ...*store.Reader) record.JudgeOptions {
	rs := make([]*record.Run, len(runs))
	for i, r := range runs {
		rs[i] = r.Run
	}
	return record.JudgeOptionsOf(rs...)
}

// Summarize reads a run's trials into its summary, judged as the run says,
// warning about bad lines on stderr.
func Summarize(run *store.Reader, stderr io.Writer) (*summary.Summary, error) {
	s := NewSummarizing(run, JudgeOptions(run))
	// The summary is verdicts and numbers: the trials are read slim, as
	// compare's are, so a gate on a large run does not decode every
	// transcript.
	add := func(t *record.Trial) { s.Add(t, record.JudgeWith(t, s.judge)) }
	if err := eachSlimTrial(run, stderr, s.Reset, add); err != nil {
		return nil, err
	}
	return s.Summary(), nil
}

// Summarizing is Summarize over a read of the run its caller makes and
// gives it (a compare.Sink: compare's gates summarize the current run,
// judged as the comparison judged it, from the comparison's own read).
type Summarizing struct {
	run   *store.Reader
	judge record.JudgeOptions
	sum   *summary.Summarizer
}

// NewSummarizing summarizes run's trials judged with judge.
func NewSummarizing(run *store.Reader, judge record.JudgeOptions) *Summarizing {
	s := &Summarizing{run: run, judge: judge}
	s.Reset()
	return s
}

// Reset forgets every trial given: the read started over.
func (s *Summarizing) Reset() {
	s.sum = summary.NewSummarizer(s.run.Run.Suite.Name, s.run.Run.Models)
	s.sum.Judge = s.judge
}

// Add counts t, a trial key's last line, slim, judged j (as
// record.JudgeWith judges it with the options s was made with).
func (s *Summarizing) Add(t *record.Trial, j record.Judgements) { s.sum.AddJudged(t, j) }

// Summary is the summary of the trials given.
func (s *Summarizing) Summary() *summary.Summary { return s.sum.Summary().WithRun(s.run.Run) }

// WriteReports writes the run's summary.json and the terminal report to
// stdout, and returns the summary.
func WriteReports(run *store.Reader, stdout, stderr io.Writer) (*summary.Summary, error) {
	sum, err := Summarize(run, stderr)
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

// WriteMarkdownReports writes the run's report.md and, when the environment
// names a GitHub step summary file (GITHUB_STEP_SUMMARY), appends the same
// report to it, as CI tools in GitHub's ecosystem do: several runs in one
// job each add theirs. A step summary that cannot be written is a warning on
// stderr: the run's own files are what failed runs are judged by.
func WriteMarkdownReports(run *store.Reader, sum *summary.Summary, stderr io.Writer) error {
	opts := MarkdownOptions(run)
	if err := WriteOutput(filepath.Join(run.Dir, record.MarkdownFile), nil, func(w io.Writer) error {
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

// HTMLReportFile is the HTML report `run` leaves in the run directory.
const HTMLReportFile = "report.html"

// WriteHTMLReport writes the run's HTML report to path ("-" is stdout),
// through a temporary file renamed into place so a reader never sees half a
// page; bad trial lines are reported on warn. A run with variants shows each
// variant paired with the base.
func WriteHTMLReport(run *store.Reader, path string, stdout, warn io.Writer) error {
	h := reports.NewHTML(run.Run, &reports.HTMLOptions{Status: run.Run.Status, Comparisons: variantComparisons(run)})
	defer h.Close()
	if err := EachTrial(run, warn, h.Add); err != nil {
		return err
	}
	if path == "-" {
		path = ""
	}
	return WriteOutput(path, stdout, h.Write)
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
		// Judged as the run's other reports are (JudgeOptions): compare
		// reads the run's options itself.
		cmp, _, err := compare.Variants(run, "base", c.Variant, nil)
		if err == nil {
			out = append(out, cmp)
		}
	}
	return out
}

// WriteJUnit writes the run's JUnit XML to w, read from the run directory
// alone as every report is, warning about bad lines on stderr.
func WriteJUnit(run *store.Reader, w io.Writer, stderr io.Writer) error {
	j := reports.NewJUnit(run.Run, nil)
	if err := EachTrial(run, stderr, j.Add); err != nil {
		return err
	}
	return j.Write(w)
}

// WriteJUnitFile writes the run's JUnit XML to path, whole or not at all.
func WriteJUnitFile(run *store.Reader, path string, stderr io.Writer) error {
	var b bytes.Buffer
	if err := WriteJUnit(run, &b, stderr); err != nil {
		return err
	}
	return record.WriteAtomic(path, b.Bytes())
}
