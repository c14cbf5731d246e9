package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/internal/record"
)

// scenarioScript plays two models through the notes scenario of
// scenarioSuite: scripted-scribe adds "buy milk" to notes.txt as asked,
// scripted-sloppy adds "buy silk"; both read the note back in the second
// turn, and both try to make a folder when asked. A turn's rounds are
// told apart by round (1 + the assistant messages so far, over every turn).
const scenarioScript = `
models:
  - {name: scripted-scribe}
  - {name: scripted-sloppy}
rules:
  - model: scripted-scribe
    user: {contains: add buy milk}
    round: 1
    reply: {tool_calls: [{name: edit_file, arguments: {path: notes.txt, edits: [{oldText: "groceries:", newText: "groceries: buy milk"}]}}]}
  - model: scripted-sloppy
    user: {contains: add buy milk}
    round: 1
    reply: {tool_calls: [{name: edit_file, arguments: {path: notes.txt, edits: [{oldText: "groceries:", newText: "groceries: buy silk"}]}}]}
  - user: {contains: add buy milk}
    reply: {content: "Done: I added it to notes.txt."}
  - user: {contains: say now}
    round: 3
    reply: {tool_calls: [{name: read_text_file, arguments: {path: notes.txt}}]}
  - user: {contains: say now}
    reply: {content: "It says what you asked me to write."}
  - user: {contains: folder named archive}
    round: 1
    reply: {tool_calls: [{name: create_directory, arguments: {path: archive}}]}
  - user: {contains: folder named archive}
    reply: {content: "I could not make it."}
`

// scenarioSuite is a two-turn scenario judged by its end state, on the
// real filesystem server, and a case whose tool the policy blocks.
const scenarioSuite = `
servers: servers.json
defaults:
  allow_tools: [edit_file]
cases:
  - id: note-roundtrip
    turns:
      - ask: Please add buy milk to my notes.txt.
        expect: {tool: edit_file, args: {path: {contains: notes.txt}}}
      - ask: And what does notes.txt say now?
        expect: {tool: read_text_file}
    check:
      - tool: fs.read_text_file
        args: {path: notes.txt}
        result: {regex: "^groceries: buy milk\\n"}
  - id: archive
    ask: Make a folder named archive.
    expect: {tool: create_directory}
`

// scenarioDir writes the suite, its servers file (the real filesystem
// server, per trial when perTrial, else over one shared folder) and the
// template notes.txt; it returns the suite's path.
func scenarioDir(t *testing.T, perTrial bool) string {
	t.Helper()
	dir := t.TempDir()
	tmpl := filepath.Join(dir, "tmpl")
	os.MkdirAll(tmpl, 0o755)
	if err := os.WriteFile(filepath.Join(tmpl, "notes.txt"), []byte("groceries:"), 0o644); err != nil {
		t.Fatal(err)
	}
	fs := map[string]any{"command": "node", "args": []string{filesystemServer(t), tmpl}}
	if perTrial {
		fs = map[string]any{"command": "node", "args": []string{filesystemServer(t), "${trialDir}"}, "perTrial": true, "trialTemplate": "tmpl"}
	}
	b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"fs": fs}})
	os.WriteFile(filepath.Join(dir, "servers.json"), b, 0o644)
	p := filepath.Join(dir, "notes.yaml")
	if err := os.WriteFile(p, []byte(scenarioSuite), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func runScenario(t *testing.T, suitePath string, parallel string, extra ...string) (string, result) {
	t.Helper()
	script, err := fakeollama.ParseScript([]byte(scenarioScript), "scenario.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, url := fakeOllama(t, script)
	out := filepath.Join(t.TempDir(), "run")
	args := append([]string{"run", suitePath, "--out", out, "--ollama", url, "--models", "scripted-scribe,scripted-sloppy",
		"--parallel", parallel, "--repeat", "3", "--all-repeats"}, extra...)
	return out, runCLI(t, context.Background(), args...)
}

// outcomes counts the outcomes of dir's trials by model and case.
func outcomes(t *testing.T, dir string) (map[string]map[string]int, []*record.Trial) {
	t.Helper()
	trials := readTrialsAll(t, dir)
	out := map[string]map[string]int{}
	for _, tr := range trials {
		k := tr.Model + "/" + tr.CaseID
		if out[k] == nil {
			out[k] = map[string]int{}
		}
		out[k][tr.Score.Outcome]++
	}
	return out, trials
}

// TestScenarioOnPerTrialFilesystem: with the real filesystem server per
// trial, four at once and three repeats, the model that adds the right
// note passes every trial and the one that writes the wrong content fails
// on its state check; the blocked folder tool never runs; the directories
// of the trials that did not pass are kept with --keep-trial-dirs, the
// others removed.
func TestScenarioOnPerTrialFilesystem(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dir, r := runScenario(t, scenarioDir(t, true), "4", "--keep-trial-dirs")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	got, trials := outcomes(t, dir)
	want := map[string]map[string]int{
		"scripted-scribe/note-roundtrip": {record.OutcomePass: 3},
		"scripted-sloppy/note-roundtrip": {record.OutcomeWrongState: 3},
		"scripted-scribe/archive":        {record.OutcomeCallFailed: 3},
		"scripted-sloppy/archive":        {record.OutcomeCallFailed: 3},
	}
	if !equalCounts(got, want) {
		t.Fatalf("outcomes %v, want %v\n%s", got, want, r.stderr)
	}
	for _, tr := range trials {
		x := tr.Transcript
		switch tr.CaseID {
		case "note-roundtrip":
			if len(x.Turns) != 2 || x.Turns[1].FirstRound != 2 || len(x.Rounds) != 4 || x.Rounds[3].Index != 4 || len(x.Checks) != 1 {
				t.Fatalf("%s: turns %+v, %d rounds, checks %+v", tr.Model, x.Turns, len(x.Rounds), x.Checks)
			}
			if tr.Model == "scripted-sloppy" && (x.Checks[0].OK || !strings.Contains(tr.Score.Detail, "check 1 (fs.read_text_file") || tr.Score.State == nil || *tr.Score.State) {
				t.Errorf("sloppy: check %+v, score %+v", x.Checks[0], tr.Score)
			}
		case "archive":
			ex := x.Executions()
			if len(ex) != 1 || ex[0].ErrorKind != record.ExecBlocked {
				t.Errorf("archive: executions %+v", ex)
			}
		}
	}
	checkScenarioReports(t, dir)
	if testing.Verbose() {
		t.Log(runCLI(t, context.Background(), "show", dir, "--model", "scripted-sloppy", "--case", "note-roundtrip", "--color", "never").stdout)
	}
	kept, _ := filepath.Glob(filepath.Join(tmp, "toolgrade-trial-*"))
	if len(kept) != 9 || !strings.Contains(r.stderr, "kept the per-trial directories of 9 trials") {
		t.Fatalf("kept %d directories: %q\n%s", len(kept), kept, r.stderr)
	}
	for _, d := range kept {
		if strings.Contains(d, "scripted-scribe-note-roundtrip") {
			t.Errorf("kept a passing trial's directory %s", d)
		}
		if _, err := os.Stat(filepath.Join(d, "archive")); err == nil {
			t.Errorf("the blocked create_directory ran in %s", d)
		}
		if strings.Contains(d, "scripted-sloppy-note-roundtrip") {
			if b, _ := os.ReadFile(filepath.Join(d, "notes.txt")); string(b) != "groceries: buy silk" {
				t.Errorf("%s: notes.txt %q", d, b)
			}
		}
	}
}

// TestScenarioInOneSharedFolderFails: the same suite over one folder shared
// by every trial fails, since each trial's edit lands on the notes of the
// trials before it: the isolation is what makes the scenario hold. The
// trials run one at a time so that the count is certain (four at once fail
// too, but how many is a race between their edits).
func TestScenarioInOneSharedFolderFails(t *testing.T) {
	dir, r := runScenario(t, scenarioDir(t, false), "1")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	got, _ := outcomes(t, dir)
	// Only the first edit of the shared note can leave it as the check
	// expects; every later one adds to it.
	if n := got["scripted-scribe/note-roundtrip"][record.OutcomePass]; n > 1 {
		t.Errorf("%d of 3 trials passed in a shared folder: %v", n, got)
	}
}

func equalCounts(a, b map[string]map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, m := range a {
		if len(m) != len(b[k]) {
			return false
		}
		for o, n := range m {
			if b[k][o] != n {
				return false
			}
		}
	}
	return true
}

// checkScenarioReports: show, report.html, report.md and summary.json carry
// a scenario's turns, checks and verdicts.
func checkScenarioReports(t *testing.T, dir string) {
	t.Helper()
	r := runCLI(t, context.Background(), "show", dir, "--model", "scripted-sloppy", "--case", "note-roundtrip", "--color", "never")
	if r.err != nil {
		t.Fatalf("show: %v\n%s", r.err, r.stderr)
	}
	first := strings.SplitN(r.stdout, "\n\n=== ", 2)[0]
	for _, want := range []string{
		"wrong_state", "== turn 1 of 2", "user: Please add buy milk to my notes.txt.", "== turn 2 of 2",
		"user: And what does notes.txt say now?", "answer: Done: I added it to notes.txt.",
		`check 1: read_text_file({"path":"notes.txt"}) failed: result`, "groceries: buy silk",
	} {
		if !strings.Contains(first, want) {
			t.Errorf("show lacks %q:\n%s", want, first)
		}
	}
	if i, j := strings.Index(first, "== turn 2"), strings.Index(first, "-> read_text_file"); i < 0 || j < i {
		t.Errorf("turn 2's round is not under turn 2:\n%s", first)
	}
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"turns":[{"user":"Please add buy milk to my notes.txt.","first":0`, `"checks":[{"name":"read_text_file"`, `"wrong_state"`} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report.html lacks %s", want)
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	if !strings.Contains(string(md), "`wrong_state`: 3") || !strings.Contains(string(md), "check 1 (fs.read\\_text\\_file)") {
		t.Errorf("report.md:\n%s", md)
	}
	checkStateRates(t, dir, map[string]int{"scripted-scribe": 3, "scripted-sloppy": 0}, 3)
}

// TestScenarioResumesFromItsSetup: a scenario cut off in its second turn is
// not recorded (a trial is written when it ends), its servers and
// directory are gone with the cancel, and --resume runs it again from its
// setup, in fresh servers.
func TestScenarioResumesFromItsSetup(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	suitePath := scenarioDir(t, true)
	text := strings.Replace(scenarioSuite, "  - id: note-roundtrip\n", "  - id: note-roundtrip\n    setup: [{tool: write_file, args: {path: notes.txt, content: \"groceries:\"}}]\n", 1)
	text = strings.Replace(text, "  - id: archive\n    ask: Make a folder named archive.\n    expect: {tool: create_directory}\n", "", 1)
	os.WriteFile(suitePath, []byte(text), 0o644)
	servers := filepath.Join(filepath.Dir(suitePath), "servers.json")
	b, _ := os.ReadFile(servers)
	os.WriteFile(servers, []byte(strings.Replace(string(b), `,"trialTemplate":"tmpl"`, "", 1)), 0o644)

	script, err := fakeollama.ParseScript([]byte(scenarioScript), "scenario.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	fake := fakeollama.New(script, &fakeollama.Options{})
	// The second turn's first request cancels the run and waits for it.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/chat" {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if bytes.Contains(body, []byte("say now")) {
				cancel()
				<-r.Context().Done()
				return
			}
		}
		fake.ServeHTTP(w, r)
	}))
	defer srv.Close()
	dir := filepath.Join(t.TempDir(), "run")
	r := runCLI(t, ctx, "run", suitePath, "--out", dir, "--ollama", srv.URL, "--models", "scripted-scribe")
	if r.code != 130 {
		t.Fatalf("interrupted run: exit %d, %v\n%s", r.code, r.err, r.stderr)
	}
	if n := len(readTrialsAll(t, dir)); n != 0 {
		t.Fatalf("%d trials recorded of a scenario cut off mid-way", n)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "toolgrade-trial-*")); len(left) != 0 {
		t.Errorf("left behind after the cancel: %q", left)
	}
	_, url := fakeOllama(t, script)
	r = runCLI(t, context.Background(), "run", "--resume", dir, "--ollama", url)
	if r.err != nil {
		t.Fatalf("resume: %v\n%s", r.err, r.stderr)
	}
	trials := readTrialsAll(t, dir)
	if len(trials) != 1 {
		t.Fatalf("%d trials after the resume", len(trials))
	}
	x := trials[0].Transcript
	if trials[0].Score.Outcome != record.OutcomePass || len(x.Setup) != 1 || x.Setup[0].IsError || len(x.Turns) != 2 || len(x.Checks) != 1 || !x.Checks[0].OK {
		t.Errorf("resumed trial: %+v, setup %+v, turns %+v", trials[0].Score, x.Setup, x.Turns)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "toolgrade-trial-*")); len(left) != 0 {
		t.Errorf("left behind after the resume: %q", left)
	}
}

// checkStateRates checks summary.json's end-state rate of each model in
// dir: want[model] of n trials passed their state checks.
func checkStateRates(t *testing.T, dir string, want map[string]int, n int) {
	t.Helper()
	var sum struct {
		Models []struct {
			Model string
			State struct{ K, N int }
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	if len(sum.Models) != len(want) {
		t.Errorf("summary.json has %d models, want %d", len(sum.Models), len(want))
	}
	for _, m := range sum.Models {
		if m.State.K != want[m.Model] || m.State.N != n {
			t.Errorf("%s: state %d/%d, want %d/%d", m.Model, m.State.K, m.State.N, want[m.Model], n)
		}
	}
}
