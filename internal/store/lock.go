package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/toolgrade/toolgrade/internal/record"
)

// LockFile is the file in a run directory that its one writer holds locked.
const LockFile = "lock"

// Lock is the exclusive hold of one process on a run directory: two writers
// of one trials file would duplicate its trials. The kernel releases it when
// the process ends, even on kill -9.
type Lock struct{ f *os.File }

// BusyError is a run directory another process holds.
type BusyError struct {
	Dir string
	PID int // zero when the holder wrote none
}

func (e *BusyError) Error() string {
	holder := "another process"
	if e.PID > 0 {
		holder = "process " + strconv.Itoa(e.PID)
	}
	return fmt.Sprintf("run directory %s is in use by %s (it holds %s); wait for it to end, or stop it",
		e.Dir, holder, filepath.Join(e.Dir, LockFile))
}

// LockDir takes the lock of run directory dir, which must exist, and writes
// this process's PID into the lock file. It fails with a *BusyError when
// another process holds it.
func LockDir(dir string) (*Lock, error) {
	p := filepath.Join(dir, LockFile)
	// Not O_TRUNC: the holder's PID must survive a loser's open.
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	ok, err := tryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", p, err)
	}
	if !ok {
		b, _ := os.ReadFile(p)
		f.Close()
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		return nil, &BusyError{Dir: dir, PID: pid}
	}
	if err := f.Truncate(0); err == nil {
		_, err = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("writing %s: %w", p, err)
	}
	return &Lock{f: f}, nil
}

// Unlock releases the lock. The file stays: removing it would let a process
// that opened it before the removal lock a file nobody else sees.
func (l *Lock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

// CheckFresh refuses a fresh run into dir when it already holds files (a
// missing directory is fresh; the lock file does not count), with a
// *NotEmptyError whose HasRun says whether they are a run: appending to an
// old trials file would mix two runs.
func CheckFresh(dir string) error {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var names []string
	hasRun := false
	for _, e := range ents {
		if e.Name() != LockFile {
			names = append(names, e.Name())
		}
		hasRun = hasRun || e.Name() == record.RunFile
	}
	if len(names) == 0 {
		return nil
	}
	if len(names) > 3 {
		names = append(names[:3], "...")
	}
	return &NotEmptyError{Dir: dir, Names: names, HasRun: hasRun}
}

// NotEmptyError is a fresh run's directory that already holds files.
type NotEmptyError struct {
	Dir   string
	Names []string // the first few entries
	// HasRun is set when the directory holds a run.json: a run to resume
	// rather than a stray folder.
	HasRun bool
}

func (e *NotEmptyError) Error() string {
	return fmt.Sprintf("%s is not empty (%s)", e.Dir, strings.Join(e.Names, ", "))
}

// WriterGone reports whether the writer that holds run directory dir's
// lock is gone: the lock file names a process that no longer exists (it
// was killed, or its machine rebooted). A run.json that still says running
// then describes a run nobody will finish. False when the lock names no
// process (none was written, or this system cannot tell), or when its
// process lives.
func WriterGone(dir string) (pid int, gone bool) {
	b, err := os.ReadFile(filepath.Join(dir, LockFile))
	if err != nil {
		return 0, false
	}
	pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0, false
	}
	return pid, processGone(pid)
}
