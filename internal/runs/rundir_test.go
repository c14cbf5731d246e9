package runs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/store"
)

// TestADefaultFolderTakenGetsASuffix: two runs of a suite in one second
// each get a folder; the second is not refused as a resume.
func TestADefaultFolderTakenGetsASuffix(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "first-20261203-080617")
	if got := freeDir(dir); got != dir {
		t.Errorf("free: %s", got)
	}
	for _, d := range []string{dir, dir + "-2"} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if got := freeDir(dir); got != dir+"-3" {
		t.Errorf("taken twice: %s", got)
	}
}

// TestAHeldFolderSaysWhatItHolds: a finished run is not offered --resume;
// an unfinished one is.
func TestAHeldFolderSaysWhatItHolds(t *testing.T) {
	s := loadSuite(t)
	dir := filepath.Join(t.TempDir(), "run")
	w, err := store.Create(dir, (&Meta{Suite: s, Parallel: 1}).New())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	held := func() string {
		return DirError(dir, store.CheckFresh(dir)).Error()
	}
	if got := held(); !strings.Contains(got, "already holds a run that did not finish; use --resume "+dir) {
		t.Errorf("unfinished: %s", got)
	}
	if err := w.Update(func(r *record.Run) { r.Status = store.StatusComplete }); err != nil {
		t.Fatal(err)
	}
	got := held()
	if !strings.Contains(got, "holds a finished run (of tiny, ") || strings.Contains(got, "--resume") ||
		!strings.Contains(got, "`toolgrade report "+dir+"` shows it") {
		t.Errorf("finished: %s", got)
	}
}
