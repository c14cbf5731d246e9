package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/internal/compare"
	"github.com/toolgrade/toolgrade/internal/metric"
)

// marginScript plays three models on eleven questions, q1 to q11: twin-a
// and twin-b answer every one alike (the right tool), weak picks the wrong
// tool on q1 and q2.
const marginScript = `
models:
  - {name: twin-a}
  - {name: twin-b}
  - {name: weak, parameter_size: 1.7B}
rules:
  - model: weak
    user: {regex: "^Question (1|2)\\?$"}
    reply: {tool_calls: [{name: other, arguments: {}}]}
  - user: {contains: Question}
    reply: {tool_calls: [{name: lookup, arguments: {}}]}
`

// marginRun runs the eleven cases on the three models, repeat times each,
// with the suite's margin: of 5 points, and returns the run directory.
func marginRun(t *testing.T, repeat int) string {
	t.Helper()
	script, err := fakeollama.ParseScript([]byte(marginScript), "margin.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, url := fakeOllama(t, script)
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("name: margin\nmodels: [twin-a, twin-b, weak]\nmargin: 5pts\ndefaults: {execute: false}\ncases:\n")
	for i := 1; i <= 11; i++ {
		fmt.Fprintf(&b, "  - id: q%02d\n    ask: \"Question %d?\"\n    tools: [{name: lookup, description: Look it up., parameters: {type: object, properties: {}}}, {name: other, description: Something else., parameters: {type: object, properties: {}}}]\n    expect: {tool: lookup}\n", i, i)
	}
	suite := filepath.Join(dir, "suite.yaml")
	if err := os.WriteFile(suite, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "run")
	r := runCLI(t, context.Background(), "run", suite, "--out", out, "--ollama", url, "--repeat", fmt.Sprint(repeat))
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	return out
}

// passMargin compares two models of dir as JSON and returns the pass rate's
// non-inferiority.
func passMargin(t *testing.T, dir, models string, extra ...string) *compare.NonInferiority {
	t.Helper()
	c := compareJSON(t, append([]string{dir, "--models", models}, extra...)...)
	ni := c.Groups[0].Rate(metric.Pass).NonInferiority
	if ni == nil {
		t.Fatalf("compare %s --models %s: no non-inferiority verdict", dir, models)
	}
	return ni
}

// The "done when", through `toolgrade run` on the fake Ollama and
// `toolgrade compare`: two models that behave alike on every case are, with
// 7 repeats (77 pairs), not worse by more than 5 points; a model that fails
// 2 of the 11 cases more is worse by more than 5; with one repeat (11
// pairs) the verdict is undecided and says how many pairs would do. The
// margin comes from the suite's margin:, and the gate says the same.
func TestMarginVerdictsEndToEnd(t *testing.T) {
	many := marginRun(t, 7)
	if ni := passMargin(t, many, "twin-a,twin-b"); ni.Verdict != "not_worse" || ni.Pairs != 77 || ni.Words != "not worse by more than 5 pts" || ni.Lo <= -0.05 {
		t.Errorf("identical models, 77 pairs: %+v", ni)
	}
	if ni := passMargin(t, many, "twin-a,weak"); ni.Verdict != "worse" || ni.Hi >= -0.05 || ni.Diff != -14.0/77 {
		t.Errorf("2 of 11 cases worse: %+v", ni)
	}
	few := marginRun(t, 1)
	ni := passMargin(t, few, "twin-a,twin-b")
	if ni.Verdict != "undecided" || ni.Pairs != 11 || ni.PairsNeeded != 73 {
		t.Errorf("identical models, 11 pairs: %+v", ni)
	}
	// --margin overrides the suite's: at 30 points 11 identical pairs do.
	if ni := passMargin(t, few, "twin-a,twin-b", "--margin", "30%"); ni.Verdict != "not_worse" || ni.Margin != 0.3 {
		t.Errorf("--margin 30%%: %+v", ni)
	}

	// The terminal says it in words, with the pairs an undecided verdict needs.
	r := runCLI(t, context.Background(), "compare", few, "--models", "twin-a,twin-b")
	if r.err != nil || !strings.Contains(r.stdout, "│ pass ") || !strings.Contains(r.stdout, "undecided: need more cases (~73 pairs)") {
		t.Errorf("terminal: %v\n%s", r.err, r.stdout)
	}
	// The gate: held on the twins (exit 0), failed on the weak model (exit 4).
	r = runCLI(t, context.Background(), "compare", many, "--models", "twin-a,twin-b", "--gate", "noninferior(pass, 5pts)")
	if r.code != 0 || !strings.Contains(r.stderr, "gate held: twin-b vs twin-a pass within 5 pts: +0.0 pts [-4.8, +4.8] over 77 pairs: not worse by more than 5 pts") {
		t.Errorf("twins' gate: exit %d\n%s", r.code, r.stderr)
	}
	r = runCLI(t, context.Background(), "compare", many, "--models", "twin-a,weak", "--gate", "noninferior(pass, 5pts)")
	if r.code != 4 || !strings.Contains(r.stderr, "gate failed: weak vs twin-a pass within 5 pts: -18.2 pts [") || !strings.Contains(r.stderr, "over 77 pairs: worse by more than 5 pts") {
		t.Errorf("weak's gate: exit %d\n%s", r.code, r.stderr)
	}

	// plan reads the pilot: 73 identical pairs decide 5 points; 11 decide 26.
	r = runCLI(t, context.Background(), "plan", few, "--models", "twin-a,twin-b", "--json")
	var p compare.Plan
	if r.err != nil || json.Unmarshal([]byte(r.stdout), &p) != nil || len(p.Rows) == 0 {
		t.Fatalf("plan: %v\n%s%s", r.err, r.stdout, r.stderr)
	}
	if row := p.Rows[0]; row.Metric != metric.Pass || row.PairsNeeded != 73 || row.Pairs != 11 || p.Margin != 0.05 || *row.SmallestMargin < 0.25 || *row.SmallestMargin > 0.27 {
		t.Errorf("plan row %+v (margin %v)", row, p.Margin)
	}
}

// --margin judges every rate of every group in all three modes, two runs
// included; a bad value is one line, exit 2; a run's --gate refuses a
// noninferior gate before anything runs.
func TestMarginInEveryMode(t *testing.T) {
	base, cur := compareRuns+"base", compareRuns+"current"
	for _, args := range [][]string{{base, cur}, {base, "--models", "m,n"}, {base, "--variants", "base,terse"}} {
		c := compareJSON(t, append(args, "--margin", "0.1")...)
		if c.Margin != 0.1 {
			t.Errorf("%v: margin %v", args, c.Margin)
		}
		for _, g := range c.Groups {
			if ni := g.Rate(metric.Pass).NonInferiority; ni == nil || ni.Margin != 0.1 || ni.Pairs != g.Rate(metric.Pass).Rate.Base.N {
				t.Errorf("%v, %s/%s: pass %+v", args, g.Model, g.Variant, ni)
			}
		}
	}
	for _, tt := range []struct{ args []string }{
		{[]string{"compare", base, "--models", "m,n", "--margin", "5"}},
		{[]string{"compare", base, "--models", "m,n", "--gate", "noninferior(pass, 5)"}},
		{[]string{"report", base, "--gate", "noninferior(pass, 5pts)"}},
		{[]string{"plan", base, "--models", "m,n", "--margin", "5pts", "--power", "2"}},
	} {
		r := runCLI(t, context.Background(), tt.args...)
		if r.code != 2 || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, want 2 and one line:\n%s", tt.args, r.code, r.stderr)
		}
	}
}
