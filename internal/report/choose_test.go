package report

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgrade/toolgrade/internal/compare"

	"github.com/chromedp/chromedp"
	"github.com/toolgrade/toolgrade/internal/choose"
	"github.com/toolgrade/toolgrade/internal/metric"
	"github.com/toolgrade/toolgrade/internal/report/browsertest"
	"github.com/toolgrade/toolgrade/internal/stats"
)

// choiceRow is a row of the fixture choice: pass k of 110 and the other
// rates alike, its cost, and its verdict against the reference.
func choiceRow(model string, pass int, size int64, p50 float64, v *choose.Versus) choose.Row {
	r := choose.Row{Model: model, ParameterSize: "8B", Quantization: "Q4_K_M", Trials: 110, Scored: 110, Versus: v,
		Cost: choose.Cost{P50: p50, P95: 2 * p50, PromptTokensPerSecond: 5000, EvalTokensPerSecond: 40 / p50, Size: size, SizeVRAM: size, LoadSeconds: 1}}
	for _, m := range metric.Select(metric.Rate, metric.Column) {
		if m.Is(metric.Sparse) {
			continue // the fixture's suite has no rubrics
		}
		k := pass
		if m.LowerIsBetter {
			k = 110 - pass
		}
		r.Rates = append(r.Rates, choose.Rate{Metric: m.Name, Label: m.Label, LowerIsBetter: m.LowerIsBetter, Rate: stats.Rate{K: k, N: 110}})
	}
	return r
}

// fixtureChoice is what choose makes of three models (see the choose
// package's TestTheWalkAlongTheFrontier): the 8b is the reference and off
// the frontier, the 4b as good and recommended, the 0.6b worse.
func fixtureChoice() *choose.Choice {
	c := &choose.Choice{Format: choose.Format, Dir: "runs/pick", Suite: "fixture", Metric: metric.Pass, Margin: 0.05, Level: 0.95,
		Reference: "qwen3:8b", Candidate: "qwen3:4b", Tested: []string{"qwen3:4b", "qwen3:0.6b"}, CostBy: choose.CostMemory,
		Models: []choose.Row{
			choiceRow("qwen3:8b", 100, 5_200_000_000, 3, nil),
			choiceRow("qwen3:4b", 100, 3_000_000_000, 2, &choose.Versus{NonInferiority: compare.NonInferiority{Margin: 0.05, Pairs: 110, Lo: -0.034, Hi: 0.034, Verdict: "not_worse", Words: "not worse by more than 5 pts"}, Test: "~", P: 1}),
			choiceRow("qwen3:0.6b", 70, 600_000_000, 0.5, &choose.Versus{NonInferiority: compare.NonInferiority{Margin: 0.05, Pairs: 110, Diff: -30.0 / 110, Lo: -0.359, Hi: -0.192, Verdict: "worse", Words: "worse by more than 5 pts", SmallestMargin: 0.359}, Test: "worse", P: 1e-9}),
		},
		Recommendation: choose.Recommendation{Model: "qwen3:4b", Kind: choose.KindCandidate,
			Text: "qwen3:4b: not worse than qwen3:8b by more than 5 pts on pass (interval −3.4 to +3.4, 110 paired trials), 1.5× faster at p50, 3.0 GB vs 5.2 GB; qwen3:0.6b, cheaper still, is worse by more than 5 pts on pass (interval −35.9 to −19.2, 110 paired trials)"},
	}
	c.Models[0].Reference, c.Models[0].Frontier, c.Models[0].DominatedBy = true, false, "qwen3:4b"
	c.Models[1].Candidate, c.Models[1].Frontier, c.Models[2].Frontier = true, true, true
	c.Models[2].Cost.SizeVRAM, c.Models[2].Cost.TruncatedShare = 0, 0.1
	return c
}

// TestChooseFormats: the terminal table, the Markdown and the JSON of a
// choice, against their golden files; the JSON reads back as the choice.
func TestChooseFormats(t *testing.T) {
	c := fixtureChoice()
	for _, f := range []struct {
		name  string
		write func(*bytes.Buffer, *choose.Choice) error
	}{
		{gallery + "choose.txt", func(b *bytes.Buffer, c *choose.Choice) error { return WriteChooseTerminal(b, c) }},
		{gallery + "choose.md", func(b *bytes.Buffer, c *choose.Choice) error { return WriteChooseMarkdown(b, c) }},
		{gallery + "choose.json", func(b *bytes.Buffer, c *choose.Choice) error { return WriteChooseJSON(b, c) }},
	} {
		var b bytes.Buffer
		if err := f.write(&b, c); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), c.Recommendation.Text) {
			t.Errorf("%s lacks the recommendation", f.name)
		}
		golden(t, f.name, b.Bytes())
		if strings.HasSuffix(f.name, ".json") {
			var back choose.Choice
			if err := json.Unmarshal(b.Bytes(), &back); err != nil || back.Recommendation != c.Recommendation || len(back.Models) != 3 || *back.Models[2].Versus != *c.Models[2].Versus {
				t.Errorf("the JSON does not read back: %v", err)
			}
		}
	}
}

// TestChoosePageInChromium opens choose's page in headless Chromium: the
// recommendation, a row per model with its rates and cost, and the chart
// with a dot per model (filled on the frontier, hollow off it), the
// reference and candidate ringed, the margin line below the reference, and
// no request beyond the page itself.
func TestChoosePageInChromium(t *testing.T) {
	ctx := browsertest.New(t)
	c := fixtureChoice()
	c.Models[2].Model = `tiny<script>alert(1)</script>`
	c.Tested[1] = c.Models[2].Model
	path := filepath.Join(t.TempDir(), "choose.html")
	var b bytes.Buffer
	if err := WriteChooseHTML(&b, c); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	page := browsertest.Open(t, ctx, path)
	tctx, cancel := context.WithTimeout(ctx, 30*time.Second) // a deadlock guard, not a measurement
	defer cancel()
	if err := chromedp.Do(tctx, chromedp.WaitVisible(`#choose svg.choose-chart`)); err != nil {
		t.Fatalf("no chart was drawn: %v", err)
	}
	got, err := chromedp.Run(tctx, chromedp.Evaluate[map[string]any](`(() => {
		const q = s => [...document.querySelectorAll(s)];
		return {
			rec: document.querySelector("#choose .recommendation").textContent,
			kind: document.querySelector("#choose .recommendation").dataset.kind,
			rows: q("#choose table.choose tbody tr").map(r => r.dataset.row + "|" + r.className + "|" + r.querySelector('td[data-col="Memory"]').textContent),
			dots: q("#choose svg g.model").map(g => g.dataset.model + "|" + g.querySelector("circle.pt").getAttribute("class") + "|" + (g.querySelector("circle.ring") ? g.querySelector("circle.ring").getAttribute("class") : "")),
			margin: q("#choose svg line.margin").length,
			frontier: q("#choose svg polyline.frontier").length,
			scripts: q("script").length,
		};
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	wantRows := []any{"qwen3:8b|dominated|5.2 GB", "qwen3:4b|frontier|3.0 GB", c.Models[2].Model + "|frontier|600 MB"}
	wantDots := []any{"qwen3:8b|pt dominated|ring reference", "qwen3:4b|pt frontier|ring candidate", c.Models[2].Model + "|pt frontier|"}
	if got["rec"] != "Recommendation: "+c.Recommendation.Text || got["kind"] != "candidate" ||
		!equalAny(got["rows"], wantRows) || !equalAny(got["dots"], wantDots) || got["margin"] != 1.0 || got["frontier"] != 1.0 || got["scripts"] != 3.0 {
		t.Errorf("page: %v\nwant rows %v, dots %v", got, wantRows, wantDots)
	}
	if d := page.Dialogs(); len(d) > 0 {
		t.Errorf("a model name ran as script: %v", d)
	}
	if reqs := page.Requests(); len(reqs) != 1 {
		t.Errorf("requests beyond the page: %v", reqs)
	}
	browsertest.ScreenshotOf(t, ctx, "#choose", "choose.png")
}

func equalAny(got any, want []any) bool {
	g, ok := got.([]any)
	if !ok || len(g) != len(want) {
		return false
	}
	for i := range g {
		if g[i] != want[i] {
			return false
		}
	}
	return true
}
