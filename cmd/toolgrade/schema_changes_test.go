package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// twoDocsServers is a servers file with the docs fake twice, as "a" and "b":
// every tool name clashes.
func twoDocsServers(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	entry := map[string]any{"command": self, "args": []string{"fake-mcp", "docs"}, "env": selfEnv(mainEnv)}
	data, err := json.Marshal(map[string]any{"mcpServers": map[string]any{"a": entry, "b": entry}})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "servers.json")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestClashesAreLoud(t *testing.T) {
	t.Parallel()
	cfg := twoDocsServers(t)
	r := runCLI(t, context.Background(), "tools", "--servers", cfg)
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	want := `toolgrade: warning: tools "search" of servers a and b are exposed as a__search and b__search`
	if !strings.Contains(r.stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
	}

	_, url := fakeOllama(t, nil)
	dir := t.TempDir()
	suitePath := filepath.Join(dir, "s.yaml")
	os.WriteFile(suitePath, []byte("name: x\nservers: "+cfg+"\nmodels: [scripted-good]\ncases:\n  - id: a\n    ask: hi\n    expect: {tool: search}\n"), 0o644)
	r = runCLI(t, context.Background(), "run", suitePath, "--out", filepath.Join(dir, "out"), "--ollama", url)
	wantErr := suitePath + `:7:20: cases[0].expect.tool: unknown tool "search": two servers expose it; name one of a__search, b__search (or a.search)`
	if r.code != exitUsage || r.err == nil || !strings.Contains(r.err.Error(), wantErr) {
		t.Errorf("code %d, err %v\nwant %s", r.code, r.err, wantErr)
	}
}
