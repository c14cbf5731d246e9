package gate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/curve"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/summary"
)

// sweepSummary is the summary of internal/curve's recorded sweep: models
// good and weak at 0, 10, 30 and 60 decoys; weak's selection falls 16/18,
// 14/17, 12/18, 6/18, good's stays at 18/18 until 17/18 at 60.
func sweepSummary(t *testing.T) *summary.Summary {
	t.Helper()
	dir := "../curve/testdata/sweep"
	run, err := record.ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, record.TrialsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := summary.NewSummarizer(run.Suite.Name, run.Models)
	r := record.NewReader(f, record.TrialsFile)
	for r.Scan() {
		s.Add(r.Trial())
	}
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
	return s.Summary().WithRun(run)
}

// TestCheckPoint: @N judges the row of the point with N decoys (@0 the
// base), for every model or the one the scope names, on any metric.
func TestCheckPoint(t *testing.T) {
	s := sweepSummary(t)
	for _, tt := range []struct {
		expr  string
		lines []string // "held: ..." or "failed: ..."
	}{
		{"selection@60>=0.8", []string{"held: good tool_selection@60 94% [62–100] >= 80%", "failed: weak tool_selection@60 33% [12–65] < 80%"}},
		{"weak:selection@30>=0.8", []string{"failed: weak tool_selection@30 67% [35–88] < 80%"}},
		{"weak:selection@10>=0.8", []string{"held: weak tool_selection@10 82% [49–96] >= 80%"}},
		{"weak:selection@0>=0.85", []string{"held: weak tool_selection@0 89% [56–99] >= 85%"}},
		{"weak:pass@decoys=60<0.5", []string{"held: weak pass@decoys=60 40% [16–69] < 50%"}},
		{"good:p50@60<=1s", []string{"failed: good p50@60 1.13s > 1s"}},
	} {
		rs := Check(s, mustParse(t, tt.expr), OnPoint)
		var got []string
		for _, r := range rs {
			v := "failed: "
			if r.Held {
				v = "held: "
			}
			got = append(got, v+r.String())
		}
		if strings.Join(got, "\n") != strings.Join(tt.lines, "\n") {
			t.Errorf("%s:\n%s\nwant\n%s", tt.expr, strings.Join(got, "\n"), strings.Join(tt.lines, "\n"))
		}
	}
	// With --gate-on lower: 17/18's lower bound 74.2% is under 80%.
	if rs := Check(s, mustParse(t, "good:selection@60>=0.8"), OnLower); len(rs) != 1 || rs[0].Held {
		t.Errorf("lower bound: %+v", rs)
	}
}

// TestCheckMissingPoint: a point the run lacks, an axis it lacks, and a run
// that swept nothing each fail with a message that lists what there is.
func TestCheckMissingPoint(t *testing.T) {
	s := sweepSummary(t)
	points := "decoys=0 (base, 3 tools), decoys=10 (decoys=10, 13 tools), decoys=30 (decoys=30, 33 tools), decoys=60 (decoys=60, 63 tools)"
	for expr, msg := range map[string]string{
		"selection@45>=0.8":           "nothing to judge: the sweep has no point decoys=45 (its points: " + points + ")",
		"selection@decoy=10>=0.8":     `nothing to judge: unknown sweep axis "decoy" (did you mean "decoys"?); the sweep's points: ` + points,
		"llama3:selection@60>=0.8":    "nothing to judge: the run has no results for llama3@decoys=60",
		"selection@think=true>=0.8":   `nothing to judge: unknown sweep axis "think" (its axes: decoys); the sweep's points: ` + points,
		"weak:selection@decoys=60>=1": "",
	} {
		rs := Check(s, mustParse(t, expr), OnPoint)
		if len(rs) != 1 {
			t.Fatalf("%s: %+v", expr, rs)
		}
		if msg == "" {
			if rs[0].Held || rs[0].Msg != "" {
				t.Errorf("%s: %+v", expr, rs[0])
			}
			continue
		}
		if rs[0].Held || !strings.HasPrefix(rs[0].Msg, msg) {
			t.Errorf("%s: %q\nwant %q", expr, rs[0].Msg, msg)
		}
	}
	rs := Check(twoModels(), mustParse(t, "selection@60>=0.8"), OnPoint)
	if len(rs) != 1 || rs[0].Held || rs[0].String() != "tool_selection@60 >= 80%: nothing to judge: @60 names a sweep point, and the run swept nothing (a suite's sweep: runs one)" {
		t.Errorf("no sweep: %s", rs[0])
	}
}

// TestCheckPointMultiAxis: on a decoys × think grid an axis left out is held
// at the base's value, and with no base point a partial name that matches
// two points says so.
func TestCheckPointMultiAxis(t *testing.T) {
	grid := []curve.Point{
		{Variant: "", Sweep: map[string]any{"decoys": 0.0, "think": false}, Tools: 3},
		{Variant: "decoys=60", Sweep: map[string]any{"decoys": 60.0, "think": false}, Tools: 63},
		{Variant: "think=true", Sweep: map[string]any{"decoys": 0.0, "think": true}, Tools: 3},
		{Variant: "decoys=60+think=true", Sweep: map[string]any{"decoys": 60.0, "think": true}, Tools: 63},
	}
	s := &summary.Summary{SweepGrid: grid}
	for i, p := range grid {
		s.Models = append(s.Models, summary.ModelSummary{Model: "m", Variant: p.Variant, Selection: rate(10-i, 10)})
	}
	for expr, want := range map[string]string{
		"selection@60>=0.5":                   "m tool_selection@60 90% [59–99] >= 50%",
		"selection@think=true>=0.5":           "m tool_selection@think=true 80% [49–95] >= 50%",
		"selection@decoys=60+think=true>=0.5": "m tool_selection@decoys=60+think=true 70% [39–90] >= 50%",
		"selection@0>=0.5":                    "m tool_selection@0 100% [72–100] >= 50%",
	} {
		if rs := Check(s, mustParse(t, expr), OnPoint); len(rs) != 1 || rs[0].String() != want {
			t.Errorf("%s: %v, want %q", expr, rs, want)
		}
	}
	s.SweepGrid = grid[1:] // no base: think is not held
	rs := Check(s, mustParse(t, "selection@60>=0.5"), OnPoint)
	if len(rs) != 1 || rs[0].Held || !strings.Contains(rs[0].Msg, "@60 matches decoys=60+think=false (decoys=60, 63 tools), decoys=60+think=true (decoys=60+think=true, 63 tools): name every axis") {
		t.Errorf("ambiguous: %+v", rs)
	}
}
