package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/record"
)

func TestLockDirHasOneHolder(t *testing.T) {
	dir := t.TempDir()
	l, err := LockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	// flock locks belong to open files, so a second open in this process is
	// refused as another process would be.
	_, err = LockDir(dir)
	var busy *BusyError
	if !errors.As(err, &busy) || busy.PID != os.Getpid() ||
		!strings.Contains(err.Error(), fmt.Sprintf("in use by process %d", os.Getpid())) {
		t.Fatalf("second lock: %v", err)
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	l2, err := LockDir(dir)
	if err != nil {
		t.Fatalf("after unlock: %v", err)
	}
	l2.Unlock()
}

func TestCheckFresh(t *testing.T) {
	dir := t.TempDir()
	if err := CheckFresh(filepath.Join(dir, "missing")); err != nil {
		t.Error(err)
	}
	os.WriteFile(filepath.Join(dir, LockFile), nil, 0o644)
	if err := CheckFresh(dir); err != nil {
		t.Errorf("lock file only: %v", err)
	}
	os.WriteFile(filepath.Join(dir, record.TrialsFile), []byte("{}\n"), 0o644)
	if err := CheckFresh(dir); err == nil || !strings.Contains(err.Error(), "is not empty (trials.jsonl)") {
		t.Errorf("with trials: %v", err)
	}
}

// TestARunWhoseWriterDiedReadsAsInterrupted: run.json still says running,
// but the process its lock names is gone; with a live writer it stays
// running.
func TestARunWhoseWriterDiedReadsAsInterrupted(t *testing.T) {
	dir := t.TempDir()
	if err := record.WriteRun(dir, &record.Run{Status: StatusRunning}); err != nil {
		t.Fatal(err)
	}
	// Above any pid_max Linux allows: no process has it.
	const dead = 2_000_000_000
	if err := os.WriteFile(filepath.Join(dir, LockFile), []byte(fmt.Sprintf("%d\n", dead)), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("its writer (process %d) ended without finishing it; `toolgrade run --resume %s` finishes it", dead, dir)
	if r.Run.Status != StatusInterrupted || r.Run.Error != want {
		t.Errorf("status %s, error %q; want interrupted, %q", r.Run.Status, r.Run.Error, want)
	}
	l, err := LockDir(dir) // this process: alive
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	if r, err := Open(dir); err != nil || r.Run.Status != StatusRunning {
		t.Errorf("with a live writer: %v, %v", r, err)
	}
}
