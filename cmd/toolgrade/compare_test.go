package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/compare"
)

// The recorded pair of runs internal/compare's tests and goldens use.
const compareRuns = "../../internal/compare/testdata/"

func compareJSON(t *testing.T, args ...string) *compare.Comparison {
	t.Helper()
	r := runCLI(t, context.Background(), append([]string{"compare", "--json"}, args...)...)
	if r.err != nil || r.code != exitOK {
		t.Fatalf("code %d: %v\n%s", r.code, r.err, r.stderr)
	}
	var c compare.Comparison
	if err := json.Unmarshal([]byte(r.stdout), &c); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	if c.Format != compare.Format {
		t.Errorf("format %q", c.Format)
	}
	return &c
}

func TestCompareThreeModes(t *testing.T) {
	t.Parallel()
	base, cur := compareRuns+"base", compareRuns+"current"
	c := compareJSON(t, base, cur)
	if c.Mode != compare.ModeRuns || len(c.Groups) != 4 || len(c.Drift) != 4 || len(c.ChangedCases) != 1 {
		t.Errorf("runs: mode %s, %d groups, drift %+v, changed %v", c.Mode, len(c.Groups), c.Drift, c.ChangedCases)
	}
	// m · base regressed on b; n · base fixed c.
	if g := c.Groups[0]; g.Model != "m" || g.Variant != "" || g.Regressions != 1 || g.Cases[0].Case != "b" {
		t.Errorf("runs, m/base: %+v", g)
	}
	c = compareJSON(t, base, "--models", "m,n")
	if c.Mode != compare.ModeModels || c.Base != "m" || c.Current != "n" || len(c.Groups) != 2 || c.Groups[0].Cost.Current.Model.ParameterSize != "1.7B" {
		t.Errorf("models: %+v", c)
	}
	c = compareJSON(t, "--variants", "base,terse", base)
	if c.Mode != compare.ModeVariants || c.Current != "terse" || len(c.Groups) != 2 || len(c.Catalog) != 1 {
		t.Errorf("variants: %+v", c)
	}
	// The terminal report, through the command, with a verdict that would
	// fail a gate: still exit 0.
	r := runCLI(t, context.Background(), "compare", base, cur)
	if r.code != exitOK || !strings.Contains(r.stdout, "Regressions (1") || !strings.Contains(r.stdout, "ollama version: 0.12.0 → 0.13.0") {
		t.Errorf("terminal: code %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// A torn line of a trials file is a warning on stderr; the comparison goes on.
func TestCompareWarnsOfBadLines(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, f := range []string{"run.json", "trials.jsonl"} {
		b, err := os.ReadFile(filepath.Join(compareRuns+"base", f))
		if err != nil {
			t.Fatal(err)
		}
		if f == "trials.jsonl" {
			b = append(b, []byte("{\"model\":\"m\",\"case\":\"torn\n")...)
		}
		os.WriteFile(filepath.Join(dir, f), b, 0o644)
	}
	r := runCLI(t, context.Background(), "compare", compareRuns+"base", dir)
	if r.code != exitOK || !strings.Contains(r.stderr, "trials.jsonl:49: ") {
		t.Errorf("code %d, stderr:\n%s", r.code, r.stderr)
	}
}
