package main

import (
	"context"
	"encoding/json"
	"github.com/toolgrade/toolgrade/internal/draft"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/suite"
)

// recordTraffic runs `toolgrade serve --record` against the fake Ollama
// and the docs server, sends it each chat as an Ollama client would, stops
// it, and returns the record directory.
func recordTraffic(t *testing.T, ollama, servers string, chats []string) string {
	t.Helper()
	dir := t.TempDir()
	rec, addrFile := filepath.Join(dir, "rec"), filepath.Join(dir, "addr")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan result, 1)
	go func() {
		done <- runCLI(t, ctx, "serve", "--servers", servers, "--ollama", ollama, "--listen", "127.0.0.1:0", "--addr-file", addrFile, "--record", rec)
	}()
	var addr string
	for deadline := time.Now().Add(30 * time.Second); addr == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		b, _ := os.ReadFile(addrFile)
		addr = strings.TrimSpace(string(b))
	}
	if addr == "" {
		cancel()
		r := <-done
		t.Fatalf("serve did not start: %v\n%s", r.err, r.stderr)
	}
	for _, body := range chats {
		resp, err := http.Post("http://"+addr+"/api/chat", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("chat %s: %d %s", body, resp.StatusCode, b)
		}
	}
	cancel()
	if r := <-done; r.code != exitInterrupted {
		t.Fatalf("serve: code %d, err %v\n%s", r.code, r.err, r.stderr)
	}
	return rec
}

// chat is an /api/chat body: the restaurant's system prompt, then turns
// alternating user, assistant, user..., with think and options set.
func chat(model string, turns ...string) string {
	msgs := []map[string]string{{"role": "system", "content": "You answer questions about our restaurant."}}
	for i, c := range turns {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		msgs = append(msgs, map[string]string{"role": role, "content": c})
	}
	b, _ := json.Marshal(map[string]any{"model": model, "stream": false, "messages": msgs, "think": false,
		"options": map[string]any{"num_ctx": 8192, "temperature": 0, "seed": 7}})
	return string(b)
}

// TestCasesFromRecordedTrafficRunsAndPasses is the whole loop: real traffic
// through serve --record, a draft suite from it, that suite loaded and run
// against the same fake, every trial passing; then a draft from that run's
// own trials, which names the cases as the run did.
func TestCasesFromRecordedTrafficRunsAndPasses(t *testing.T) {
	t.Parallel()
	_, url := fakeOllama(t, nil)
	cfg := serversFile(t, "docs")
	rec := recordTraffic(t, url, cfg, []string{
		chat("scripted-good", "Can I bring my dog?"),
		chat("scripted-good", "can i bring my dog"),
		chat("scripted-good", "Can I bring my dogs?"),
		chat("scripted-good", "What documents can you search?"),
		chat("scripted-good", "What is the capital of France?"),
		chat("scripted-good", "Check the hours and the menu."),
		chat("scripted-good", "Find the dog policy, then open that document."),
		chat("scripted-good", "I'm planning a visit with my dog.", "Lovely! How can I help?", "Where can the dog sit?"),
		chat("scripted-good", "Show me faq.txt in full."),
		chat("scripted-weak", "Show me faq.txt in full."),
	})
	transcripts := filepath.Join(rec, record.TranscriptsFile)
	f, err := os.OpenFile(transcripts, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("{torn line\n")
	f.Close()

	out := filepath.Join(t.TempDir(), "suites", "traffic.yaml")
	os.MkdirAll(filepath.Dir(out), 0o755)
	r := runCLI(t, context.Background(), "cases", "from", rec, "-o", out, "--servers", cfg, "--name", "traffic")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	for _, w := range []string{
		transcripts + ":11: invalid character 't' looking for beginning of object key string (line skipped)",
		"drafted 7 cases from 10 conversations (3 merged, 0 skipped) into " + out,
	} {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
		}
	}
	text, _ := os.ReadFile(out)
	s, err := suite.Load(out, 0)
	if err != nil {
		t.Fatalf("the draft does not load: %v\n%s", err, text)
	}
	ids := make([]string, len(s.Cases))
	for i, c := range s.Cases {
		ids[i] = c.ID
	}
	wantIDs := []string{"can-i-bring-my-dog", "what-documents-can-you-search", "what-is-the-capital-of-france",
		"check-the-hours-and-the-menu", "find-the-dog-policy-then-open", "where-can-the-dog-sit", "show-me-faq-txt-in-full"}
	if !slices.Equal(ids, wantIDs) || s.Name != "traffic" || s.AwaitingReview() != len(wantIDs) || s.ServersPath != cfg ||
		s.Defaults.System != "You answer questions about our restaurant." || s.Defaults.Think != "false" || s.Defaults.NumCtx() != 8192 || !slices.Equal(s.Models, []string{"scripted-good", "scripted-weak"}) {
		t.Errorf("draft: ids %v, name %q, %d awaiting review, servers %q, defaults %+v, models %v\n%s",
			ids, s.Name, s.AwaitingReview(), s.ServersPath, s.Defaults, s.Models, text)
	}
	for _, w := range []string{
		"# 3 conversations (scripted-good ×3): " + transcripts + ":1, :2, :3\n",
		`# also asked (0.95, 1 conversation) as "Can I bring my dogs?"`,
		`# 1 of 2 conversations made other calls (scripted-weak): search({"query":"faq.txt"})`,
		"    expect: {no_tool: true}\n",
		"      any_order: true\n",
		"    review: true\n",
	} {
		if !strings.Contains(string(text), w) {
			t.Errorf("draft lacks %q:\n%s", w, text)
		}
	}

	runDir := filepath.Join(t.TempDir(), "run")
	r = runCLI(t, context.Background(), "run", out, "--models", "scripted-good", "--ollama", url, "--out", runDir)
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	if w := out + ": 7 of 7 cases await review (review: true)"; !strings.Contains(r.stderr, w) {
		t.Errorf("run does not warn %q:\n%s", w, r.stderr)
	}
	passed := 0
	if err := readTrials(runDir, os.Stderr, func(tr *record.Trial) {
		if tr.Score.Outcome == record.OutcomePass {
			passed++
		} else {
			t.Errorf("%s: %s %s", tr.CaseID, tr.Score.Outcome, tr.Score.Detail)
		}
	}); err != nil {
		t.Fatal(err)
	}
	if passed != len(wantIDs) {
		t.Errorf("%d trials passed, want %d", passed, len(wantIDs))
	}

	// The run's own trials draft the same cases, under the run's ids.
	again := filepath.Join(t.TempDir(), "again.yaml")
	r = runCLI(t, context.Background(), "cases", "from", runDir, "-o", again)
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	s2, err := suite.Load(again, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range s2.Cases {
		if i >= len(s.Cases) || c.ID != s.Cases[i].ID || c.Expect.FirstOnly != s.Cases[i].Expect.FirstOnly || len(c.Expect.Calls) != len(s.Cases[i].Expect.Calls) {
			t.Errorf("case %d drafted from the run: %+v, want like %+v", i, c, s.Cases[i])
		}
	}
	if len(s2.Cases) != len(s.Cases) || s2.ServersPath != "" {
		t.Errorf("%d cases drafted from the run, servers %q; want %d, none", len(s2.Cases), s2.ServersPath, len(s.Cases))
	}
}

func TestCasesFromToStdout(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tr := &record.Transcript{Model: "m", Messages: []record.Message{{Role: "user", Content: "Hello!"}},
		Rounds: []record.Round{{Index: 1, Request: record.Request{ToolsSent: true}, Response: record.Response{Content: "Hi."}}}}
	b, _ := json.Marshal(tr)
	os.WriteFile(filepath.Join(dir, record.TranscriptsFile), append(b, '\n'), 0o644)
	// Several inputs make one draft: the same question twice is one case.
	r := runCLI(t, context.Background(), "cases", "from", dir, filepath.Join(dir, record.TranscriptsFile))
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	s, err := suite.Parse([]byte(r.stdout), "draft.yaml")
	if err != nil || len(s.Cases) != 1 || s.Cases[0].ID != "hello" || !s.Cases[0].Expect.NoTool || !s.Cases[0].Review ||
		!strings.Contains(r.stdout, "# 2 conversations (m ×2): ") {
		t.Errorf("stdout is not the draft (%v):\n%s", err, r.stdout)
	}
	if !strings.Contains(r.stderr, "drafted 1 case from 2 conversations (1 merged, 0 skipped); every one awaits review") {
		t.Errorf("stderr: %s", r.stderr)
	}
}

func TestCasesFromUsage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	bad := filepath.Join(dir, "bad")
	os.Mkdir(bad, 0o755)
	os.WriteFile(filepath.Join(bad, record.TranscriptsFile), []byte("{\n"), 0o644)
	exists := filepath.Join(dir, "exists.yaml")
	os.WriteFile(exists, []byte("cases: []\n"), 0o644)
	missing := filepath.Join(dir, "missing")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"cases"}, "cases: give a subcommand: toolgrade cases from DIR..."},
		{[]string{"cases", "form", dir}, `cases: unknown subcommand "form"; the ones there are: toolgrade cases from DIR..., toolgrade cases generate --servers FILE --model NAME`},
		{[]string{"cases", "from"}, "cases from: give a serve --record directory, a run directory or a trials or transcripts file"},
		{[]string{"cases", "from", missing}, "cases from: cannot read " + missing + ": no such file or directory"},
		{[]string{"cases", "from", empty}, "cases from: " + empty + " holds neither transcripts.jsonl (serve --record) nor trials.jsonl (a run)"},
		{[]string{"cases", "from", bad}, "cases from: no case to draft: 0 conversations read, 0 skipped"},
		{[]string{"cases", "from", bad, "-o", exists}, "cases from: -o " + exists + " exists; a draft never replaces a suite someone may have reviewed"},
		{[]string{"cases", "from", bad, "--min-similarity", "0"}, "cases from: --min-similarity 0: must be above 0 and at most 1"},
		{[]string{"cases", "from", bad, "--min-similarity", "1.5"}, "cases from: --min-similarity 1.5: must be above 0 and at most 1"},
		{[]string{"cases", "from", bad, "--servers", missing}, "cases from: --servers " + missing + ": no such file or directory"},
		{[]string{"cases", "from", "--bogus", bad}, "cases from: unknown flag --bogus (toolgrade cases from -h lists every flag)"},
	} {
		r := runCLI(t, context.Background(), c.args...)
		if r.code != exitUsage || r.err == nil || !strings.Contains(r.err.Error(), c.want) {
			t.Errorf("%v: code %d, err %v; want %d, %q", c.args, r.code, r.err, exitUsage, c.want)
		}
	}
	r := runCLI(t, context.Background(), "cases", "from", bad)
	if w := filepath.Join(bad, record.TranscriptsFile) + ":1: unexpected end of JSON input (line skipped)"; !strings.Contains(r.stderr, w) {
		t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
	}
	for _, args := range [][]string{{"cases", "-h"}, {"cases", "from", "-h"}} {
		if r := runCLI(t, context.Background(), args...); r.code != exitOK || !strings.Contains(r.stderr, "Usage: toolgrade cases from [flags] DIR...") {
			t.Errorf("%v: code %d\n%s", args, r.code, r.stderr)
		}
	}
}

// TestCasesFromServersPath: a relative --servers is written relative to the
// draft's folder, so the suite finds it from there; an absolute one as given.
func TestCasesFromServersPath(t *testing.T) {
	t.Chdir(t.TempDir())
	os.MkdirAll("cases/servers", 0o755)
	os.MkdirAll("drafts", 0o755)
	os.WriteFile("cases/servers/docs.json", []byte(`{"mcpServers": {}}`), 0o644)
	abs, _ := filepath.Abs("cases/servers/docs.json")
	for _, c := range []struct{ servers, out, want string }{
		{"cases/servers/docs.json", "drafts/t.yaml", "../cases/servers/docs.json"},
		{"cases/servers/docs.json", "cases/t.yaml", "servers/docs.json"},
		{"cases/servers/docs.json", "", "cases/servers/docs.json"},
		{abs, "drafts/t.yaml", abs},
	} {
		got, err := draft.ServersRef(c.servers, c.out)
		if err != nil || got != c.want {
			t.Errorf("ServersRef(%q, %q) = %q, %v; want %q", c.servers, c.out, got, err, c.want)
		}
	}
}
