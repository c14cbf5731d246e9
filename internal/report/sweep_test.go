package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/summary"
)

// sweepFixture is internal/curve's recorded tool-count sweep: two models at
// 0, 10, 30 and 60 decoys (3 to 63 tools); "weak" falls from 16/18 to 6/18.
// Nine cases of two repeats a point: the intervals count the nine cases.
const sweepFixture = "../curve/testdata/sweep"

func readSweep(t *testing.T) (*record.Run, []*record.Trial) {
	t.Helper()
	run, err := record.ReadRun(sweepFixture)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(sweepFixture, record.TrialsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := record.NewReader(f, record.TrialsFile)
	var trials []*record.Trial
	for r.Scan() {
		trials = append(trials, r.Trial())
	}
	if r.Err() != nil || len(trials) != 160 {
		t.Fatalf("sweep fixture: %v, %d trials", r.Err(), len(trials))
	}
	return run, trials
}

func sweepSummary(t *testing.T) *summary.Summary {
	run, trials := readSweep(t)
	return summarize(run, trials).WithRun(run)
}

// TestSweepTerminal: a section per model, one row per point in decoy order
// with the tools offered, selection k/n and its interval, pass, p50, the
// first request's prompt tokens and a bar as long as selection; the golden
// file holds the whole report.
func TestSweepTerminal(t *testing.T) {
	var b bytes.Buffer
	if err := WriteTerminal(&b, sweepSummary(t)); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"\nTool-count sweep: good\n",
		"\nTool-count sweep: weak\n",
		"│ Decoys       │ Tools │ Selection         │ Pass        │ p50   │ Prompt │ Selection 0–100%     │",
		"│ 0            │ 3     │ 16/18 89% [56–99] │ 90% [59–99] │ 1.06s │ 350    │ █████████████████▊·· │",
		"│ 10 (1 infra) │ 13    │ 14/17 82% [49–96] │ 84% [52–97] │ 1.26s │ 850    │ ████████████████▌··· │",
		"│ 60           │ 63    │ 6/18 33% [12–65]  │ 40% [16–69] │ 2.26s │ 3350   │ ██████▋············· │",
		"└──────────────┴───────┴───────────────────┴─────────────┴───────┴────────┴──────────────────────┘\nselection falls below 80% at 30 decoys (33 tools); its 95% interval is wholly below 80% from 60 decoys (63 tools)\n",
		"\nselection holds at or above 80% through 60 decoys (63 tools)\n",
		sweepNote,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("terminal report lacks %q", want)
		}
	}
	if i, j := strings.Index(out, "Tool-count sweep: good"), strings.Index(out, "Tool-count sweep: weak"); i < 0 || j < i {
		t.Errorf("sections out of run order")
	}
	golden(t, gallery+"run-sweep.txt", b.Bytes())
}

func TestSweepMarkdown(t *testing.T) {
	var b bytes.Buffer
	if err := WriteMarkdown(&b, sweepSummary(t), nil); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"### Tool-count sweep: weak\n\n| Decoys | Tools | Selection | Pass | p50 | Prompt | Selection 0–100% |\n| ---: | ---: | ---: | ---: | ---: | ---: | --- |\n",
		"| 30 | 33 | 12/18 67% \\[35–88\\] | 70% \\[39–90\\] | 1.66s | 1850 | `█████████████▍······` |\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("Markdown report lacks %q", want)
		}
	}
	golden(t, gallery+"run-sweep.md", b.Bytes())
}

// TestSweepJSON: summary.json carries the grid and the curves, and a run
// with no sweep has neither (its golden file is unchanged).
func TestSweepJSON(t *testing.T) {
	var b bytes.Buffer
	if err := summary.WriteJSON(&b, sweepSummary(t)); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Grid []struct {
			Variant string
			Tools   int
		} `json:"sweep_grid"`
		Sweep []struct {
			Model  string
			Points []struct {
				Value     float64
				Selection struct{ K, N int } `json:"tool_selection"`
			}
		}
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Grid) != 4 || got.Grid[3].Variant != "decoys=60" || got.Grid[3].Tools != 63 {
		t.Errorf("grid %+v", got.Grid)
	}
	if len(got.Sweep) != 2 || got.Sweep[1].Model != "weak" || got.Sweep[1].Points[3].Value != 60 || got.Sweep[1].Points[3].Selection.K != 6 {
		t.Errorf("sweep %+v", got.Sweep)
	}
	meta, trials := fixture(t)
	if s := summarize(meta, trials).WithRun(meta); s.Sweep != nil || s.SweepGrid != nil {
		t.Errorf("a run with no sweep has curves: %+v", s.Sweep)
	}
}

func TestBar(t *testing.T) {
	for v, want := range map[float64]string{
		0: "····················", 1: "████████████████████", 0.5: "██████████··········", 0.33: "██████▋·············",
	} {
		if got := bar(v, false); got != want || len([]rune(got)) != barWidth {
			t.Errorf("bar(%v) = %q, want %q", v, got, want)
		}
	}
	if bar(0, true) != "" {
		t.Error("an empty rate has a bar")
	}
}
