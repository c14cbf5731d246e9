package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/internal/record"
)

// shippedScenarios copies cases/scenarios.yaml and its per-trial notes
// servers file into a temporary folder, so the run's notes stay there; the
// servers file starts `toolgrade fake-mcp notes`, this test binary.
func shippedScenarios(t *testing.T) string {
	t.Helper()
	toolgradeOnPath(t)
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "servers"), 0o755)
	for _, f := range []string{"scenarios.yaml", "servers/notes.json", "suite.schema.json"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "cases", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "scenarios.yaml")
}

// TestSimulatedUserScenarioEndToEnd: the shipped scenarios against the
// demo's fake Ollama, per trial on the notes server, with repeats in
// parallel: the simulated user (scripted-user) writes both turns of
// packing-list; scripted-good leaves the right notes and passes,
// scripted-weak saves the wrong list and fails on the state check; the
// turns, who wrote them and what the user model took are in the record,
// and show, report.md and summary.json carry them.
func TestSimulatedUserScenarioEndToEnd(t *testing.T) {
	t.Parallel()
	suitePath := shippedScenarios(t)
	script, err := fakeollama.DemoScript()
	if err != nil {
		t.Fatal(err)
	}
	_, url := fakeOllama(t, script)
	out := filepath.Join(t.TempDir(), "run")
	r := runCLI(t, context.Background(), "run", suitePath, "--out", out, "--ollama", url, "--repeat", "2", "--parallel", "2")
	if r.err != nil {
		t.Fatalf("run: %v\n%s", r.err, r.stderr)
	}
	got := map[string]string{}
	for _, tr := range readTrialsAll(t, out) {
		if tr.CaseID != "packing-list" {
			continue
		}
		got[tr.Model] = tr.Score.Outcome
		tx := tr.Transcript
		if len(tx.Turns) != 2 || tx.Turns[0].From != record.FromUserModel || tx.Turns[1].From != record.FromUserModel {
			t.Errorf("%s #%d: turns %+v, want two written by the user model", tr.Model, tr.Repeat, tx.Turns)
		}
		if u := tx.UserModel; u == nil || u.Model != "scripted-user" || u.Requests < 2 || u.PromptTokens == 0 {
			t.Errorf("%s #%d: the user model's cost %+v, want scripted-user's requests counted", tr.Model, tr.Repeat, u)
		}
	}
	if got["scripted-good"] != record.OutcomePass || got["scripted-weak"] != record.OutcomeWrongState {
		t.Fatalf("packing-list outcomes %v, want scripted-good pass and scripted-weak wrong_state", got)
	}
	s := runCLI(t, context.Background(), "show", out, "--case", "packing-list", "--model", "scripted-good", "--color", "never")
	for _, want := range []string{"user (the user model): ", "== turn 2 of 2", "the user model scripted-user took", "check 1: read_note"} {
		if !strings.Contains(s.stdout, want) {
			t.Errorf("show lacks %q:\n%s", want, s.stdout)
		}
	}
	md, _ := os.ReadFile(filepath.Join(out, "report.md"))
	if !strings.Contains(string(md), "packing-list") || !strings.Contains(string(md), "wrong_state") {
		t.Errorf("report.md does not name the failed scenario:\n%s", md)
	}
	checkStateRates(t, out, map[string]int{"scripted-good": 4, "scripted-weak": 0}, 4)
}

// TestUserModelNotPulled: a suite whose user model the Ollama lacks is
// refused before any trial, at the case's user:, as a usage error.
func TestUserModelNotPulled(t *testing.T) {
	t.Parallel()
	suitePath := shippedScenarios(t)
	b, _ := os.ReadFile(suitePath)
	os.WriteFile(suitePath, []byte(strings.Replace(string(b), "user_model: scripted-user", "user_model: scripted-nobody", 1)), 0o644)
	script, err := fakeollama.DemoScript()
	if err != nil {
		t.Fatal(err)
	}
	_, url := fakeOllama(t, script)
	out := filepath.Join(t.TempDir(), "run")
	r := runCLI(t, context.Background(), "run", suitePath, "--out", out, "--ollama", url)
	msg := ""
	if r.err != nil {
		msg = r.err.Error()
	}
	if r.code != 2 || !strings.Contains(msg, "scenarios.yaml:") || !strings.Contains(msg, "the user model of case packing-list") || !strings.Contains(msg, "scripted-nobody") {
		t.Fatalf("exit %d, want 2 naming the case's user: and the model: %s\n%s", r.code, msg, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "trials.jsonl")); err == nil {
		if b, _ := os.ReadFile(filepath.Join(out, "trials.jsonl")); len(b) > 0 {
			t.Errorf("trials ran before the user model was checked:\n%s", b)
		}
	}
}
