package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/internal/author"
	"github.com/toolgrade/toolgrade/internal/suite"
)

// authorOllama serves the fake Ollama's author script.
func authorOllama(t *testing.T) (*fakeollama.Server, string) {
	t.Helper()
	s, err := fakeollama.LoadScript("../../fakes/ollama/testdata/author.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return fakeOllama(t, s)
}

// genLog reads a generation log.
func genLog(t *testing.T, path string) []author.Entry {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []author.Entry
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e author.Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("%s: %v\n%s", path, err, sc.Bytes())
		}
		out = append(out, e)
	}
	return out
}

// `cases generate` against the docs fake: each tool, the no_tool questions
// and the one confusable pair (at --confusable 0.3) are asked for; the
// duplicate is merged, the two bad drafts dropped with their reasons in the
// log, the reply that is not JSON reported; the draft runs unchanged.
func TestCasesGenerateDraftsTheDocsCatalog(t *testing.T) {
	t.Parallel()
	srv, url := authorOllama(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "drafted.yaml")
	cfg := serversFile(t, "docs")
	r := runCLI(t, context.Background(), "cases", "generate", "--servers", cfg, "--model", "scripted-author", "--ollama", url, "--confusable", "0.3", "-o", out)
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	for _, w := range []string{
		`toolgrade: warning: the tool list_documents: the reply is not the JSON asked for`, `"Sure! Here are some questions`,
		"toolgrade: 2 of 10 drafted questions dropped", "drafted.yaml.gen.jsonl) says why",
		"toolgrade: drafted 7 cases from 8 drafts (1 merged, 0 skipped) into " + out,
	} {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
		}
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, w := range []string{
		"# A draft suite: toolgrade cases generate asked the author model scripted-author (", "(temperature 0, seed 1)",
		"each request and reply is in drafted.yaml.gen.jsonl",
		"# drafted by author model scripted-author (", "drafted.yaml.gen.jsonl:3, :3\n",
		`also asked (1.00, 1 draft) as "Do you have vegan dishes on the menu"`,
		"written to tell get_document and list_documents apart: check it needs list_documents and not the other",
		"expect: {no_tool: true}", "ask: What is the capital of Australia?",
		"args: {name: menu.txt}",
	} {
		if !strings.Contains(text, w) {
			t.Errorf("draft lacks %q:\n%s", w, text)
		}
	}
	if n := strings.Count(text, "\n    review: true\n"); n != 7 {
		t.Errorf("%d cases marked for review, want 7:\n%s", n, text)
	}
	if strings.Contains(text, "five") || strings.Contains(text, "fetch_document") || strings.Contains(text, "may change things") {
		t.Errorf("a dropped draft, or a destructive mark on a read-only tool, is in the draft:\n%s", text)
	}
	checkGenLog(t, genLog(t, out+author.LogSuffix))
	for _, req := range srv.Requests() {
		if c := req.Chat; c != nil && (len(c.Format) == 0 || c.Options["temperature"] != float64(0) || c.Options["seed"] != float64(1)) {
			t.Errorf("a request without format, temperature 0 and seed 1: %s", req.Body)
		}
	}

	// The draft loads and runs as written; only the review marks are warned of.
	s, err := suite.Load(out, 0)
	if err != nil || s.AwaitingReview() != 7 {
		t.Fatalf("%v", err)
	}
	run := runCLI(t, context.Background(), "run", out, "--models", "scripted-runner", "--ollama", url, "--out", filepath.Join(dir, "run"))
	if run.err != nil && run.code != exitGate {
		t.Fatalf("run: code %d %v\n%s", run.code, run.err, run.stderr)
	}
	if !strings.Contains(run.stderr, "7 of 7 cases await review") {
		t.Errorf("run stderr:\n%s", run.stderr)
	}

	again := runCLI(t, context.Background(), "cases", "generate", "--servers", cfg, "--model", "scripted-author", "--ollama", url, "-o", out)
	if again.code != exitUsage || !strings.Contains(again.err.Error(), out+", "+out+".gen.jsonl already exist; ") {
		t.Errorf("a second generate into the same file: code %d %v", again.code, again.err)
	}
}

// checkGenLog: one line a request, in the catalog's order (get_document,
// list_documents, search), each with the model, its options and seed, the
// request sent and the reply, and what became of every question.
func checkGenLog(t *testing.T, log []author.Entry) {
	t.Helper()
	if len(log) != 5 {
		t.Fatalf("%d log lines, want 5 (3 tools, no_tool, 1 pair)", len(log))
	}
	kinds := ""
	for _, e := range log {
		kinds += string(e.Kind) + " "
		if e.Format != author.LogFormat || e.Model != "scripted-author" || e.Digest == "" || e.Seed != 1 || e.Request == nil || len(e.Request.Format) == 0 || e.Reply == "" {
			t.Errorf("log entry %+v", e)
		}
	}
	if kinds != "tool tool tool no_tool pair " {
		t.Errorf("kinds %q", kinds)
	}
	if d := log[2].Drafts; len(d) != 3 || d[0].Dropped != "" || !strings.Contains(d[2].Dropped, "its arguments do not validate against search's input schema") {
		t.Errorf("search drafts %+v", d)
	}
	if !strings.Contains(log[1].Error, "the reply is not the JSON asked for") || len(log[1].Drafts) != 0 {
		t.Errorf("list_documents entry %+v", log[1])
	}
	if d := log[4].Drafts; len(d) != 3 || d[2].Dropped != `it names the tool "fetch_document", which no server has` {
		t.Errorf("pair drafts %+v", d)
	}
}

// An author that fails over HTTP is retried, then an infrastructure error
// (exit 3): the log keeps each failed attempt, no draft is written.
func TestCasesGenerateAuthorDown(t *testing.T) {
	t.Parallel()
	_, url := authorOllama(t)
	out := filepath.Join(t.TempDir(), "d.yaml")
	r := runCLI(t, context.Background(), "cases", "generate", "--servers", serversFile(t, "docs"), "--model", "scripted-author-down", "--ollama", url, "-o", out)
	if r.code != exitInfra || !strings.Contains(r.err.Error(), "asking scripted-author-down for the tool get_document (3 attempts): 500 Internal Server Error") {
		t.Fatalf("code %d %v\n%s", r.code, r.err, r.stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a draft was written")
	}
	if log := genLog(t, out+author.LogSuffix); len(log) != author.Attempts || !strings.Contains(log[0].Error, "the request failed") || !strings.Contains(log[2].Error, "the request failed") {
		t.Errorf("log %+v", log)
	}
}

func TestCasesGenerateUsage(t *testing.T) {
	t.Parallel()
	cfg := serversFile(t, "docs")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--servers", cfg}, "cases generate: give --servers FILE and --model NAME, the author model"},
		{[]string{"--servers", cfg, "--model", "m", "--per-tool", "0"}, "--per-tool must be at least 1"},
		{[]string{"--servers", cfg, "--model", "m", "--confusable", "2"}, "--confusable 2: give a score from 0 to 1"},
		{[]string{"--servers", cfg, "--model", "m", "extra"}, `unexpected argument "extra"`},
	} {
		r := runCLI(t, context.Background(), append([]string{"cases", "generate"}, c.args...)...)
		if r.code != exitUsage || !strings.Contains(r.err.Error(), c.want) {
			t.Errorf("%v: code %d %v; want %q", c.args, r.code, r.err, c.want)
		}
	}
}

// Without -o the draft goes to stdout and no log is kept, which stderr says.
func TestCasesGenerateToStdout(t *testing.T) {
	_, url := authorOllama(t)
	t.Chdir(t.TempDir())
	r := runCLI(t, context.Background(), "cases", "generate", "--servers", serversFile(t, "docs"), "--model", "scripted-author", "--ollama", url, "--irrelevant", "0")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	if !strings.Contains(r.stdout, "no generation log was kept (it goes beside -o FILE)") || !strings.Contains(r.stdout, "\ncases:\n") ||
		!strings.Contains(r.stderr, "give -o FILE to keep a generation log that says why") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}
	if entries, _ := os.ReadDir("."); len(entries) != 0 {
		t.Errorf("files written: %v", entries)
	}
}
