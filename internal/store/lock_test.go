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
