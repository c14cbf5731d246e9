package store

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/summary"
)

// Run statuses, as run.json's status holds them: running from Create or
// Resume until the run ends.
const (
	StatusRunning     = "running"
	StatusComplete    = "complete"
	StatusInterrupted = "interrupted"
	StatusFailed      = "failed"
)

// Writer is the one writer of a run directory: from Create or Resume to Close
// it holds the directory's lock, appends trials to trials.jsonl and keeps
// run.json up to date. Trials, Update and AddModels are safe for concurrent
// use (the runner reports models while trials are written).
type Writer struct {
	dir    string
	lock   *Lock
	file   *os.File
	trials *record.Writer

	mu  sync.Mutex // guards run and its writing
	run *record.Run
}

// Create starts a fresh run in dir: it refuses a directory that holds files
// (a *NotEmptyError), creates it, locks it (a *BusyError when another
// process holds it), writes run as its run.json with status running,
// and opens trials.jsonl for appending. The Writer keeps run: change it
// through Update.
func Create(dir string, run *record.Run) (*Writer, error) {
	if err := CheckFresh(dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	lock, err := LockDir(dir)
	if err != nil {
		return nil, err
	}
	// Checked again under the lock: another run may have begun here since.
	if err := CheckFresh(dir); err != nil {
		lock.Unlock()
		return nil, err
	}
	run.Status, run.Error, run.End = StatusRunning, "", time.Time{}
	w := &Writer{dir: dir, lock: lock, run: run}
	if err := record.WriteRun(dir, run); err != nil {
		w.Close()
		return nil, err
	}
	if err := w.openTrials(); err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

// ResumeOptions tune Resume.
type ResumeOptions struct {
	// RerunInfra leaves the trials whose last line is an infra_error out of
	// the done set, so the resume runs them again and their new line
	// supersedes the old one. False: every recorded trial is done.
	RerunInfra bool
}

// Resume takes over the run in dir to finish it: it reads run.json, locks
// the directory (a *BusyError when another process holds it), cuts off a
// trials line a killed writer left half-written, and returns the set of
// trials already done. A run.json it cannot read is a *NotRunError. The
// Writer's run is marked running again, its error and end cleared, but
// nothing is written until Update: a resume that CheckResume refuses leaves
// run.json as it was.
func Resume(dir string, opts ResumeOptions) (*Writer, map[record.TrialKey]bool, error) {
	// Read before locking, so a folder that holds no run gets no lock file.
	if _, err := record.ReadRun(dir); err != nil {
		return nil, nil, &NotRunError{Dir: dir, Err: err}
	}
	lock, err := LockDir(dir)
	if err != nil {
		return nil, nil, err
	}
	w := &Writer{dir: dir, lock: lock}
	// Read again under the lock: the writer that held it may have ended the
	// run since.
	if w.run, err = record.ReadRun(dir); err != nil {
		w.Close()
		return nil, nil, &NotRunError{Dir: dir, Err: err}
	}
	done, err := trialsDone(dir, opts.RerunInfra)
	if err != nil {
		w.Close()
		return nil, nil, err
	}
	if err := w.openTrials(); err != nil {
		w.Close()
		return nil, nil, err
	}
	w.run.Status, w.run.Error, w.run.End = StatusRunning, "", time.Time{}
	return w, done, nil
}

// NotRunError is a directory Resume cannot take as a run: its run.json is
// missing, unreadable, or of a newer format.
type NotRunError struct {
	Dir string
	Err error
}

// Error says what the folder is when it holds no run.json at all (most
// often a mistyped directory), else why its run.json could not be read.
func (e *NotRunError) Error() string {
	if !errors.Is(e.Err, os.ErrNotExist) {
		return e.Err.Error()
	}
	if _, err := os.Stat(e.Dir); errors.Is(err, os.ErrNotExist) {
		return fmt.Sprintf("%s: no such directory", e.Dir)
	}
	return fmt.Sprintf("%s is not a run directory: it holds no %s (`toolgrade run --out DIR` writes one)", e.Dir, record.RunFile)
}
func (e *NotRunError) Unwrap() error { return e.Err }

// trialsDone reads the trials a run already has, after cutting off a line a
// killed run left half-written. A locked directory has no writer adding
// trials meanwhile.
func trialsDone(dir string, rerunInfra bool) (map[record.TrialKey]bool, error) {
	if _, err := record.TrimPartial(filepath.Join(dir, record.TrialsFile)); err != nil {
		return nil, err
	}
	done := map[record.TrialKey]bool{}
	_, err := ReadTrials(dir, func(t *record.Trial) {
		if !rerunInfra || t.Score.Outcome != record.OutcomeInfraError {
			done[t.Key()] = true
		}
	})
	return done, err
}

func (w *Writer) openTrials() error {
	f, err := os.OpenFile(filepath.Join(w.dir, record.TrialsFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	w.file, w.trials = f, record.NewWriter(f)
	return nil
}

// Dir is the run directory.
func (w *Writer) Dir() string { return w.dir }

// Run is the run.json the writer keeps. Read it; change it through Update,
// which writes it.
func (w *Writer) Run() *record.Run { return w.run }

// Trials appends trials to trials.jsonl, one line each, written through.
func (w *Writer) Trials() *record.Writer { return w.trials }

// Reader reads the run as it stands, as Open would.
func (w *Writer) Reader() *Reader { return &Reader{Dir: w.dir, Run: w.run} }

// Update changes the run with fn and writes run.json atomically.
func (w *Writer) Update(fn func(*record.Run)) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	fn(w.run)
	return record.WriteRun(w.dir, w.run)
}

// AddModels records models in run.json: a model already listed is replaced
// (its load time or digest checked again), a new one appended.
func (w *Writer) AddModels(models ...record.Model) error {
	return w.Update(func(r *record.Run) { r.Models = MergeModels(r.Models, models) })
}

// Close closes trials.jsonl and releases the lock. It may be called more
// than once; a nil Writer is closed.
func (w *Writer) Close() error {
	if w == nil {
		return nil
	}
	var err error
	if w.file != nil {
		err = w.file.Close()
		w.file = nil
	}
	return errors.Join(err, w.lock.Unlock())
}

// WriteSummary writes s as dir's summary.json (summary.WriteJSON),
// atomically: a report rebuilt while a run ends never reads half of it. It
// takes no lock, so `report` can rewrite the summary of a run it only reads.
func WriteSummary(dir string, s *summary.Summary) error {
	var b bytes.Buffer
	if err := summary.WriteJSON(&b, s); err != nil {
		return err
	}
	return record.WriteAtomic(filepath.Join(dir, record.SummaryFile), b.Bytes())
}

// Current is what a resumed run runs with now, for CheckResume; a zero field
// is not checked, so each can be checked as soon as it is known.
type Current struct {
	// SuiteHash is the suite file's hash now.
	SuiteHash string
	// CatalogHash is the hash of the tools the servers offer now.
	CatalogHash string
	// Models are the models as Ollama describes them now.
	Models []record.Model
}
