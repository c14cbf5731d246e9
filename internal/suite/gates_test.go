package suite

import (
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/gate/expr"
	"github.com/toolgrade/toolgrade/internal/metric"
)

func TestParseGates(t *testing.T) {
	src := "gates:\n  - pass>=0.9\n  - 'qwen3:8b:p95<=2s'\n  - \"round_limit <= 5%\"\ncases:\n  - {id: a, ask: q, expect: {no_tool: true}}\n"
	s, err := Parse([]byte(src), "s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := []expr.Gate{
		{Expr: "pass>=0.9", Metric: metric.Pass, Op: expr.GE, Threshold: 0.9},
		{Expr: "qwen3:8b:p95<=2s", Model: "qwen3:8b", Metric: metric.P95, Op: expr.LE, Threshold: 2},
		{Expr: "round_limit <= 5%", Metric: metric.RoundLimit, Op: expr.LE, Threshold: 0.05},
	}
	if len(s.Gates) != len(want) {
		t.Fatalf("gates %+v", s.Gates)
	}
	for i := range want {
		if s.Gates[i] != want[i] {
			t.Errorf("gate %d = %+v, want %+v", i, s.Gates[i], want[i])
		}
	}
	if s, _ := Parse([]byte("cases:\n  - {id: a, ask: q, expect: {no_tool: true}}\n"), "s.yaml"); s.Gates != nil {
		t.Errorf("a suite without gates: has %v", s.Gates)
	}
}

// TestParseGateErrors: each bad gate is reported at the column of the
// problem inside it when the string is written as it reads, else at the
// string, all at once.
func TestParseGateErrors(t *testing.T) {
	const cases = "cases:\n  - {id: a, ask: q, expect: {no_tool: true}}\n"
	src := "gates:\n" +
		"  - pas>=0.9\n" + // line 2: plain, the metric at column 5
		"  - 'qwen3:8b:selction>=0.9'\n" + // line 3: quoted, the metric at 5+1+9
		"  - \"p95<=2\"\n" + // line 4: double-quoted: the string's column
		"  - pass >= 1.5\n" + // line 5: spaces: the string's column
		"  - 5\n" + // line 6: not a string
		"  - [pass>=1]\n" // line 7: not a string
	_, err := Parse([]byte(src+cases), "s.yaml")
	if err == nil {
		t.Fatal("no error")
	}
	want := []string{
		`s.yaml:2:5: gates[0]: unknown metric "pas" (did you mean "pass"?)`,
		`s.yaml:3:15: gates[1]: unknown metric "selction" (did you mean "selection"?)`,
		`s.yaml:4:5: gates[2]: p95 is a latency: give a duration such as 2s or 500ms, not "2"`,
		`s.yaml:5:5: gates[3]: pass is a rate: 1.5 is outside 0–1 (0%–100%)`,
		`s.yaml:6:5: gates[4]: must be a string, not`,
		`s.yaml:7:5: gates[5]: must be a string, not`,
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d errors, want %d:\n%s", len(lines), len(want), err)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("error %d:\n%s\nwant\n%s", i, lines[i], w)
		}
	}
	for _, tt := range []struct{ src, want string }{
		{"gates: pass>=0.9\n", `s.yaml:1:8: gates: must be a list of gates such as ['pass>=0.9', 'p95<=2s'], not`},
		{"gates: [qwen3:8b:pass>=0.9, '  ']\n", `s.yaml:1:29: gates[1]: must not be empty`},
		{"gaets: [pass>=0.9]\n", `s.yaml:1:1: unknown key "gaets" (did you mean "gates"?)`},
	} {
		_, err := Parse([]byte(tt.src+cases), "s.yaml")
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%q: %v\nwant %s", tt.src, err, tt.want)
		}
	}
}

// margin: is read as --margin is (5pts, 5% or 0.05), its errors at its
// value; a noninferior gate in gates: is refused at its string, since a run
// has one side.
func TestParseMargin(t *testing.T) {
	const cases = "cases:\n  - {id: a, ask: q, expect: {no_tool: true}}\n"
	for src, want := range map[string]float64{"margin: 5pts\n": 0.05, "margin: 0.05\n": 0.05, "margin: '2.5%'\n": 0.025, "": 0} {
		s, err := Parse([]byte(src+cases), "s.yaml")
		if err != nil || s.Margin != want {
			t.Errorf("%q: margin %v, %v; want %v", src, s.Margin, err, want)
		}
	}
	for _, tt := range []struct{ src, want string }{
		{"margin: 5\n", `s.yaml:1:9: margin: "5": a fraction is below 1; for points write 5pts or 5%`},
		{"margin: 0pts\n", `s.yaml:1:9: margin: "0pts": must be more than 0 and less than 100 points`},
		{"margin: [5pts]\n", `s.yaml:1:9: margin: must be a margin such as 5pts, 5% or 0.05, not`},
		{"gates: [pass>=0.9, 'noninferior(pass, 5pts)']\n", "s.yaml:1:20: gates[1]: noninferior judges two sides, and a run is one: give it to `toolgrade compare --gate`"},
	} {
		_, err := Parse([]byte(tt.src+cases), "s.yaml")
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%q: %v\nwant %s", tt.src, err, tt.want)
		}
	}
}
