package main

import (
	"bytes"
	"context"
	"github.com/toolgrade/toolgrade/internal/runs"
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
	t.Parallel()
	dir := recordedRun(t)
	b, _ := os.ReadFile(filepath.Join(dir, record.RunFile))
	os.WriteFile(filepath.Join(dir, record.RunFile), bytes.Replace(b, []byte(`"status": "complete"`), []byte(`"status": "running"`), 1), 0o644)
	os.WriteFile(filepath.Join(dir, store.LockFile), []byte("2000000000\n"), 0o644)
	r := runCLI(t, context.Background(), "report", dir)
	if r.err != nil || !strings.Contains(r.stdout, "Run "+dir+" (interrupted): partial results.") || strings.Contains(r.stdout, "running") {
		t.Errorf("report: %v\n%s", r.err, r.stdout)
	}
}

// run --baseline says which cases it could not pair and why.
func TestBaselineSaysWhatItCouldNotPair(t *testing.T) {
	t.Parallel()
	var stderr bytes.Buffer
	base, cur := compareRuns+"base", compareRuns+"current"
	counts, err := runs.CountRegressions(&stderr)(context.Background(), base, cur, regressionAlpha)
	if err != nil || len(counts) == 0 {
		t.Fatalf("%v, %d counts", err, len(counts))
	}
	for _, want := range []string{
		"toolgrade: --baseline " + base + ": 1 case not paired: changed since the baseline (question or expectation edited under the same id): f\n",
		"toolgrade: --baseline " + base + ": m: 1 case not paired, in the baseline only (this run did not run it): e\n",
		"toolgrade: --baseline " + base + ": m: 1 case not paired, in this run only (the baseline did not run it): g\n",
	} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("no %q in\n%s", want, stderr.String())
		}
	}
}
