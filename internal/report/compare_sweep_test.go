package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/compare"
	"github.com/toolgrade/toolgrade/internal/store"
)

func sweepComparison(t *testing.T) *compare.SweepComparison {
	t.Helper()
	r, err := store.Open(sweepFixture)
	if err != nil {
		t.Fatal(err)
	}
	sc, _, err := compare.Sweep(r, "decoys", nil)
	if err != nil {
		t.Fatal(err)
	}
	sc.Dir = "runs/sweep" // the golden file must not hold the checkout's path
	return sc
}

// TestSweepCompareTerminal: per model the points with their own rates and
// the paired change from the base, and the sentence of the crossing.
func TestSweepCompareTerminal(t *testing.T) {
	var b bytes.Buffer
	if err := WriteSweepCompareTerminal(&b, sweepComparison(t)); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"Sweep of decoys in runs/sweep: each point paired with its line's first, case by case and repeat by repeat; threshold 80%\n",
		"│ 60     │ 63    │ 6/18 33% [12–65]  │ -55.6 pts (p=0.062, ~)   │ 40% [16–69] │ -50.0 pts (p=0.062, ~) │",
		"weak: selection falls below 80% at 30 decoys (33 tools); its 95% interval is wholly below 80% from 60 decoys (63 tools)\n",
		"good: selection holds at or above 80% through 60 decoys (63 tools)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("sweep comparison lacks %q", want)
		}
	}
	golden(t, gallery+"compare-sweep.txt", b.Bytes())
}

func TestSweepCompareJSON(t *testing.T) {
	var b bytes.Buffer
	if err := WriteSweepCompareJSON(&b, sweepComparison(t)); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Format, Mode string
		Threshold    float64
		Curves       []struct {
			Model    string
			Points   []struct{ Value float64 }
			Paired   []*struct{ Pairs int }
			Crossing struct {
				Below, Significant *struct{ Value float64 }
			}
		}
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.Format != compare.Format || got.Mode != "sweep" || got.Threshold != 0.8 || len(got.Curves) != 2 {
		t.Fatalf("%+v", got)
	}
	weak := got.Curves[1]
	if len(weak.Points) != 4 || weak.Paired[0] != nil || weak.Paired[3].Pairs != 20 || weak.Crossing.Below.Value != 30 || weak.Crossing.Significant.Value != 60 {
		t.Errorf("weak: %+v", weak)
	}
}

// TestSweepCompareMarkdown: each curve's verdict first, then its table with
// the worse changes in bold, as a pull request comment reads it.
func TestSweepCompareMarkdown(t *testing.T) {
	var b bytes.Buffer
	if err := WriteSweepCompareMarkdown(&b, sweepComparison(t)); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"## toolgrade compare: sweep of decoys\n\nRun `runs/sweep`: each point paired with its line's first, case by case and repeat by repeat; threshold 80%.\n\n",
		"- **good**: selection holds at or above 80% through 60 decoys (63 tools)\n- **weak**: selection falls below 80% at 30 decoys (33 tools); its 95% interval is wholly below 80% from 60 decoys (63 tools)\n\n### Tool-count sweep: good\n",
		"| 60 | 63 | 6/18 33% [12–65] | -55.6 pts (p=0.062, \\~) | 40% [16–69] | -50.0 pts (p=0.062, \\~) |\n",
		"| 30 | 33 | 12/18 67% [35–88] | -22.2 pts (p=0.500, \\~) |",
		"| 0 | 3 | 16/18 89% [56–99] |  | 90% [59–99] |  |\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the Markdown comparison lacks %q", want)
		}
	}
	golden(t, gallery+"compare-sweep.md", b.Bytes())
}

// TestSweepCompareMarkdownEscapes: a model's name and a warning are text
// from the run; they cannot open a table cell, HTML or a link.
func TestSweepCompareMarkdownEscapes(t *testing.T) {
	sc := sweepComparison(t)
	sc.Curves[0].Model = "<img src=x>|[x](y)"
	sc.Warnings = []string{"**bold**\n# heading"}
	var b bytes.Buffer
	if err := WriteSweepCompareMarkdown(&b, sc); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, bad := range []string{"<img", "|[x]", "**bold**", "\n# heading"} {
		if strings.Contains(out, bad) {
			t.Errorf("the Markdown holds %q raw:\n%s", bad, out)
		}
	}
	if !strings.Contains(out, "- **&lt;img src=x&gt;\\|\\[x\\](y)**: selection holds") || !strings.Contains(out, "### Warnings\n\n- \\*\\*bold\\*\\*\\\\x0a\\# heading\n") {
		t.Errorf("escaped:\n%s", out)
	}
}

// TestSweepCompareWordsAgreeWithTheTest: the crossing line compares a point
// with the threshold, the Δ verdict with the line's first point; where the
// verdict is ~ (as for weak at 60 decoys, p=0.125 in the demo), no word on the
// screen may claim a significant difference.
func TestSweepCompareWordsAgreeWithTheTest(t *testing.T) {
	sc := sweepComparison(t)
	var b bytes.Buffer
	if err := WriteSweepCompareTerminal(&b, sc); err != nil {
		t.Fatal(err)
	}
	if err := WriteSweepCompareMarkdown(&b, sc); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.ToLower(b.String()), "significant") {
		t.Errorf("a sweep comparison says \"significant\", which its paired test may contradict:\n%s", b.String())
	}
}
