// Package store owns a run directory end to end: creating, locking,
// appending to, resuming, reading and finishing it. Every command that reads
// or writes runs goes through it, so the rules of the format (one writer, the
// last line of a trial key wins, format versions) live in one place.
package store

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/toolgrade/toolgrade/internal/record"
)

// Reader reads a finished or running run directory without writing to it.
type Reader struct {
	// Dir is the run directory.
	Dir string
	// Run is its run.json.
	Run *record.Run

	joined []*record.Trial // Join's trials; nil for a directory
}

// Joined reports whether r is several shard directories read as one by
// Join: it has no directory of its own to write reports into.
func (r *Reader) Joined() bool { return r.joined != nil }

// Open reads dir's run.json. It takes no lock: a run may be read while it
// is being written. A run.json that says running whose writer is gone (see
// WriterGone) reads as interrupted, with Error saying so. A run.json of a newer major format is refused with a
// *record.FormatError; a folder without one is a *NotRunError.
func Open(dir string) (*Reader, error) {
	meta, err := record.ReadRun(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, &NotRunError{Dir: dir, Err: err}
	}
	if err != nil {
		return nil, err
	}
	if meta.Status == StatusRunning {
		// A writer killed before it could say so leaves run.json
		// running: every reader shows such a run as interrupted.
		if pid, gone := WriterGone(dir); gone {
			meta.Status = StatusInterrupted
			if meta.Error == "" {
				meta.Error = fmt.Sprintf("its writer (process %d) ended without finishing it; `toolgrade run --resume %s` finishes it", pid, dir)
			}
		}
	}
	return &Reader{Dir: dir, Run: meta}, nil
}

// Trials calls fn for every trial of the run, once per trial key (its last
// line), in file order, and returns the lines it could not read. A run with
// no trials file yet has no trials. A line of a newer major format stops the
// reading with an error naming the file and line (a *record.FormatError
// inside a *record.SyntaxError).
func (r *Reader) Trials(fn func(*record.Trial)) ([]*record.SyntaxError, error) {
	if r.joined != nil {
		for _, t := range r.joined {
			fn(t)
		}
		return nil, nil
	}
	return ReadTrials(r.Dir, fn)
}

// SlimTrials is Trials for readers of verdicts and numbers (compare,
// choose, gates): each trial comes without its transcript's bulk (no
// messages, requests, response text or calls, tool arguments or results;
// see record.ReadLastSlim), which is most of the time a read takes. The
// trials of a joined run come whole.
//
// With reset set the read may go in one pass, calling reset should it have
// to start over (record.ReadLastSlim): fn's reader then forgets what it was
// given. fn may not keep a trial past the call (record.ReadLastSlim).
func (r *Reader) SlimTrials(reset func(), fn func(*record.Trial)) ([]*record.SyntaxError, error) {
	if r.joined != nil {
		return r.Trials(fn)
	}
	f, size, err := openTrials(filepath.Join(r.Dir, record.TrialsFile))
	if f == nil || err != nil {
		return nil, err
	}
	defer f.Close()
	path := filepath.Join(r.Dir, record.TrialsFile)
	return record.ReadLastSlim(io.NewSectionReader(f, 0, size), path, reset, fn)
}

// SlimTrialsKept is SlimTrials in one pass for readers that need little of
// each trial (see record.ReadLastKept): keep makes of each slim trial what
// is held, and fn gets the values of each key's last line.
func SlimTrialsKept[T any](r *Reader, keep func(*record.Trial) T, fn func(T)) ([]*record.SyntaxError, error) {
	if r.joined != nil {
		return r.Trials(func(t *record.Trial) { fn(keep(t)) })
	}
	path := filepath.Join(r.Dir, record.TrialsFile)
	f, size, err := openTrials(path)
	if f == nil || err != nil {
		return nil, err
	}
	defer f.Close()
	return record.ReadLastKept(io.NewSectionReader(f, 0, size), path, keep, fn)
}

// ReadTrials reads dir's trials file as Reader.Trials does.
func ReadTrials(dir string, fn func(*record.Trial)) ([]*record.SyntaxError, error) {
	return ReadTrialsFile(filepath.Join(dir, record.TrialsFile), fn)
}

// ReadTrialsFile reads one trials file, whatever its name, as Reader.Trials
// reads a run's: the last line of each trial key, in file order. A missing
// file holds no trials.
func ReadTrialsFile(path string, fn func(*record.Trial)) ([]*record.SyntaxError, error) {
	f, size, err := openTrials(path)
	if f == nil || err != nil {
		return nil, err
	}
	defer f.Close()
	return record.ReadLast(io.NewSectionReader(f, 0, size), path, fn)
}

// openTrials opens a trials file and says how much of it to read: only what
// it held when opened, so a writer's new lines are not half-read, and a
// device in its place (/dev/full) does not read as endless zeros. A missing
// file is a nil file and no error.
func openTrials(path string) (*os.File, int64, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, st.Size(), nil
}

// Warn prints reading warnings as every command shows them.
func Warn(w io.Writer, warnings []*record.SyntaxError) {
	for _, s := range warnings {
		fmt.Fprintf(w, "toolgrade: warning: %v (line skipped)\n", s)
	}
}
