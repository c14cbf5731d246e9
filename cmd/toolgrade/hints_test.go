package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/record"
)

// TestSchemaHintsVariant runs the base and a schema_hints: description
// variant: the variant's recorded catalog carries the hints, the base's
// does not, and `tools --variant` shows them.
func TestSchemaHintsVariant(t *testing.T) {
	t.Parallel()
	_, url := fakeOllama(t, nil)
	suitePath, _ := variantsSuite(t)
	b, _ := os.ReadFile(suitePath)
	os.WriteFile(suitePath, []byte(strings.Replace(string(b), "variants:\n", "variants:\n  - {name: hints, schema_hints: description}\n", 1)), 0o644)
	dir := filepath.Join(t.TempDir(), "run")
	r := runCLI(t, context.Background(), "run", suitePath, "--out", dir, "--ollama", url, "--models", "scripted-good", "--variants", "base,hints")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	meta, err := record.ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	const hint = "Defaults to 3. Default: 3. Minimum: 1. Maximum: 20."
	if len(meta.Catalogs) != 2 || bytes.Contains(meta.Catalogs[0].Tools, []byte(hint)) || !bytes.Contains(meta.Catalogs[1].Tools, []byte(hint)) {
		t.Errorf("catalogs %+v", meta.Catalogs)
	}
	v := runCLI(t, context.Background(), "tools", "--suite", suitePath, "--variant", "hints", "--json")
	if v.err != nil || !strings.Contains(v.stdout, hint) {
		t.Errorf("tools --variant hints: %v\n%s", v.err, v.stdout)
	}
}
