package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"

	"github.com/toolgrade/toolgrade/harness/record"
	"github.com/toolgrade/toolgrade/harness/store"
)

// checkFreshDir refuses a fresh run into a directory that already holds
// files: its trials would be appended to another run's.
func checkFreshDir(dir string) error {
	err := record.CheckEmpty(dir)
	var ne *record.NotEmptyError
	if errors.As(err, &ne) {
		if _, serr := os.Stat(filepath.Join(dir, record.RunFile)); serr == nil {
			return usageErrorf("run: %s already holds a run; use --resume %s to finish it, or another --out", dir, dir)
		}
		return usageErrorf("run: %v; a fresh run needs an empty or new --out folder", err)
	}
	return err
}

// lockRunDir makes this process the one writer of dir (created when fresh)
// for as long as the command runs. A fresh directory is checked again under
// the lock, since another run may have begun there since checkFreshDir.
func lockRunDir(dir string, fresh bool) (*record.Lock, error) {
	if fresh {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
	}
	lock, err := record.LockDir(dir)
	var busy *record.BusyError
	if errors.As(err, &busy) {
		return nil, asUsage(err)
	}
	if err != nil {
		return nil, err
	}
	if fresh {
		if err := checkFreshDir(dir); err != nil {
			lock.Unlock()
			return nil, err
		}
	}
	return lock, nil
}

// trialsDone reads the trials a run already has, after cutting off a line a
// killed run left half-written. With rerunInfra, a trial whose last line is
// an infra_error is not done: the resume runs it again and its new line
// supersedes the old one.
func trialsDone(dir string, rerunInfra bool) (map[record.TrialKey]bool, error) {
	path := filepath.Join(dir, record.TrialsFile)
	if _, err := record.TrimPartial(path); err != nil {
		return nil, err
	}
	done := map[record.TrialKey]bool{}
	err := readTrials(dir, io.Discard, func(t *record.Trial) {
		if !rerunInfra || t.Score.Outcome != record.OutcomeInfraError {
			done[t.Key()] = true
		}
	})
	return done, err
}

// readTrials reads dir's trials file, one trial per key (its last line),
// reporting bad lines on warn.
func readTrials(dir string, warn io.Writer, fn func(*record.Trial)) error {
	warnings, err := store.ReadTrials(dir, fn)
	store.Warn(warn, warnings)
	return err
}
