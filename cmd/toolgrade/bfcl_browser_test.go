package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/report/browsertest"
	"github.com/toolgrade/toolgrade/internal/summary"
)

// TestHTMLBFCLInChromium runs the imported BFCL fixtures against the fake
// Ollama and reads the run's report.html in headless Chromium: a BFCL
// section with a row per model and category, as summary.json has them,
// BFCL's accuracy 100% for bfcl-good and 0% for bfcl-perturbed beside
// toolgrade's pass rate and outcomes, then the leaderboard's summary columns
// (N/A where summary.json has none); the page requests nothing but itself.
func TestHTMLBFCLInChromium(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t)
	_, dir, _, _ := bfclRun(t)
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum summary.Summary
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	page := browsertest.Open(t, ctx, filepath.Join(dir, record.HTMLFile))
	tctx, cancel := context.WithTimeout(ctx, 30*time.Second) // a deadlock guard, not a measurement
	defer cancel()
	if err := chromedp.Do(tctx, chromedp.WaitVisible(`body[data-drawn] #bfcl table.bfcl`)); err != nil {
		t.Fatalf("no BFCL section was drawn: %v", err)
	}
	type row struct {
		Row, Category, Name, Cases, Accuracy, AccuracyKN, Interval, Pass, PassKN, RoundTrip string
		Outcomes                                                                            []string
		Whisker                                                                             bool
	}
	type summaryRow struct {
		Row, Name string
		Cols      map[string]string
	}
	type section struct {
		Heading, Note string
		Rows          []row
		Summary       []summaryRow
	}
	got, err := chromedp.Run(tctx, chromedp.Evaluate[section](`(() => {
		const sec = document.getElementById("bfcl"), text = (el, sel) => { const e = el.querySelector(sel); return e ? e.textContent : ""; };
		let name = "";
		return {
			Heading: text(sec, "h2"), Note: text(sec, "p.note"),
			Rows: [...sec.querySelectorAll("table.bfcl tbody tr")].map(tr => {
				if (tr.querySelector("th.name")) name = text(tr, "th.name");
				const acc = tr.querySelector('td[data-metric="bfcl_accuracy"]'), pass = tr.querySelector('td[data-metric="pass"]');
				return {
					Row: tr.dataset.row, Category: tr.dataset.category, Name: name, Cases: text(tr, 'td[data-metric="cases"]'),
					Accuracy: text(acc, ".v"), AccuracyKN: text(acc, ".kn"), Interval: text(acc, ".ci-text"), Whisker: !!acc.querySelector("svg.whisker"),
					Pass: text(pass, ".v"), PassKN: text(pass, ".kn"), RoundTrip: text(tr, 'td[data-metric="round_trip"]'),
					Outcomes: [...tr.querySelectorAll("td.outcomes .pill")].map(p => p.textContent),
				};
			}),
			Summary: [...sec.querySelectorAll("table.bfcl-summary tbody tr")].map(tr => ({
				Row: tr.dataset.row, Name: text(tr, "th.name"),
				Cols: Object.fromEntries([...tr.querySelectorAll("td")].map(td => [td.dataset.col, td.textContent])),
			})),
		};
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	if got.Heading != "BFCL" || !strings.Contains(got.Note, "95% Wilson interval") {
		t.Errorf("section heading %q, note %q", got.Heading, got.Note)
	}
	pct := func(v *float64) string {
		if v == nil {
			return "N/A"
		}
		return fmt.Sprintf("%.1f%%", 100**v)
	}
	i := 0
	for _, m := range sum.Models {
		if m.BFCL == nil || len(m.BFCL.Categories) < 11 {
			t.Fatalf("%s: summary.json's BFCL figures: %+v", m.Model, m.BFCL)
		}
		want := "100.0%"
		if m.Model == "bfcl-perturbed" {
			want = "0.0%"
		}
		for _, c := range m.BFCL.Categories {
			if i >= len(got.Rows) {
				t.Fatalf("%d rows on the page, summary.json has more: %+v", len(got.Rows), got.Rows)
			}
			r := got.Rows[i]
			i++
			n := c.Accuracy.N
			k := n
			if want == "0.0%" {
				k = 0
			}
			if r.Row != m.Model || r.Name != m.Model || r.Category != c.Category || r.Cases != fmt.Sprint(c.Cases) ||
				r.Accuracy != want || r.AccuracyKN != fmt.Sprintf("%d/%d", k, n) || r.Pass != want || r.PassKN != fmt.Sprintf("%d/%d", k, n) ||
				!r.Whisker || !strings.Contains(r.Interval, "–") {
				t.Errorf("%s %s: row %+v, want BFCL accuracy and pass %s of %d", m.Model, c.Category, r, want, n)
			}
			// An open trial's range is drawn: its count, and both ends.
			if open := c.RoundTrip > 0; open != strings.HasSuffix(r.RoundTrip, fmt.Sprintf("(%d open)", c.RoundTrip)) || !open && r.RoundTrip != "-" {
				t.Errorf("%s %s: round trip %q, want %d open", m.Model, c.Category, r.RoundTrip, c.RoundTrip)
			}
			// The good model's trials all pass; the perturbed one's all fail,
			// each with the outcome its perturbation gives.
			passes := len(r.Outcomes) == 1 && r.Outcomes[0] == fmt.Sprintf("pass %d", n)
			anyPass := strings.Contains(strings.Join(r.Outcomes, ","), "pass ")
			if (want == "100.0%") != passes || (want == "0.0%" && (anyPass || len(r.Outcomes) == 0)) {
				t.Errorf("%s %s: outcomes %q", m.Model, c.Category, r.Outcomes)
			}
		}
	}
	if i != len(got.Rows) {
		t.Errorf("%d rows on the page, %d in summary.json", len(got.Rows), i)
	}
	if len(got.Summary) != len(sum.Models) {
		t.Fatalf("leaderboard summary rows %+v", got.Summary)
	}
	for j, m := range sum.Models {
		want := map[string]string{"non_live_ast": pct(m.BFCL.NonLiveAST), "live": pct(m.BFCL.Live),
			"irrelevance": pct(m.BFCL.Irrelevance), "relevance": pct(m.BFCL.Relevance)}
		s := got.Summary[j]
		if s.Row != m.Model || s.Name != m.Model || fmt.Sprint(s.Cols) != fmt.Sprint(want) {
			t.Errorf("%s: leaderboard summary %+v, want %v", m.Model, s, want)
		}
	}
	// The fixtures hold every non-live AST category: its column is a figure.
	if got.Summary[0].Cols["non_live_ast"] != "100.0%" || got.Summary[1].Cols["non_live_ast"] != "0.0%" {
		t.Errorf("Non-Live AST: %+v", got.Summary)
	}
	if reqs := page.Requests(); len(reqs) != 1 {
		t.Errorf("the page requested %v, want only itself", reqs)
	}
	browsertest.ScreenshotOf(t, ctx, "#bfcl", "report-bfcl.png")
}
