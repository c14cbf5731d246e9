package runs

import (
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgrade/toolgrade/internal/cli"
	"github.com/toolgrade/toolgrade/internal/store"
)

// TestSeveralWholeRunsNameTheNewest: `report runs/docs-*` once a suite ran
// twice says what to give instead, and which run is the newest.
func TestSeveralWholeRunsNameTheNewest(t *testing.T) {
	s := loadSuite(t)
	root := t.TempDir()
	var dirs []string
	for i, start := range []time.Time{
		time.Date(2026, 3, 1, 9, 0, 0, 0, time.Local),
		time.Date(2026, 3, 2, 9, 0, 0, 0, time.Local),
		time.Date(2026, 2, 1, 9, 0, 0, 0, time.Local),
	} {
		dir := filepath.Join(root, "docs-"+string(rune('a'+i)))
		w, err := store.Create(dir, (&Meta{Suite: s, Parallel: 1, Start: start}).New())
		if err != nil {
			t.Fatal(err)
		}
		w.Close()
		dirs = append(dirs, dir)
	}
	_, err := OpenRuns("report", dirs, io.Discard)
	var ue *cli.UsageError
	if !errors.As(err, &ue) {
		t.Fatalf("%v (%T), want a usage error", err, err)
	}
	for _, want := range []string{
		"report: 3 of these directories are whole runs, not the shards of one",
		"give one run directory (or the shards of one run)",
		"the newest is " + dirs[1] + ", started 2026-03-02 09:00: `toolgrade report " + dirs[1] + "`",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%v\nwant it to say %q", err, want)
		}
	}
	// One of them alone is a run like any other.
	if r, err := OpenRuns("report", dirs[1:2], io.Discard); err != nil || r.Run.Suite.Name != "tiny" {
		t.Errorf("one run: %v", err)
	}
}
