package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/internal/record"
)

// writeScript makes scripted-good call the filesystem server's write_file,
// then answer according to the result it got.
const writeScript = `
models:
  - {name: scripted-good, parameter_size: 8.2B}
rules:
  - user: {contains: note.txt}
    tool_result: {contains: was not run}
    reply: {content: "I may not write files here."}
  - user: {contains: note.txt}
    tool_result: {regex: "."}
    reply: {content: "Wrote note.txt."}
  - user: {contains: note.txt}
    reply: {tool_calls: [{name: write_file, arguments: {path: note.txt, content: hello}}]}
`

// writeSuite is a suite over the real filesystem server in a fresh folder,
// exposing its destructive write_file; defaults are added to its defaults.
func writeSuite(t *testing.T, defaults string) (suite, files string) {
	t.Helper()
	dir := t.TempDir()
	files = filepath.Join(dir, "files")
	if err := os.Mkdir(files, 0o755); err != nil {
		t.Fatal(err)
	}
	src := fmt.Sprintf(`name: write
servers:
  mcpServers:
    fs:
      command: node
      args: [%q, %q]
      toolFilter: {mode: include, tools: [write_file, read_text_file]}
models: [scripted-good]
defaults: {max_rounds: 3%s}
cases:
  - id: write-note
    ask: "Write hello into note.txt."
    expect:
      tool: write_file
      args: {path: {contains: note.txt}, content: hello}
`, filesystemServer(t), files, defaults)
	suite = filepath.Join(dir, "write.yaml")
	if err := os.WriteFile(suite, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return suite, files
}

func runWrite(t *testing.T, defaults string, flags ...string) (*record.Trial, string) {
	t.Helper()
	tr, note, _ := runWriteStderr(t, defaults, flags...)
	return tr, note
}

func runWriteStderr(t *testing.T, defaults string, flags ...string) (*record.Trial, string, string) {
	t.Helper()
	script, err := fakeollama.ParseScript([]byte(writeScript), "write.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, url := fakeOllama(t, script)
	suite, files := writeSuite(t, defaults)
	dir := filepath.Join(t.TempDir(), "run")
	r := runCLI(t, context.Background(), append([]string{"run", suite, "--out", dir, "--ollama", url}, flags...)...)
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	var trials []*record.Trial
	if err := readTrials(dir, os.Stderr, func(tr *record.Trial) { trials = append(trials, tr) }); err != nil || len(trials) != 1 {
		t.Fatalf("%d trials, err %v", len(trials), err)
	}
	return trials[0], filepath.Join(files, "note.txt"), r.stderr
}

func TestRunWarnsOfAPatternThatMatchesNoTool(t *testing.T) {
	t.Parallel()
	_, _, stderr := runWriteStderr(t, ", allow_tools: [fs.write_file, wirte_file]")
	if !strings.Contains(stderr, `tool pattern "wirte_file" matches no tool`) || strings.Contains(stderr, `"fs.write_file" matches`) {
		t.Errorf("stderr:\n%s", stderr)
	}
}

func TestRunBlocksTheRealWriteFile(t *testing.T) {
	t.Parallel()
	tr, note := runWrite(t, "")
	if _, err := os.Stat(note); !os.IsNotExist(err) {
		t.Fatalf("note.txt: %v; want it never written", err)
	}
	ex := tr.Transcript.Executions()
	if len(ex) != 1 || ex[0].ErrorKind != record.ExecBlocked || ex[0].Tool != "write_file" || !strings.Contains(ex[0].Error, "destructiveHint") {
		t.Fatalf("executions %+v", ex)
	}
	// The model saw the block and answered; the selection was right, but
	// the expected call failed: call_failed, never an infrastructure error.
	if tr.Transcript.Answer != "I may not write files here." || tr.Score.Outcome != record.OutcomeCallFailed {
		t.Errorf("answer %q, outcome %s (%s)", tr.Transcript.Answer, tr.Score.Outcome, tr.Score.Detail)
	}
}

func TestRunAllowToolsRunsTheRealWriteFile(t *testing.T) {
	t.Parallel()
	tr, note := runWrite(t, ", allow_tools: [fs.write_file]")
	got, err := os.ReadFile(note)
	if err != nil || string(got) != "hello" {
		t.Fatalf("note.txt = %q, %v; want hello", got, err)
	}
	if ex := tr.Transcript.Executions(); len(ex) != 1 || ex[0].IsError || tr.Transcript.Answer != "Wrote note.txt." {
		t.Errorf("executions %+v, answer %q", ex, tr.Transcript.Answer)
	}
}

func TestRunDenyToolsBeatsAllowTools(t *testing.T) {
	t.Parallel()
	tr, note := runWrite(t, ", allow_tools: [\"*\"], deny_tools: [write_*]")
	if _, err := os.Stat(note); !os.IsNotExist(err) {
		t.Fatalf("note.txt: %v; want it never written", err)
	}
	if ex := tr.Transcript.Executions(); len(ex) != 1 || ex[0].ErrorKind != record.ExecBlocked || !strings.Contains(ex[0].Error, "deny_tools") {
		t.Errorf("executions %+v", ex)
	}
}

func TestRunNoExecuteRunsNothing(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name     string
		defaults string
		flags    []string
	}{
		{name: "flag", defaults: ", allow_tools: [\"*\"]", flags: []string{"--no-execute"}},
		{name: "suite", defaults: ", allow_tools: [\"*\"], execute: false"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tr, note := runWrite(t, tt.defaults, tt.flags...)
			if _, err := os.Stat(note); !os.IsNotExist(err) {
				t.Fatalf("note.txt: %v; want it never written", err)
			}
			if !tr.Transcript.NotExecuted || len(tr.Transcript.Rounds) != 1 || len(tr.Transcript.Executions()) != 0 {
				t.Fatalf("NotExecuted %v, %d rounds, executions %+v", tr.Transcript.NotExecuted, len(tr.Transcript.Rounds), tr.Transcript.Executions())
			}
			if tr.Score.Outcome != record.OutcomePass || !tr.Score.ToolCorrect || !tr.Score.ArgsCorrect {
				t.Errorf("score %+v", tr.Score)
			}
		})
	}
}

func TestToolsSaysWhichToolsASuiteBlocks(t *testing.T) {
	t.Parallel()
	r := runCLI(t, context.Background(), "tools", "--servers", serversFile(t, "docs", "fs"))
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	for _, w := range []string{
		"blocked: write_file: a suite does not run it: it is marked destructive (destructiveHint)",
		"blocked: move_file: ",
		// destructiveHint: false, but not read-only either.
		"blocked: create_directory: a suite does not run it: its annotations do not mark it read-only (readOnlyHint)",
	} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("tools output lacks %q:\n%s", w, r.stdout)
		}
	}
	for _, w := range []string{"blocked: read_text_file:", "blocked: search:", "blocked: list_directory:"} {
		if strings.Contains(r.stdout, w) {
			t.Errorf("tools output has %q:\n%s", w, r.stdout)
		}
	}
}

func TestAskNoExecutePrintsTheCallsUnrun(t *testing.T) {
	t.Parallel()
	fake, url := fakeOllama(t, nil)
	r := runCLI(t, context.Background(), "ask", "--servers", serversFile(t, "docs"), "--model", "scripted-good", "--ollama", url, "--no-execute", "Can I bring my dog?")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	if !strings.Contains(r.stdout, "-> search(") || !strings.Contains(r.stdout, "[not run: --no-execute]") || strings.Contains(r.stdout, "terrace") {
		t.Errorf("ask printed:\n%s", r.stdout)
	}
	chats := 0
	for _, req := range fake.Requests() {
		if req.Chat != nil {
			chats++
		}
	}
	if chats != 1 {
		t.Errorf("%d chat requests, want 1", chats)
	}
}

func TestAskRejectsABadToolPattern(t *testing.T) {
	t.Parallel()
	r := runCLI(t, context.Background(), "ask", "--servers", serversFile(t, "docs"), "--model", "m", "--allow-tools", "write_[", "hi")
	if r.code != exitUsage || !strings.Contains(r.err.Error(), `tool pattern "write_["`) {
		t.Errorf("code %d, err %v", r.code, r.err)
	}
}

func TestResumeKeepsNoExecute(t *testing.T) {
	t.Parallel()
	script, err := fakeollama.ParseScript([]byte(writeScript), "write.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, url := fakeOllama(t, script)
	suite, _ := writeSuite(t, ", allow_tools: [\"*\"]")
	dir := filepath.Join(t.TempDir(), "run")
	if r := runCLI(t, context.Background(), "run", suite, "--out", dir, "--ollama", url, "--no-execute"); r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	meta, err := record.ReadRun(dir)
	if err != nil || !meta.NoExecute {
		t.Fatalf("run.json no_execute = %v, err %v; want true", meta != nil && meta.NoExecute, err)
	}
	r := runCLI(t, context.Background(), "run", "--resume", dir, "--ollama", url, "--no-execute=false")
	if r.code != exitUsage || !strings.Contains(r.err.Error(), "--no-execute cannot change a resumed run") {
		t.Errorf("code %d, err %v", r.code, r.err)
	}
}
