package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCountsAgreeWithTheirNouns: what run and tools print about a suite of
// one case, one model, one repeat and one server reads in the singular, and
// a kind of benign schema drop the tools do not have is not listed as (0).
func TestCountsAgreeWithTheirNouns(t *testing.T) {
	t.Parallel()
	_, url := fakeOllama(t, nil)
	cfg := serversFile(t, "docs")
	dir := t.TempDir()
	suitePath := filepath.Join(dir, "s.yaml")
	body := "name: one\nservers: " + cfg + "\nmodels: [scripted-good]\ncases:\n  - id: dog\n    ask: Can I bring my dog?\n    expect: {tool: search}\n"
	if err := os.WriteFile(suitePath, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, context.Background(), "run", suitePath, "--out", filepath.Join(dir, "run"), "--ollama", url, "--repeat", "1")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	for _, want := range []string{"toolgrade: running 1 case × 1 model × 1 repeat into ", ", 0 infra errors, "} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("run's stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if want := "scripted-good: 1 trial (0 infrastructure errors); "; !strings.Contains(r.stdout, want) {
		t.Errorf("run's report lacks %q:\n%s", want, r.stdout)
	}

	r = runCLI(t, context.Background(), "tools", "--servers", cfg)
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	if want := "note: 3 benign drops not listed: top-level additionalProperties: false (3 tools)\n"; !strings.Contains(r.stdout, want) {
		t.Errorf("tools lacks %q:\n%s", want, r.stdout)
	}
	if strings.Contains(r.stdout, "(0)") {
		t.Errorf("tools counts a kind of drop it does not have:\n%s", r.stdout)
	}
}
