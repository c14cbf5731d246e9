package main

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/record"
)

// toolgradeOnPath checks that `toolgrade` is on PATH: this test binary,
// which TestMain (testscript.Main) puts there, so a servers file written as
// a user writes it (`"command": "toolgrade"`) starts the fakes. It sets
// nothing, so a test that calls it may run in parallel.
func toolgradeOnPath(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("toolgrade"); err != nil {
		t.Fatalf("toolgrade is not on PATH, where TestMain puts this test binary: %v", err)
	}
}

// TestClaudeDesktopConfigWorks: a real claude_desktop_config.json, with
// Claude Desktop's own settings and a disabled server, is read with one
// warning; the disabled server is not started and is not called a failure.
func TestClaudeDesktopConfigWorks(t *testing.T) {
	t.Parallel()
	toolgradeOnPath(t)
	r := runCLI(t, context.Background(), "tools", "--servers", "../../internal/serversfile/testdata/claude_desktop_config.json")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	if !strings.Contains(r.stdout, "search") {
		t.Errorf("the docs server's tools are missing:\n%s", r.stdout)
	}
	if n := strings.Count(r.stderr, "toolgrade: warning: "); n != 1 ||
		!strings.Contains(r.stderr, "ignoring top-level keys other than mcpServers: globalShortcut, preferences, theme") {
		t.Errorf("want one warning about the ignored keys; stderr:\n%s", r.stderr)
	}
	if !strings.Contains(r.stderr, `server "filesystem" is disabled`) || strings.Contains(r.stderr, "skipped") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
}

// TestRunKeepsURLSecretsOutOfEveryOutput: a remote server that fails, reached
// with a key in its query string and a password in its userinfo, and an
// Ollama URL with a password: no message and no file of the run holds them.
func TestRunKeepsURLSecretsOutOfEveryOutput(t *testing.T) {
	t.Parallel()
	_, base := fakeOllama(t, nil)
	u, _ := url.Parse(base)
	u.User = url.UserPassword("me", "SECRET-OLLAMA")
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := ln.Addr().String()
	ln.Close()
	dir := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	servers := filepath.Join(dir, "servers.json")
	src := fmt.Sprintf(`{"mcpServers": {
  "docs": {"command": %q, "args": ["fake-mcp", "docs"], "env": {%q: "1", "GORACE": %q}},
  "remote": {"url": "http://%s/mcp?api_key=SECRET-QUERY"},
  "auth": {"url": "http://me:SECRET-USERINFO@%s/mcp"}
}}`, self, mainEnv, raceQuickExit(), closed, closed)
	if err := os.WriteFile(servers, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	suite := docsSuite(t)
	b, _ := os.ReadFile(suite)
	text := strings.Replace(string(b), "servers: ", "servers: "+servers+" #", 1)
	if err := os.WriteFile(suite, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "run")
	r := runCLI(t, context.Background(), "run", suite, "--out", out, "--ollama", u.String(), "--models", "scripted-good")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	if !strings.Contains(r.stderr, `server "remote" skipped`) || !strings.Contains(r.stderr, "api_key=xxxxx") {
		t.Errorf("stderr lacks the redacted skipped-server message:\n%s", r.stderr)
	}
	texts := map[string]string{"stdout": r.stdout, "stderr": r.stderr}
	for _, f := range []string{record.RunFile, record.TrialsFile, record.SummaryFile} {
		b, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		texts[f] = string(b)
	}
	if !strings.Contains(texts[record.RunFile], "me:xxxxx@") {
		t.Errorf("run.json does not show the Ollama URL masked:\n%s", texts[record.RunFile])
	}
	for name, text := range texts {
		if strings.Contains(text, "SECRET") {
			t.Errorf("%s holds a secret:\n%s", name, text)
		}
	}
}

func TestEveryServerDisabledSaysSo(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "servers.json")
	os.WriteFile(p, []byte(`{"mcpServers": {"fs": {"command": "npx", "disabled": true}}}`), 0o644)
	r := runCLI(t, context.Background(), "tools", "--servers", p)
	if r.code != exitInfra || r.err == nil || !strings.Contains(r.err.Error(), "every server in "+p+" is disabled") {
		t.Errorf("code %d, err %v", r.code, r.err)
	}
}
