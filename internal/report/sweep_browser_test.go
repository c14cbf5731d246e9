package report

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/report/browsertest"
)

// TestSweepPageInChromium reads a small sweep's page in headless Chromium,
// as `make demo` makes one: few trials at every point, and a server that
// failed to connect. The page opens with one warning per distinct message
// (the skipped server first, then "only 4 scored trials" once for every
// point, not once a point), and no p50/p95 label of the latency
// histograms sits on a bar's count, on the other label, or off the chart.
func TestSweepPageInChromium(t *testing.T) {
	ctx := browsertest.New(t)
	run, all := readSweep(t)
	run.SkippedServers = []record.RunSkippedServer{{Name: "fs", Error: "exit status 1", Cases: []string{"read-conf"}}}
	// Four trials a point: the first repeat of four cases, as the demo runs.
	cases := map[string]bool{}
	h := NewHTML(run, &HTMLOptions{TempDir: t.TempDir()})
	for _, tr := range all {
		if tr.Repeat != 0 || (!cases[tr.CaseID] && len(cases) == 4) {
			continue
		}
		cases[tr.CaseID] = true
		h.Add(tr)
	}
	path := filepath.Join(t.TempDir(), "report.html")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Write(f); err != nil {
		t.Fatal(err)
	}
	f.Close()

	browsertest.Open(t, ctx, path)
	tctx, cancel := context.WithTimeout(ctx, 30*time.Second) // a deadlock guard, not a measurement
	defer cancel()
	if err := chromedp.Do(tctx, chromedp.WaitVisible(`body[data-drawn] #latency svg.hist`)); err != nil {
		t.Fatalf("no latency histogram was drawn: %v", err)
	}
	warnings, err := chromedp.Run(tctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#warnings li")].map(li => li.textContent)`))
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) == 0 || !strings.HasPrefix(warnings[0], "server fs failed to connect and was skipped (exit status 1)") {
		t.Errorf("the skipped server is not the first warning: %q", warnings)
	}
	seen := map[string]bool{}
	for _, w := range warnings[1:] {
		_, msg, _ := strings.Cut(w, "): ")
		if seen[msg] {
			t.Errorf("a warning is repeated: %q\nall: %q", msg, warnings)
		}
		seen[msg] = true
	}
	if !strings.Contains(strings.Join(warnings, "\n"), "good and weak at base, decoys=10, decoys=30, decoys=60 (8 rows): only 4 scored trials") &&
		!strings.Contains(strings.Join(warnings, "\n"), "rows): only 4 scored trials") {
		t.Errorf("the few trials of every point are not one warning: %q", warnings)
	}

	overlaps, err := chromedp.Run(tctx, chromedp.Evaluate[[]string](`(() => {
		const out = [], box = e => e.getBoundingClientRect();
		const meet = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
		document.querySelectorAll("#latency svg.hist").forEach((svg, i) => {
			const labels = [...svg.querySelectorAll("text.q-label")], counts = [...svg.querySelectorAll("text.bar-val")], s = box(svg);
			labels.forEach((l, j) => {
				const b = box(l);
				if (b.left < s.left || b.right > s.right || b.top < s.top) out.push(i + ": " + l.textContent + " leaves the chart");
				counts.forEach(c => { if (meet(b, box(c))) out.push(i + ": " + l.textContent + " sits on the count " + c.textContent); });
				labels.slice(j + 1).forEach(o => { if (meet(b, box(o))) out.push(i + ": " + l.textContent + " sits on " + o.textContent); });
			});
			if (labels.length !== 2) out.push(i + ": " + labels.length + " quantile labels");
			const ticks = [...svg.querySelectorAll("text.bar-tick")].map(t => t.textContent);
			if (new Set(ticks).size !== ticks.length) out.push(i + ": bins labelled alike: " + ticks.join(", "));
		});
		return out;
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range overlaps {
		t.Error(o)
	}
	browsertest.ScreenshotOf(t, ctx, "#warnings", "sweep-warnings.png")
	browsertest.ScreenshotOf(t, ctx, "#latency", "sweep-latency.png")
}
