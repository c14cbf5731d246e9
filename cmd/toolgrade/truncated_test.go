package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/summary"
)

// smallSuite is two cases of cases/docs.yaml against scripted-good, whose
// servers file runs this binary as the docs server.
func smallSuite(t *testing.T) string {
	t.Helper()
	text := `name: small
servers: ` + serversFile(t, "docs") + `
models: [scripted-good]
defaults: {think: false, options: {temperature: 0, seed: 42}}
cases:
  - {id: dog, ask: "Can I bring my dog?", expect: {tool: search, answer: {contains: terrace}}}
  - {id: greeting, ask: "Hello!", expect: {no_tool: true}}
`
	p := filepath.Join(t.TempDir(), "small.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func summaryOf(t *testing.T, out string) *summary.ModelSummary {
	t.Helper()
	s, err := summary.ReadJSON(strings.NewReader(out), "stdout")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Models) != 1 {
		t.Fatalf("%d rows", len(s.Models))
	}
	return &s.Models[0]
}

// TestTruncatedTrialsAreKeptOutOfTheRates: a run whose num_ctx (-o) the fake
// Ollama's prompts reach has every trial marked truncated; run, report and
// compare keep them out of the rates and count them apart, and
// --keep-truncated counts them, on run (recorded in run.json, so report
// follows) or on report and compare alone.
func TestTruncatedTrialsAreKeptOutOfTheRates(t *testing.T) {
	t.Parallel()
	_, url := fakeOllama(t, nil)
	suite := smallSuite(t)
	dir := filepath.Join(t.TempDir(), "run")
	r := runCLI(t, context.Background(), "run", suite, "--out", dir, "--ollama", url, "-o", "num_ctx=64")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	if !strings.Contains(r.stdout, "scripted-good: 2 trials kept out of every rate: a prompt reached num_ctx") {
		t.Errorf("run's report does not count the truncated trials apart:\n%s", r.stdout)
	}
	err := readTrials(dir, os.Stderr, func(tr *record.Trial) {
		if tr.NumCtx != 64 || !tr.Score.Truncated {
			t.Errorf("%s: num_ctx %d, truncated %v; want 64, true", tr.CaseID, tr.NumCtx, tr.Score.Truncated)
		}
	})
	if err != nil {
		t.Fatal(err)
	}

	// show finds them, though no rate counts them.
	if sh := runCLI(t, context.Background(), "show", dir, "--outcome", "truncated", "--color", "never"); sh.code != exitOK || strings.Count(sh.stdout, "reached num_ctx") < 2 {
		t.Errorf("show --outcome truncated: exit %d (%v)\n%s", sh.code, sh.err, sh.stdout)
	}
	if sh := runCLI(t, context.Background(), "show", dir, "--outcome", "truncatd"); sh.code != exitUsage || !strings.Contains(sh.err.Error(), `did you mean "truncated"?`) {
		t.Errorf("show --outcome truncatd: exit %d (%v)", sh.code, sh.err)
	}
	rep := runCLI(t, context.Background(), "report", dir, "--json")
	if m := summaryOf(t, rep.stdout); rep.err != nil || m.Scored != 0 || m.Excluded != 2 || m.Pass.N != 0 {
		t.Errorf("report --json: err %v, scored %d, excluded %d, pass n %d; want 0, 2, 0", rep.err, m.Scored, m.Excluded, m.Pass.N)
	}
	kept := runCLI(t, context.Background(), "report", dir, "--json", "--keep-truncated")
	if m := summaryOf(t, kept.stdout); kept.err != nil || m.Scored != 2 || m.Excluded != 0 || m.Truncated != 2 {
		t.Errorf("report --keep-truncated: err %v, scored %d, excluded %d, truncated %d; want 2, 0, 2", kept.err, m.Scored, m.Excluded, m.Truncated)
	}
	// A gate with nothing to judge fails; with the trials kept it judges.
	if g := runCLI(t, context.Background(), "report", dir, "--gate", "pass>=0"); g.code != 4 {
		t.Errorf("gate on no scored trial: exit %d, want 4\n%s", g.code, g.stderr)
	}
	if g := runCLI(t, context.Background(), "report", dir, "--keep-truncated", "--gate", "pass>=0"); g.code != 0 {
		t.Errorf("gate with --keep-truncated: exit %d, want 0\n%s", g.code, g.stderr)
	}

	cmp := runCLI(t, context.Background(), "compare", dir, dir, "--json")
	var c struct {
		Groups []struct {
			Scored    int                         `json:"scored_pairs"`
			Truncated struct{ Base, Current int } `json:"truncated_excluded"`
		}
	}
	if err := json.Unmarshal([]byte(cmp.stdout), &c); cmp.err != nil || err != nil || len(c.Groups) != 1 {
		t.Fatalf("compare: %v %v\n%s", cmp.err, err, cmp.stdout)
	}
	if g := c.Groups[0]; g.Scored != 0 || g.Truncated.Base != 2 || g.Truncated.Current != 2 {
		t.Errorf("compare: %+v, want no scored pair and 2 truncated on each side", g)
	}
	cmp = runCLI(t, context.Background(), "compare", dir, dir, "--json", "--keep-truncated")
	if err := json.Unmarshal([]byte(cmp.stdout), &c); cmp.err != nil || err != nil || c.Groups[0].Scored != 2 {
		t.Errorf("compare --keep-truncated: %v %v, %+v; want 2 scored pairs", cmp.err, err, c.Groups)
	}

	// Recorded by run: reports rebuilt later count alike.
	keptDir := filepath.Join(t.TempDir(), "kept")
	r = runCLI(t, context.Background(), "run", suite, "--out", keptDir, "--ollama", url, "-o", "num_ctx=64", "--keep-truncated")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	meta, err := record.ReadRun(keptDir)
	if err != nil || !meta.KeepTruncated {
		t.Fatalf("run.json keep_truncated %v (%v), want true", meta != nil && meta.KeepTruncated, err)
	}
	rep = runCLI(t, context.Background(), "report", keptDir, "--json")
	if m := summaryOf(t, rep.stdout); m.Scored != 2 {
		t.Errorf("report of a run with --keep-truncated: scored %d, want 2", m.Scored)
	}
}

// TestRescoreKeepsTheTrialsNumCtx: rescoring judges truncation against the
// num_ctx each trial ran with (here from -o, which the suite does not
// know), and --keep-truncated is recorded in the new run.json.
func TestRescoreKeepsTheTrialsNumCtx(t *testing.T) {
	t.Parallel()
	_, url := fakeOllama(t, nil)
	suite := smallSuite(t)
	dir := filepath.Join(t.TempDir(), "run")
	if r := runCLI(t, context.Background(), "run", suite, "--out", dir, "--ollama", url, "-o", "num_ctx=64"); r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	out := filepath.Join(t.TempDir(), "rescored")
	if r := runCLI(t, context.Background(), "rescore", dir, "--suite", suite, "--out", out, "--keep-truncated"); r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	n := 0
	err := readTrials(out, os.Stderr, func(tr *record.Trial) {
		n++
		if !tr.Score.Truncated {
			t.Errorf("%s: rescored as not truncated at num_ctx %d", tr.CaseID, tr.NumCtx)
		}
	})
	if err != nil || n != 2 {
		t.Fatalf("%d trials rescored (%v), want 2", n, err)
	}
	meta, err := record.ReadRun(out)
	if err != nil || !meta.KeepTruncated {
		t.Errorf("rescored run.json keep_truncated false (%v), want true", err)
	}
}
