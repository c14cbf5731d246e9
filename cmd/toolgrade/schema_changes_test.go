package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgrade/toolgrade/internal/servers"
)

func TestSchemaChangesRanked(t *testing.T) {
	tools := []servers.Tool{
		{Exposed: "a", Drops: []servers.Drop{
			{Path: "additionalProperties", Severity: servers.SeverityBenign},
			{Path: "properties.n.maximum", Severity: servers.SeverityBenign},
			{Path: "properties.s.minLength", Severity: servers.SeverityMinor},
		}},
		{Exposed: "b", Rewrites: []servers.Rewrite{{Path: "properties.p.oneOf", From: "oneOf", To: "anyOf"}, {Path: "allOf", From: "allOf", To: "merged"}},
			Drops: []servers.Drop{
				{Path: "additionalProperties", Severity: servers.SeverityBenign},
				{Path: "properties.o.required", Severity: servers.SeverityLost},
				{Path: "properties.t.default", Severity: servers.SeverityMinor},
				{Path: "properties.x.format", Severity: servers.SeverityLost},
			}},
	}
	var b strings.Builder
	printSchemaChanges(&b, tools)
	want := []string{
		"rewritten: b: properties.p.oneOf as anyOf, allOf merged (the same constraints in a form Ollama's tool format carries)",
		// Information lost comes first, though b is listed after a.
		"warning: b: information lost: Ollama's tool format drops properties.o.required, properties.x.format; the model never sees it, the validator still checks it",
		"warning: a: properties.s.minLength dropped by Ollama's tool format; the model never sees it",
		"warning: b: properties.t.default dropped by Ollama's tool format; the model never sees it",
		"note: 3 benign drops not listed: top-level additionalProperties: false (2 tools), integer bounds at ±(2^53−1), JavaScript's MAX_SAFE_INTEGER (1)",
	}
	if diff := cmp.Diff(want, strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")); diff != "" {
		t.Errorf("schema changes (-want +got):\n%s", diff)
	}
}

// twoDocsServers is a servers file with the docs fake twice, as "a" and "b":
// every tool name clashes.
func twoDocsServers(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	entry := map[string]any{"command": self, "args": []string{"fake-mcp", "docs"}, "env": map[string]string{mainEnv: "1"}}
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
