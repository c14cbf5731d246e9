package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/author"
	"github.com/toolgrade/toolgrade/internal/initdir"
	"github.com/toolgrade/toolgrade/internal/suite"
)

// init without --model: the servers file copied, a starter suite of one
// commented case per tool with its real parameters, which does not load
// until a question is written, saying so at its file:line:col; once a case
// is uncommented and asked, it loads and runs.
func TestInitWritesAStarterSuiteThatWaitsForQuestions(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "eval")
	r := runCLI(t, context.Background(), "init", "--servers", serversFile(t, "docs"), "-o", dir)
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	suitePath, serversPath := filepath.Join(dir, "suite.yaml"), filepath.Join(dir, "servers.json")
	for _, w := range []string{"wrote " + serversPath + " and " + suitePath, "toolgrade tools --servers " + serversPath,
		"toolgrade cases generate --servers " + serversPath + " --model MODEL", "toolgrade run " + suitePath + " --models MODEL"} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("stdout lacks %q:\n%s", w, r.stdout)
		}
	}
	data, _ := os.ReadFile(suitePath)
	text := string(data)
	for _, w := range []string{
		"  # - id: search\n", "  #   ask:  # a question that needs search: Search the restaurant's documents",
		"  #     tool: search\n", `  #       query: ""  # string, required: Words to look for`,
		"  #       top_k: 0  # integer, optional: Maximum number of matching lines",
		"  # - id: list-documents\n", "  #     # (it takes no arguments)\n", "servers: servers.json\n", "\n  []\n",
	} {
		if !strings.Contains(text, w) {
			t.Errorf("starter suite lacks %q:\n%s", w, text)
		}
	}
	_, err := suite.Load(suitePath, 0)
	if err == nil || !regexp.MustCompile(regexp.QuoteMeta(suitePath)+`:\d+:3: cases: no case yet: write a question for at least one case: see the commented examples`).MatchString(err.Error()) {
		t.Fatalf("the starter suite loads, or says the wrong thing: %v", err)
	}
	run := runCLI(t, context.Background(), "run", suitePath, "--models", "scripted-good")
	if run.code != exitUsage || !strings.Contains(run.err.Error(), "write a question for at least one case") {
		t.Errorf("run of the starter suite: code %d %v", run.code, run.err)
	}

	// Uncomment the search example and write its question: it runs.
	var edited []string
	in := false
	for _, l := range strings.Split(text, "\n") {
		switch {
		case l == "  # - id: search":
			in = true
		case in && (l == "  #" || !strings.HasPrefix(l, "  #")):
			in = false
		}
		switch {
		case in && strings.HasPrefix(l, "  #   ask:"):
			l = "    ask: Do you have vegan dishes?"
		case in && strings.Contains(l, "top_k"):
			continue
		case in && strings.Contains(l, "query:"):
			l = "        query: vegan"
		case in:
			l = "  " + strings.TrimPrefix(l, "  # ")
		case l == "  []":
			continue
		}
		edited = append(edited, l)
	}
	if err := os.WriteFile(suitePath, []byte(strings.Join(edited, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := suite.Load(suitePath, 0)
	if err != nil || len(s.Cases) != 1 || s.Cases[0].ID != "search" {
		t.Fatalf("the edited starter: %v\n%s", err, strings.Join(edited, "\n"))
	}
	_, url := authorOllama(t)
	if run := runCLI(t, context.Background(), "run", suitePath, "--models", "scripted-runner", "--ollama", url, "--out", filepath.Join(dir, "run")); run.err != nil {
		t.Errorf("run of the edited starter: %v\n%s", run.err, run.stderr)
	}
}

// --from-claude-desktop reads the app's config where it keeps it (HOME is
// a temp folder here), copies only its mcpServers, warns of the env it
// copies, and a second init writes nothing and lists what is in the way.
func TestInitFromClaudeDesktop(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("APPDATA", "")
	cfgPath := initdir.ClaudeDesktopConfig(runtime.GOOS, home, os.Getenv)
	var docs map[string]map[string]any
	b, _ := os.ReadFile(serversFile(t, "docs"))
	json.Unmarshal(b, &docs)
	entry := docs["mcpServers"]["docs"].(map[string]any)
	claude, _ := json.Marshal(map[string]any{"globalShortcut": "Ctrl+Space", "mcpServers": map[string]any{"docs": entry}})
	dir := t.TempDir()

	missing := runCLI(t, context.Background(), "init", "--from-claude-desktop", "-o", dir)
	if missing.code != exitUsage || !strings.Contains(missing.err.Error(), "init: no Claude Desktop config at "+cfgPath+": give --servers FILE, an mcpServers file, instead") {
		t.Errorf("no Claude config: code %d %v", missing.code, missing.err)
	}
	os.MkdirAll(filepath.Dir(cfgPath), 0o755)
	if err := os.WriteFile(cfgPath, claude, 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, context.Background(), "init", "--from-claude-desktop", "-o", dir)
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	written, _ := os.ReadFile(filepath.Join(dir, "servers.json"))
	if strings.Contains(string(written), "globalShortcut") || !strings.Contains(string(written), `"mcpServers": {`) || !strings.Contains(string(written), "fake-mcp") {
		t.Errorf("servers.json:\n%s", written)
	}
	if !strings.Contains(r.stdout, "copies the env or headers of docs, which may hold credentials") {
		t.Errorf("stdout:\n%s", r.stdout)
	}
	before, _ := os.ReadFile(filepath.Join(dir, "suite.yaml"))
	again := runCLI(t, context.Background(), "init", "--from-claude-desktop", "-o", dir)
	want := filepath.Join(dir, "servers.json") + ", " + filepath.Join(dir, "suite.yaml") + " already exist; nothing was written"
	if again.code != exitUsage || !strings.Contains(again.err.Error(), want) {
		t.Errorf("second init: code %d %v", again.code, again.err)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "suite.yaml")); string(after) != string(before) {
		t.Error("the suite was replaced")
	}
	for _, args := range [][]string{{"init"}, {"init", "--from-claude-desktop", "--servers", cfgPath}} {
		if r := runCLI(t, context.Background(), args...); r.code != exitUsage || !strings.Contains(r.err.Error(), "give one of --servers FILE (an mcpServers file) and --from-claude-desktop") {
			t.Errorf("%v: code %d %v", args, r.code, r.err)
		}
	}
}

// init --model and cases generate against the real filesystem server: the
// author's cases are checked against its schemas, write_file is marked as a
// tool that may change things, and the drafts run as written.
func TestInitAndGenerateOnTheFilesystemServer(t *testing.T) {
	t.Parallel()
	_, url := authorOllama(t)
	cfg := serversFile(t, "fs")
	dir := t.TempDir()
	r := runCLI(t, context.Background(), "init", "--servers", cfg, "--model", "scripted-author", "--ollama", url, "-o", dir)
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	suitePath := filepath.Join(dir, "suite.yaml")
	data, _ := os.ReadFile(suitePath)
	text := string(data)
	for _, w := range []string{
		"asked the author model scripted-author", "ask: What does service.conf say the database host is?",
		"args: {path: service.conf}", "write_file may change things (nothing ran while drafting): it is marked destructive (destructiveHint)",
		"written to tell read_file and read_text_file apart", "servers: servers.json\n",
	} {
		if !strings.Contains(text, w) {
			t.Errorf("drafted suite lacks %q:\n%s", w, text)
		}
	}
	if _, err := os.Stat(suitePath + author.LogSuffix); err != nil {
		t.Error(err)
	}
	if !strings.Contains(r.stdout, "review each drafted case") || !strings.Contains(r.stdout, "--models scripted-author") {
		t.Errorf("stdout:\n%s", r.stdout)
	}
	run := runCLI(t, context.Background(), "run", suitePath, "--models", "scripted-runner", "--ollama", url, "--out", filepath.Join(dir, "run"))
	if run.err != nil && run.code != exitGate {
		t.Fatalf("run: code %d %v\n%s", run.code, run.err, run.stderr)
	}

	out := filepath.Join(dir, "more.yaml")
	g := runCLI(t, context.Background(), "cases", "generate", "--servers", cfg, "--model", "scripted-author", "--ollama", url, "--irrelevant", "0", "-o", out)
	if g.err != nil {
		t.Fatalf("%v\n%s", g.err, g.stderr)
	}
	if s, err := suite.Load(out, 0); err != nil || len(s.Cases) != 3 {
		t.Errorf("generated on the filesystem server: %v", err)
	}
}
