package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/internal/bfcl"
	"github.com/toolgrade/toolgrade/internal/bfcl/bfclfake"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/suite"
	"github.com/toolgrade/toolgrade/internal/summary"
)

// bfclRun imports the internal/bfcl fixtures as a suite and runs it with
// bfcl-good (BFCL's ground truth for every question) and bfcl-perturbed
// (one rule broken per case) against the fake Ollama scripted by
// bfclfake.Script; it returns the suite's path, the run directory, the fake
// and the run's result.
func bfclRun(t *testing.T) (suitePath, out string, srv *fakeollama.Server, r result) {
	t.Helper()
	qs, _ := filepath.Glob("../../internal/bfcl/testdata/BFCL_v3_*.json")
	as, _ := filepath.Glob("../../internal/bfcl/testdata/possible_answer/BFCL_v3_*.json")
	if len(qs) < 13 || len(as) == 0 {
		t.Fatalf("fixtures: %d question files, %d answer files", len(qs), len(as))
	}
	dir := t.TempDir()
	suitePath = filepath.Join(dir, "bfcl.yaml")
	args := append([]string{"import", "bfcl"}, qs...)
	for _, a := range as {
		args = append(args, "--answers", a)
	}
	args = append(args, "-o", suitePath)
	if r := runCLI(t, context.Background(), args...); r.code != exitOK {
		t.Fatalf("import: code %d (%v)\n%s", r.code, r.err, r.stderr)
	}
	im, err := bfcl.Load(qs, as)
	if err != nil {
		t.Fatal(err)
	}
	script, err := bfclfake.Script(im)
	if err != nil {
		t.Fatal(err)
	}
	srv, url := fakeOllama(t, script)
	out = filepath.Join(dir, "run")
	r = runCLI(t, context.Background(), "run", suitePath, "--models", "bfcl-good,bfcl-perturbed", "--out", out, "--ollama", url)
	if r.err != nil {
		t.Fatalf("run: %v\n%s", r.err, r.stderr)
	}
	return suitePath, out, srv, r
}

// TestImportedBFCLSuiteRuns: the suite `import bfcl` writes from the
// fixtures loads with `toolgrade run` unchanged and runs against the fake
// Ollama through the real loop: a model that answers every question with
// BFCL's ground truth passes every case and is BFCL-valid in every
// category; one that breaks one rule per case fails every case, BFCL-
// invalid; nothing is executed; the report prints BFCL's figures.
func TestImportedBFCLSuiteRuns(t *testing.T) {
	t.Parallel()
	suitePath, out, srv, r := bfclRun(t)
	trials := readTrialsAll(t, out)
	st, err := suite.Load(suitePath, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Cases) < 13 || len(trials) != 2*len(st.Cases) {
		t.Fatalf("%d trials of %d cases, want two models' worth", len(trials), len(st.Cases))
	}
	for _, tr := range trials {
		j := record.Judge(tr)
		good := tr.Model == "bfcl-good"
		if j.BFCL == nil {
			t.Errorf("%s/%s: no BFCL verdict", tr.Model, tr.CaseID)
			continue
		}
		if good != (tr.Score.Outcome == record.OutcomePass) || good != j.BFCL.OK {
			t.Errorf("%s/%s: outcome %s (%s), BFCL valid %v", tr.Model, tr.CaseID, tr.Score.Outcome, tr.Score.Detail, j.BFCL.OK)
		}
		if tr.Transcript == nil || !tr.Transcript.NotExecuted {
			t.Errorf("%s/%s: a call was executed", tr.Model, tr.CaseID)
		}
	}
	// Each request offered exactly the case's functions, under the names
	// tool APIs accept.
	chats := 0
	for _, req := range srv.Requests() {
		if req.Chat == nil || len(req.Chat.Messages) == 0 {
			continue // a warm-up or an unload
		}
		chats++
		if len(req.Chat.Tools) == 0 {
			t.Errorf("a chat request offered no tools: %s", req.Body)
		}
		for _, tool := range req.Chat.Tools {
			if strings.Contains(tool.Function.Name, ".") {
				t.Errorf("tool %q sent with a dot", tool.Function.Name)
			}
		}
	}
	if chats != len(trials) {
		t.Errorf("%d chat requests for %d trials: each should stop at its first response", chats, len(trials))
	}
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum summary.Summary
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	for _, m := range sum.Models {
		if m.BFCL == nil || len(m.BFCL.Categories) < 11 {
			t.Fatalf("%s: BFCL summary %+v", m.Model, m.BFCL)
		}
		for _, c := range m.BFCL.Categories {
			want := 0
			if m.Model == "bfcl-good" {
				want = c.Accuracy.N
			}
			if c.Accuracy.N == 0 || c.Accuracy.K != want {
				t.Errorf("%s %s: BFCL accuracy %d/%d, want %d", m.Model, c.Category, c.Accuracy.K, c.Accuracy.N, want)
			}
		}
	}
	if !strings.Contains(r.stdout, "BFCL") {
		t.Errorf("the report has no BFCL section:\n%s", r.stdout)
	}
}
