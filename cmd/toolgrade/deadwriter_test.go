package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/store"
)

// A run whose writer was killed before it could say so is shown as
// interrupted, never as running.
func TestReportShowsARunWhoseWriterDiedAsInterrupted(t *testing.T) {
	dir := recordedRun(t)
	b, _ := os.ReadFile(filepath.Join(dir, record.RunFile))
	os.WriteFile(filepath.Join(dir, record.RunFile), bytes.Replace(b, []byte(`"status": "complete"`), []byte(`"status": "running"`), 1), 0o644)
	os.WriteFile(filepath.Join(dir, store.LockFile), []byte("2000000000\n"), 0o644)
	r := runCLI(t, context.Background(), "report", dir)
	if r.err != nil || !strings.Contains(r.stdout, "Run "+dir+" (interrupted): partial results.") || strings.Contains(r.stdout, "running") {
		t.Errorf("report: %v\n%s", r.err, r.stdout)
	}
}
