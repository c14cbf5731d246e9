package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgrade/toolgrade/internal/record"
)

// overrideSuite is a suite of two cases whose servers file does not exist,
// so that a run only works when --servers replaces it.
func overrideSuite(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "s.yaml")
	text := `name: s
servers: no-such-servers.json
models: [scripted-good]
defaults:
  options: {temperature: 0, seed: 42}
cases:
  - id: dog
    ask: "Can I bring my dog?"
    expect: {tool: search}
  - id: own-rounds
    max_rounds: 3
    ask: "What is the capital of France?"
    expect: {no_tool: true}
`
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRunFlagsOverrideTheSuiteAndResumeAppliesThemAgain(t *testing.T) {
	t.Parallel()
	fake, url := fakeOllama(t, nil)
	dir := filepath.Join(t.TempDir(), "run")
	servers := serversFile(t, "docs")
	r := runCLI(t, context.Background(), "run", overrideSuite(t), "--out", dir, "--ollama", url, "--servers", servers,
		"--system", "Be brief.", "--max-rounds", "1", "--think", "false", "--keep-alive", "10m", "-o", "temperature=0.5", "-o", "seed=7")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	checkRequests := func(when string) {
		t.Helper()
		n := 0
		for _, req := range fake.Requests() {
			c := req.Chat
			if c == nil || len(c.Messages) == 0 {
				continue // warm-ups and unloads
			}
			n++
			if c.Messages[0].Role != "system" || c.Messages[0].Content != "Be brief." {
				t.Errorf("%s: first message %+v", when, c.Messages[0])
			}
			if c.Think == nil || c.Think.Value != false || c.KeepAlive == nil || c.KeepAlive.Duration != 10*time.Minute {
				t.Errorf("%s: think %v keep_alive %v", when, c.Think, c.KeepAlive)
			}
			if c.Options["temperature"] != 0.5 || c.Options["seed"] != float64(7) {
				t.Errorf("%s: options %v", when, c.Options)
			}
		}
		if n == 0 {
			t.Errorf("%s: no chat requests", when)
		}
	}
	checkRound := func(when string) {
		t.Helper()
		n := 0
		readTrials(dir, os.Stderr, func(tr *record.Trial) {
			n++
			if tr.Transcript.MaxRounds != 1 {
				t.Errorf("%s: %s ran with max_rounds %d, want 1", when, tr.CaseID, tr.Transcript.MaxRounds)
			}
		})
		if n != 2 {
			t.Errorf("%s: %d trials", when, n)
		}
	}
	checkRequests("run")
	checkRound("run")
	meta, err := record.ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	ov := meta.Overrides
	if meta.MaxRounds != 1 || meta.Think != "false" || meta.BaseSeed != 7 || meta.Options["temperature"] != 0.5 ||
		ov == nil || ov.Servers != servers || ov.System == nil || *ov.System != "Be brief." || ov.KeepAlive != "10m" ||
		strings.Join(ov.Options, " ") != "temperature=0.5 seed=7" {
		t.Errorf("run.json does not record the effective settings: %+v overrides %+v", meta, ov)
	}

	// A resumed run applies the recorded overrides again: drop the trials,
	// resume, and the new requests are the same.
	if err := os.WriteFile(filepath.Join(dir, record.TrialsFile), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	fake.Reset()
	r = runCLI(t, context.Background(), "run", "--resume", dir, "--ollama", url)
	if r.err != nil {
		t.Fatalf("resume: %v\n%s", r.err, r.stderr)
	}
	checkRequests("resume")
	checkRound("resume")

	r = runCLI(t, context.Background(), "run", "--resume", dir, "--ollama", url, "--system", "Other.", "-o", "seed=1")
	if r.code != exitUsage || !strings.Contains(r.err.Error(), "-o, --system cannot change a resumed run") {
		t.Errorf("resume with overrides: code %d, err %v", r.code, r.err)
	}
}

func TestRunWithoutOverridesKeepsTheSuitesSettings(t *testing.T) {
	t.Parallel()
	fake, url := fakeOllama(t, nil)
	dir := filepath.Join(t.TempDir(), "run")
	r := runCLI(t, context.Background(), "run", docsSuite(t), "--out", dir, "--ollama", url, "--models", "scripted-good")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	meta, _ := record.ReadRun(dir)
	if meta.Overrides != nil || meta.MaxRounds != 4 || meta.BaseSeed != 42 {
		t.Errorf("run.json: %+v", meta)
	}
	for _, req := range fake.Requests() {
		if c := req.Chat; c != nil && len(c.Messages) > 0 && !strings.HasPrefix(c.Messages[0].Content, "You answer questions about our restaurant.") {
			t.Fatalf("system prompt %q", c.Messages[0].Content)
		}
	}
}

func TestRunRejectsBadOverridesBeforeAnyWork(t *testing.T) {
	t.Parallel()
	fake, url := fakeOllama(t, nil)
	suite := docsSuite(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--max-rounds", "0"}, "--max-rounds 0: must be from 1 to 100"},
		{[]string{"--think", "maybe"}, `--think "maybe"`},
		{[]string{"--keep-alive", "soon"}, `--keep_alive "soon"`},
		{[]string{"-o", "temperature"}, `"temperature": want key=value`},
		{[]string{"--servers", filepath.Join(t.TempDir(), "none.json")}, "none.json"},
		{[]string{"--servers", ""}, "--servers needs a file"},
	} {
		args := append([]string{"run", suite, "--out", filepath.Join(t.TempDir(), "run"), "--ollama", url}, tc.args...)
		r := runCLI(t, context.Background(), args...)
		if r.code != exitUsage || !strings.Contains(r.err.Error(), tc.want) {
			t.Errorf("%v: code %d, err %v, want %q", tc.args, r.code, r.err, tc.want)
		}
	}
	for _, req := range fake.Requests() {
		if req.Chat != nil {
			t.Errorf("a chat request was sent for bad flags: %s", req.Body)
		}
	}
}
