package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/compare"
	"github.com/toolgrade/toolgrade/internal/record"
)

// sweepRun copies internal/curve's recorded tool-count sweep (models good
// and weak at 0, 10, 30 and 60 decoys; weak's selection falls to 6/18) into
// a fresh directory, so report may write its summary there.
func sweepRun(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{record.RunFile, record.TrialsFile} {
		b, err := os.ReadFile(filepath.Join("../../internal/curve/testdata/sweep", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestReportSweep: the terminal report of a sweep run has a section per
// model, and --gate judges a point of it: exit 4 on the weak model at 60
// decoys, 0 on the good one, and a point the run lacks fails listing them.
func TestReportSweep(t *testing.T) {
	t.Parallel()
	dir := sweepRun(t)
	r := runCLI(t, context.Background(), "report", dir, "--gate", "good:selection@60>=0.8")
	if r.code != exitOK || !strings.Contains(r.stdout, "\nTool-count sweep: weak\n") ||
		!strings.Contains(r.stdout, "│ 60           │ 63    │ 6/18 33% [12–65]  │") ||
		r.stderr != "gate held: good tool_selection@60 94% [62–100] >= 80%\n" {
		t.Errorf("code %d (%v)\n%s\n%s", r.code, r.err, r.stdout, r.stderr)
	}
	r = runCLI(t, context.Background(), "report", dir, "--format", "json", "--gate", "selection@60>=0.8", "--gate", "weak:pass@0>=0.9")
	if r.code != exitGate || !strings.HasSuffix(r.stderr, "gate failed: weak tool_selection@60 33% [12–65] < 80%\n") || !strings.Contains(r.stderr, "gate held: weak pass@0 90% [59–99] >= 90%\n") {
		t.Errorf("code %d (%v), want %d\n%s", r.code, r.err, exitGate, r.stderr)
	}
	var sum struct {
		Sweep []struct{ Model string } `json:"sweep"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &sum); err != nil || len(sum.Sweep) != 2 {
		t.Errorf("summary.json sweep: %v %+v", err, sum)
	}
	r = runCLI(t, context.Background(), "report", dir, "--gate", "selection@45>=0.8")
	if r.code != exitGate || !strings.Contains(r.stderr, "gate failed: tool_selection@45 >= 80%: nothing to judge: the sweep has no point decoys=45 (its points: decoys=0 (base, 3 tools), decoys=10 (decoys=10, 13 tools)") {
		t.Errorf("missing point: code %d\n%s", r.code, r.stderr)
	}
	r = runCLI(t, context.Background(), "report", dir, "--gate", "selction@60>=0.8")
	if r.code != exitUsage || r.err == nil || !strings.Contains(r.err.Error(), `unknown metric "selction" (did you mean "selection"?)`) {
		t.Errorf("typo: code %d, %v", r.code, r.err)
	}
}

// TestCompareSweep: compare --sweep decoys pairs each point with the base
// and says where each model falls below --threshold; the usage errors say
// what to give.
func TestCompareSweep(t *testing.T) {
	t.Parallel()
	dir := sweepRun(t)
	r := runCLI(t, context.Background(), "compare", dir, "--sweep", "decoys")
	if r.code != exitOK || !strings.Contains(r.stdout, "weak: selection falls below 80% at 30 decoys (33 tools); its 95% interval is wholly below 80% from 60 decoys (63 tools)\n") ||
		!strings.Contains(r.stdout, "good: selection holds at or above 80% through 60 decoys (63 tools)\n") {
		t.Errorf("code %d (%v)\n%s\n%s", r.code, r.err, r.stdout, r.stderr)
	}
	r = runCLI(t, context.Background(), "compare", dir, "--sweep", "decoys", "--threshold", "0.85", "--json", "--gate", "weak:selection@10>=0.85")
	var sc compare.SweepComparison
	if err := json.Unmarshal([]byte(r.stdout), &sc); err != nil || sc.Threshold != 0.85 || sc.Curves[1].Crossing.Below.Value != 10.0 {
		t.Errorf("--threshold 0.85: %v %+v", err, sc)
	}
	if r.code != exitGate || !strings.Contains(r.stderr, "gate failed: weak tool_selection@10 82% [49–96] < 85%") {
		t.Errorf("gate: code %d\n%s", r.code, r.stderr)
	}
	// Markdown for a pull request: the verdicts first, written to -o.
	md := filepath.Join(t.TempDir(), "sweep.md")
	r = runCLI(t, context.Background(), "compare", dir, "--sweep", "decoys", "--format", "markdown", "-o", md, "--gate", "good:selection@60>=0.8")
	b, err := os.ReadFile(md)
	if r.code != exitOK || err != nil || !strings.HasPrefix(string(b), "## toolgrade compare: sweep of decoys\n") ||
		!strings.Contains(string(b), "\n- **weak**: selection falls below 80% at 30 decoys (33 tools); its 95% interval is wholly below 80% from 60 decoys (63 tools)\n") ||
		!strings.Contains(string(b), "| 60 | 63 | 6/18 33% [12–65] | -55.6 pts (p=0.062, \\~) |") || r.stdout != "" ||
		r.stderr != "gate held: good tool_selection@60 94% [62–100] >= 80%\n" {
		t.Errorf("markdown: code %d (%v), %v\n%s\n%s", r.code, r.err, err, b, r.stderr)
	}
	for _, tt := range []struct {
		args []string
		msg  string
	}{
		{[]string{"compare", dir, "--sweep", "decoy"}, `the sweep has no line along "decoy" (did you mean "decoys"?)`},
		{[]string{"compare", dir, "--sweep", "decoys", "--threshold", "1.5"}, "--threshold 1.5: must be a selection rate in (0, 1]"},
		{[]string{"compare", dir, "--threshold", "0.5"}, "--threshold goes with --sweep AXIS"},
		{[]string{"compare", dir, dir, "--sweep", "decoys"}, "with --sweep, give one run directory"},
		{[]string{"compare", dir, "--sweep", "decoys", "--variants", "base,decoys=10"}, "give --sweep, --models or --variants, one of them"},
		{[]string{"compare", compareRuns + "base", "--sweep", "decoys"}, "the run swept nothing"},
		{[]string{"compare", dir, "--sweep", "decoys", "--format", "html"}, "`toolgrade report DIR --format html` draws the curves"},
		{[]string{"compare", dir, "--models", "good,weak", "--format", "markdown"}, "--format markdown goes with --sweep AXIS"},
	} {
		r := runCLI(t, context.Background(), tt.args...)
		if r.code != exitUsage || r.err == nil || !strings.Contains(r.err.Error(), tt.msg) {
			t.Errorf("%v: code %d, %v\nwant %q", tt.args, r.code, r.err, tt.msg)
		}
	}
}
