package runs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"time"

	"github.com/toolgrade/toolgrade/internal/cost"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/runner"
	"github.com/toolgrade/toolgrade/internal/store"
	"github.com/toolgrade/toolgrade/internal/suite"
)

// Ending is how one session of a run ended: what Finish records in
// run.json.
type Ending struct {
	// Err is what stopped the runner; nil: every trial ran.
	Err error
	// End is when the session ended; zero: now.
	End time.Time
	// Models are the models the session ran, as runner.Run returned them.
	Models []record.Model
	// Restarts counts each server's restarts this session, by name.
	Restarts map[string]int
	// Saved counts the trials --stop-early skipped this session. Each
	// session counts every unrun trial of a settled case, those an earlier
	// session skipped too, so the largest count is recorded.
	Saved int
}

// FinishOptions are what Finish writes and judges besides run.json; the
// zero value writes no report and judges no gate.
type FinishOptions struct {
	// Reporter writes the reports and judges the gates; nil: neither.
	Reporter Reporter
	// JUnit is the file the JUnit XML report goes to; "": none.
	JUnit string
	// Suite is the suite as run, whose gates are judged.
	Suite *suite.Suite
	// Stderr gets warnings and what to do next; nil: io.Discard.
	Stderr io.Writer
}

// Finish records how the run of w ended in run.json (its status, error,
// end, models, restarts and savings), writes the reports and the JUnit file
// (however it ended: they say when it is partial), judges the gates of a
// run that ended without error, and returns the error that decides the exit
// status, with what the user can do about it on stderr. When the disk that
// stopped the run also refuses run.json or a report, those errors are
// warnings: the one printed last is the cause. A nil e is a session that
// ran every trial; a nil o, the zero FinishOptions.
func Finish(ctx context.Context, w *store.Writer, e *Ending, o *FinishOptions) error {
	if e == nil {
		e = &Ending{}
	}
	if o == nil {
		o = &FinishOptions{}
	}
	stderr := o.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	err := finishRun(ctx, w, e, o.Reporter, stderr)
	if o.JUnit != "" && o.Reporter != nil {
		// CI reads the file however the run ended; run.status in it says
		// whether it is partial.
		if jerr := o.Reporter.JUnit(w.Reader(), o.JUnit); jerr != nil {
			if err != nil {
				fmt.Fprintf(stderr, "toolgrade: warning: %v\n", jerr)
			} else {
				err = jerr
			}
		}
	}
	if err != nil || o.Reporter == nil {
		return err
	}
	NextSteps(stderr, w.Reader())
	return o.Reporter.Gates(ctx, w.Reader(), o.Suite)
}

// finishRun records the ending, writes the reports and returns the error
// that stopped the run.
func finishRun(ctx context.Context, w *store.Writer, e *Ending, rep Reporter, stderr io.Writer) error {
	runErr := e.Err
	status, errText := endStatus(ctx, runErr)
	warn := func(err error) error {
		if runErr == nil {
			return err
		}
		fmt.Fprintf(stderr, "toolgrade: warning: %v\n", err)
		return nil
	}
	costs := measure(w, stderr)
	if err := w.Update(func(r *record.Run) {
		e.record(r)
		costs.Record(r)
		r.Status, r.Error = status, errText
	}); err != nil {
		if err := warn(err); err != nil {
			return err
		}
	}
	if rep != nil {
		// After Ctrl-C too: the reports say the run is partial.
		if err := WriteReports(w.Reader(), rep, warn, stderr); err != nil {
			// Every trial ran, but a run whose summary and reports are
			// missing is not complete: run.json says why.
			uerr := w.Update(func(r *record.Run) {
				r.Status, r.Error = store.StatusFailed, "the reports could not be written: "+err.Error()
			})
			return errors.Join(err, uerr)
		}
	}
	return stopError(ctx, w.Dir(), runErr, stderr)
}

// record writes the ending into run.json's r.
func (e *Ending) record(r *record.Run) {
	r.AddRestarts(e.Restarts)
	r.Models = store.MergeModels(r.Models, e.Models)
	r.End = e.End
	if r.End.IsZero() {
		r.End = time.Now()
	}
	if r.StopEarly != nil {
		r.StopEarly.TrialsSaved = max(r.StopEarly.TrialsSaved, e.Saved)
	}
}

// endStatus is run.json's status and error for a run stopped by runErr.
func endStatus(ctx context.Context, runErr error) (status, text string) {
	var down *runner.OllamaDownError
	switch {
	case runErr == nil:
		return store.StatusComplete, ""
	case ctx.Err() != nil:
		return store.StatusInterrupted, ""
	case errors.As(runErr, &down):
		// Nothing is wrong with what ran: a resume finishes it.
		return store.StatusInterrupted, runErr.Error()
	}
	return store.StatusFailed, runErr.Error()
}

// stopError is the error a run stopped by runErr ends with, after telling
// stderr how to finish it when a resume can.
func stopError(ctx context.Context, dir string, runErr error, stderr io.Writer) error {
	var (
		down *runner.OllamaDownError
		pe   *fs.PathError
	)
	switch {
	case runErr == nil:
		return nil
	case ctx.Err() != nil:
		fmt.Fprintf(stderr, "toolgrade: interrupted; what finished is in %s: `toolgrade run --resume %s` finishes it\n", dir, dir)
		return ctx.Err()
	case errors.As(runErr, &down):
		fmt.Fprintf(stderr, "toolgrade: stopped; what finished is in %s: `toolgrade run --resume %s` finishes it once Ollama answers\n", dir, dir)
		return AsInfra(runErr)
	case errors.As(runErr, &pe):
		// The run's own files failed (disk full, read-only): not Ollama's
		// nor a server's fault.
		return runErr
	}
	return AsInfra(runErr)
}

// measure tallies what each model's trials cost (see package cost), over
// every session of the run, for run.json. A trials file that cannot be read
// leaves the costs as they were, with a warning: the reports will say why.
func measure(w *store.Writer, stderr io.Writer) *cost.Run {
	costs := cost.NewRun()
	if _, err := w.Reader().Trials(costs.Add); err != nil {
		fmt.Fprintf(stderr, "toolgrade: warning: measuring the models' cost: %v\n", err)
		return cost.NewRun()
	}
	return costs
}
