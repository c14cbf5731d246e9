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

// marginScript plays three models on questions q001 to q100: twin-a and
// twin-b answer every one alike (the right tool), weak picks the wrong
// tool on the first 40. Each answers a question the same way every
// repeat, as a model at temperature 0 does.
const marginScript = `
models:
  - {name: twin-a}
  - {name: twin-b}
  - {name: weak, parameter_size: 1.7B}
rules:
  - model: weak
    user: {regex: "^Question ([1-9]|[1-3][0-9]|40)\\?$"}
    reply: {tool_calls: [{name: other, arguments: {}}]}
  - user: {contains: Question}
    reply: {tool_calls: [{name: lookup, arguments: {}}]}
`

// marginRun runs cases cases on the three models, repeat times each, with
// the suite's margin: of 5 points, and returns the run directory.
func marginRun(t *testing.T, cases, repeat int) string {
	t.Helper()
	script, err := fakeollama.ParseScript([]byte(marginScript), "margin.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, url := fakeOllama(t, script)
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("name: margin\nmodels: [twin-a, twin-b, weak]\nmargin: 5pts\ndefaults: {execute: false}\ncases:\n")
	for i := 1; i <= cases; i++ {
		fmt.Fprintf(&b, "  - id: q%03d\n    ask: \"Question %d?\"\n    tools: [{name: lookup, description: Look it up., parameters: {type: object, properties: {}}}, {name: other, description: Something else., parameters: {type: object, properties: {}}}]\n    expect: {tool: lookup}\n", i, i)
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

// Issue 29's "done when", through `toolgrade run` on the fake Ollama and
// `toolgrade compare`: a case is the unit of evidence. 11 cases × 10
// repeats of two models that behave alike are undecided at 5 points, and
// what would decide is more cases, not repeats; 100 cases on which they
// behave alike show "not worse by more than 5 pts"; a model that fails 40
// of the 100 cases more is worse by more than 5. The margin comes from the
// suite's margin:, and the gate and plan say the same.
func TestMarginVerdictsEndToEnd(t *testing.T) {
	t.Parallel()
	many := marginRun(t, 100, 2)
	if ni := passMargin(t, many, "twin-a,twin-b"); ni.Verdict != "not_worse" || ni.Pairs != 200 || ni.Evidence.Cases != 100 ||
		ni.Words != "not worse by more than 5 pts" || ni.Lo <= -0.05 {
		t.Errorf("identical models, 100 cases: %+v", ni)
	}
	if ni := passMargin(t, many, "twin-a,weak"); ni.Verdict != "worse" || ni.Hi >= -0.05 || ni.Diff != -0.4 {
		t.Errorf("40 of 100 cases worse: %+v", ni)
	}
	few := marginRun(t, 11, 10)
	ni := passMargin(t, few, "twin-a,twin-b")
	if ni.Verdict != "undecided" || ni.Pairs != 110 || ni.CasesNeeded != 73 || ni.Evidence.String() != "11 cases (110 trials, repeats agree on 11 of 11 cases)" {
		t.Errorf("identical models, 11 cases × 10 repeats: %+v", ni)
	}
	// --margin overrides the suite's: at 30 points 11 identical cases do.
	if ni := passMargin(t, few, "twin-a,twin-b", "--margin", "30%"); ni.Verdict != "not_worse" || ni.Margin != 0.3 {
		t.Errorf("--margin 30%%: %+v", ni)
	}

	// The terminal says it in words: the evidence, and the cases (not
	// repeats) an undecided verdict needs.
	r := runCLI(t, context.Background(), "compare", few, "--models", "twin-a,twin-b")
	for _, want := range []string{"│ pass ", "11 cases (110 trials, repeats agree on 11 of 11 cases); 110 pairs",
		"undecided: need more cases (~73 cases, 62 more)",
		"pass, selection, arg_validity, arg_accuracy, round_limit (lower is better), failed_call (lower is better): repeats agree on every case (as at temperature 0), so more repeats add nothing: write about 62 more cases"} {
		if r.err != nil || !strings.Contains(r.stdout, want) {
			t.Errorf("terminal lacks %q: %v\n%s", want, r.err, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "--repeat") {
		t.Errorf("terminal advises more repeats of agreeing repeats:\n%s", r.stdout)
	}
	// The gate: held on the twins (exit 0), failed on the weak model (exit 4).
	r = runCLI(t, context.Background(), "compare", many, "--models", "twin-a,twin-b", "--gate", "noninferior(pass, 5pts)")
	if r.code != 0 || !strings.Contains(r.stderr, "gate held: twin-b vs twin-a pass within 5 pts: +0.0 pts [-3.7, +3.7] over 100 cases (200 trials, repeats agree on 100 of 100 cases): not worse by more than 5 pts") {
		t.Errorf("twins' gate: exit %d\n%s", r.code, r.stderr)
	}
	r = runCLI(t, context.Background(), "compare", many, "--models", "twin-a,weak", "--gate", "noninferior(pass, 5pts)")
	if r.code != 4 || !strings.Contains(r.stderr, "gate failed: weak vs twin-a pass within 5 pts: -40.0 pts [") || !strings.Contains(r.stderr, "over 100 cases (200 trials, repeats agree on 100 of 100 cases): worse by more than 5 pts") {
		t.Errorf("weak's gate: exit %d\n%s", r.code, r.stderr)
	}

	// plan reads the pilot: 73 identical cases decide 5 points, 62 more
	// than it has, and repeats would add nothing; its 11 decide 26.
	r = runCLI(t, context.Background(), "plan", few, "--models", "twin-a,twin-b", "--json")
	var p compare.Plan
	if r.err != nil || json.Unmarshal([]byte(r.stdout), &p) != nil || len(p.Rows) == 0 {
		t.Fatalf("plan: %v\n%s%s", r.err, r.stdout, r.stderr)
	}
	if row := p.Rows[0]; row.Metric != metric.Pass || row.CasesNeeded != 73 || row.Evidence.Cases != 11 || row.Pairs != 110 || p.Margin != 0.05 ||
		*row.SmallestMargin < 0.25 || *row.SmallestMargin > 0.27 ||
		row.Advice != "repeats agree on every case (as at temperature 0), so more repeats add nothing: write about 62 more cases" {
		t.Errorf("plan row %+v (margin %v)", row, p.Margin)
	}
}

// --margin judges every rate of every group in all three modes, two runs
// included; a bad value is one line, exit 2; a run's --gate refuses a
// noninferior gate before anything runs.
func TestMarginInEveryMode(t *testing.T) {
	t.Parallel()
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
