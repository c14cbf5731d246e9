package curve

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgrade/toolgrade/internal/record"
)

// readFixture reads the recorded sweep run from disk, so a change to the
// generator that is not recorded shows here.
func readFixture(t *testing.T) (*record.Run, []*record.Trial) {
	t.Helper()
	run, err := record.ReadRun(fixtureDir)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(fixtureDir, record.TrialsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := record.NewReader(f, record.TrialsFile)
	var trials []*record.Trial
	for r.Scan() {
		trials = append(trials, r.Trial())
	}
	if r.Err() != nil || len(r.Warnings) > 0 || len(trials) != 160 {
		t.Fatalf("fixture: %v %v, %d trials (run go test ./internal/curve -run Fixture -fixture)", r.Err(), r.Warnings, len(trials))
	}
	return run, trials
}

func fixtureCurves(t *testing.T) []Curve {
	run, trials := readFixture(t)
	s := NewStats()
	for _, tr := range trials {
		s.Add(tr)
	}
	return Build(run, s)
}

// want is one sample's figures, worked out by hand from the fixture's rules
// (see fixtureDir).
type want struct {
	decoys, tools int
	selK, selN    int
	passK, passN  int
	infra         int
	p50, prompt   float64
}

// TestBuildFixture: one decoys curve per model, points in decoy order, each
// figure as counted by hand; the weak model's infrastructure error (a minute
// long, 99999 prompt tokens) is in no figure.
func TestBuildFixture(t *testing.T) {
	curves := fixtureCurves(t)
	wants := map[string][]want{
		"good": {
			{0, 3, 18, 18, 20, 20, 0, 0.53, 350},
			{10, 13, 18, 18, 20, 20, 0, 0.63, 850},
			{30, 33, 18, 18, 20, 20, 0, 0.83, 1850},
			{60, 63, 17, 18, 19, 20, 0, 1.13, 3350},
		},
		"weak": {
			{0, 3, 16, 18, 18, 20, 0, 1.06, 350},
			{10, 13, 14, 17, 16, 19, 1, 1.26, 850},
			{30, 33, 12, 18, 14, 20, 0, 1.66, 1850},
			{60, 63, 6, 18, 8, 20, 0, 2.26, 3350},
		},
	}
	if len(curves) != 2 || curves[0].Model != "good" || curves[1].Model != "weak" {
		t.Fatalf("curves: %+v", curves)
	}
	for _, c := range curves {
		if c.Axis != Decoys || c.Fixed != nil || c.Title() != "Tool-count sweep" {
			t.Errorf("%s: axis %q fixed %v title %q", c.Model, c.Axis, c.Fixed, c.Title())
		}
		w := wants[c.Model]
		if len(c.Points) != len(w) {
			t.Fatalf("%s: %d points, want %d", c.Model, len(c.Points), len(w))
		}
		for i, p := range c.Points {
			e := w[i]
			variant := ""
			if e.decoys > 0 {
				variant = "decoys=" + FormatValue(float64(e.decoys))
			}
			if p.Variant != variant || p.Value != float64(e.decoys) || p.Tools != e.tools {
				t.Errorf("%s point %d: variant %q value %v tools %d, want %q %d %d", c.Model, i, p.Variant, p.Value, p.Tools, variant, e.decoys, e.tools)
			}
			if p.Selection.K != e.selK || p.Selection.N != e.selN || p.Pass.K != e.passK || p.Pass.N != e.passN || p.Infra != e.infra || p.Trials != 20 ||
				p.Pass.Cases != 10 {
				t.Errorf("%s at %d: selection %v pass %v infra %d trials %d, want %d/%d %d/%d %d 20",
					c.Model, e.decoys, p.Selection, p.Pass, p.Infra, p.Trials, e.selK, e.selN, e.passK, e.passN, e.infra)
			}
			// The histogram's buckets are 1% wide.
			if math.Abs(p.P50-e.p50) > 0.01*e.p50 || p.PromptTokens != e.prompt {
				t.Errorf("%s at %d: p50 %v prompt %v, want %v %v", c.Model, e.decoys, p.P50, p.PromptTokens, e.p50, e.prompt)
			}
		}
	}
}

// TestFalls: both rules of the threshold crossing, on the fixture's curves.
func TestFalls(t *testing.T) {
	curves := fixtureCurves(t)
	good, weak := &curves[0], &curves[1]
	at := func(s *Sample) any {
		if s == nil {
			return nil
		}
		return s.Value
	}
	for _, tt := range []struct {
		c                           *Curve
		threshold                   float64
		below, significant, through any
		line                        string
	}{
		// 12/18 = 67% < 80% at 30, but its interval [44–84] reaches 80%;
		// 6/18's [16–57] does not.
		{weak, 0.8, 30.0, 60.0, 60.0, "selection falls below 80% at 30 decoys (33 tools); its 95% interval is wholly below 80% from 60 decoys (63 tools)"},
		// 14/17 = 82% < 85% at 10; 12/18 over 9 cases of 2 repeats reaches
		// 85% (as 18 independent trials it would not: 83.7%), 6/18 does not.
		{weak, 0.85, 10.0, 60.0, 60.0, "selection falls below 85% at 10 decoys (13 tools); its 95% interval is wholly below 85% from 60 decoys (63 tools)"},
		// 6/18 = 33% < 50%, but its upper bound 56% is not.
		{weak, 0.5, 60.0, nil, 60.0, "selection falls below 50% at 60 decoys (63 tools); no point's 95% interval is wholly below it"},
		{good, 0.8, nil, nil, 60.0, "selection holds at or above 80% through 60 decoys (63 tools)"},
	} {
		x := tt.c.Falls(tt.threshold)
		if at(x.Below) != tt.below || at(x.Significant) != tt.significant || at(x.Through) != tt.through {
			t.Errorf("%s at %v: below %v significant %v through %v", tt.c.Model, tt.threshold, at(x.Below), at(x.Significant), at(x.Through))
		}
		if got := x.String(tt.c.Axis); got != tt.line {
			t.Errorf("%s at %v: %q\nwant %q", tt.c.Model, tt.threshold, got, tt.line)
		}
	}
	if x := (&Curve{Points: []Sample{{}, {}}}).Falls(0.8); x.Below != nil || x.Through != nil || x.String(Decoys) != "no point counts toward selection" {
		t.Errorf("empty rates: %+v", x)
	}
}

// TestLinesMultiAxis: a 2×2 grid of decoys × think is four lines, decoys
// first, the line through the base before the other; values order as
// numbers and booleans, not as text (10 after 2).
func TestLinesMultiAxis(t *testing.T) {
	cat := func(variant string, sweep map[string]any) record.RunCatalog {
		return record.RunCatalog{Variant: variant, Tools: json.RawMessage(`[{},{}]`), Sweep: sweep}
	}
	grid := Grid([]record.RunCatalog{
		cat("", map[string]any{"decoys": 2.0, "think": false}),
		cat("decoys=10", map[string]any{"decoys": 10.0, "think": false}),
		cat("think=true", map[string]any{"decoys": 2.0, "think": true}),
		cat("decoys=10+think=true", map[string]any{"decoys": 10.0, "think": true}),
		{Variant: "terse", Tools: json.RawMessage(`[]`)}, // a named variant, no grid point
	})
	if len(grid) != 4 || grid[0].Tools != 2 {
		t.Fatalf("grid %+v", grid)
	}
	var got [][]string
	for _, l := range Lines(grid) {
		row := []string{l.Axis, Label(l.Fixed)}
		for _, p := range l.Points {
			row = append(row, p.Name())
		}
		got = append(got, row)
	}
	wantLines := [][]string{
		{"decoys", "think=false", "base", "decoys=10"},
		{"decoys", "think=true", "think=true", "decoys=10+think=true"},
		{"think", "decoys=2", "base", "think=true"},
		{"think", "decoys=10", "decoys=10", "decoys=10+think=true"},
	}
	if diff := cmp.Diff(wantLines, got); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	if Lines(Grid(nil)) != nil || Build(&record.Run{}, NewStats()) != nil {
		t.Error("a run with no sweep has lines")
	}
}

func TestCompareValues(t *testing.T) {
	for _, tt := range []struct {
		a, b any
		want int
	}{
		{2.0, 10.0, -1}, {10.0, 2.0, 1}, {false, true, -1}, {"high", "low", -1}, {1.0, true, -1}, {true, "x", -1}, {3, 3.0, 0},
	} {
		if got := CompareValues(tt.a, tt.b); got != tt.want {
			t.Errorf("CompareValues(%v, %v) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
	for v, want := range map[any]string{10.0: "10", 0.7: "0.7", true: "true", "high": "high", 4096.0: "4096"} {
		if got := FormatValue(v); got != want {
			t.Errorf("FormatValue(%v) = %q", v, got)
		}
	}
}

// TestWhereCounts: a point's words agree with its numbers.
func TestWhereCounts(t *testing.T) {
	for _, tt := range []struct {
		s    Sample
		want string
	}{
		{Sample{Value: 1.0, Point: Point{Tools: 4}}, "1 decoy (4 tools)"},
		{Sample{Value: 0.0, Point: Point{Tools: 1}}, "0 decoys (1 tool)"},
		{Sample{Value: 30.0, Point: Point{Tools: 33}}, "30 decoys (33 tools)"},
	} {
		if got := Where(Decoys, &tt.s); got != tt.want {
			t.Errorf("Where(%v) = %q, want %q", tt.s.Value, got, tt.want)
		}
	}
}
