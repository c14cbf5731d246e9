package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/report/browsertest"
)

// TestHTMLSweepInChromium renders the recorded sweep's HTML report and reads
// it in headless Chromium: a chart per model under its heading, each with a
// dot per point left to right inside its panel, drawn at a readable size,
// and the page requests nothing but itself.
func TestHTMLSweepInChromium(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t)
	dir := sweepRun(t)
	out := filepath.Join(dir, record.HTMLFile)
	if r := runCLI(t, context.Background(), "report", dir, "--format", "html", "-o", out); r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	page := browsertest.Open(t, ctx, out)
	tctx, cancel := context.WithTimeout(ctx, 30*time.Second) // a deadlock guard, not a measurement
	defer cancel()
	if err := chromedp.Do(tctx, chromedp.WaitVisible(`body[data-drawn] #sweep svg.sweep-chart`)); err != nil {
		t.Fatalf("no sweep chart was drawn: %v", err)
	}
	type chart struct {
		Title, Caption         string
		Width, Height          float64
		Dots, Whiskers, Inside int
		Ordered                bool
		LatMarks, TokMarks     int
	}
	got, err := chromedp.Run(tctx, chromedp.Evaluate[[]chart](`[...document.querySelectorAll("#sweep figure.sweep")].map(f => {
		const svg = f.querySelector("svg"), box = svg.querySelector("rect.sel-plot").getBoundingClientRect();
		const dots = [...svg.querySelectorAll("circle.sel")].map(c => c.getBoundingClientRect());
		const mid = r => ({x: r.left + r.width / 2, y: r.top + r.height / 2});
		const r = svg.getBoundingClientRect();
		return {
			Title: f.querySelector("h3").textContent, Caption: f.querySelector("figcaption").textContent,
			Width: r.width, Height: r.height, Dots: dots.length, Whiskers: svg.querySelectorAll("line.whisker").length,
			Inside: dots.map(mid).filter(p => p.x >= box.left && p.x <= box.right && p.y >= box.top && p.y <= box.bottom).length,
			Ordered: dots.every((d, i) => i === 0 || mid(d).x > mid(dots[i - 1]).x),
			LatMarks: svg.querySelectorAll("circle.lat").length, TokMarks: svg.querySelectorAll("rect.tok").length,
		};
	})`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Tool-count sweep: good", "Tool-count sweep: weak"}
	if len(got) != 2 {
		t.Fatalf("%d charts: %+v", len(got), got)
	}
	for i, c := range got {
		if c.Title != want[i] || c.Dots != 4 || c.Whiskers != 4 || c.Inside != 4 || !c.Ordered || c.LatMarks != 4 || c.TokMarks != 4 {
			t.Errorf("chart %d: %+v", i, c)
		}
		// Drawn at its own size, not squeezed: 600 × 396 CSS pixels.
		if c.Width < 560 || c.Height < 360 {
			t.Errorf("chart %d is %v×%v px: too small to read", i, c.Width, c.Height)
		}
	}
	if got[1].Caption != "selection falls below 80% at 30 decoys (33 tools); its 95% interval is wholly below 80% from 60 decoys (63 tools)" {
		t.Errorf("weak's caption: %q", got[1].Caption)
	}
	if reqs := page.Requests(); len(reqs) != 1 {
		t.Errorf("the page requested %v, want only itself", reqs)
	}
	if os.Getenv("TOOLGRADE_SCREENSHOTS") != "" {
		browsertest.ScreenshotOf(t, ctx, "#sweep", "report-sweep.png")
	}
	browsertest.Screenshot(t, ctx, "report-sweep-page.png")
}
