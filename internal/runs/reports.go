package runs

import (
	"io"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/store"
	"github.com/toolgrade/toolgrade/internal/summary"
)

// The summary a run's reports are made of, written as summary.json at the
// run's finish and by report, merge and rescore; the reports themselves are
// the Reporter's (internal/report's, given by the command), so this package
// links no renderer.

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
	if err := run.EachSlimTrial(stderr, s.Reset, add); err != nil {
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

// WriteSummary summarizes the run (Summarize) and writes its summary.json;
// shards read as one have no directory of their own, and nothing is
// written beside them.
func WriteSummary(run *store.Reader, stderr io.Writer) (*summary.Summary, error) {
	sum, err := Summarize(run, stderr)
	if err != nil {
		return nil, err
	}
	if !run.Joined() {
		if err := store.WriteSummary(run.Dir, sum); err != nil {
			return nil, err
		}
	}
	return sum, nil
}

// WriteReports writes the run's summary.json (WriteSummary) and hands the
// summary to rep, which writes the reports made of it; a summary that
// could not be made is given to failed first, and rep gets none. WriteReports
// stops with what failed returns when it is not nil: how a run's finish,
// and merge, write a run's reports.
func WriteReports(run *store.Reader, rep Reporter, failed func(error) error, stderr io.Writer) error {
	sum, err := WriteSummary(run, stderr)
	if err != nil {
		if err := failed(err); err != nil {
			return err
		}
	}
	return rep.Reports(run, sum, failed)
}
