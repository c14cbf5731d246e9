package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/toolgrade/toolgrade/internal/runs"
	"github.com/toolgrade/toolgrade/reports/browsertest"
)

// TestHTMLReportShowsTheJudgedRate: report.html of a run with rubrics has
// a Judged column with the judged rate, its judge, its self-agreement and
// its judge errors; a run without rubrics has none (TestHTMLReportInChromium's
// docs run).
func TestHTMLReportShowsTheJudgedRate(t *testing.T) {
	ctx := browsertest.New(t)
	_, url := judgesOllama(t)
	dir, r, _ := judgeRun(t, url, judgedSuite(t, "judge-fence"), "--repeat", "2", "--judge-repeat", "3")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	browsertest.Open(t, ctx, filepath.Join(dir, runs.HTMLReportFile))
	tctx, cancel := context.WithTimeout(ctx, 30*time.Second) // a deadlock guard, not a measurement
	defer cancel()
	if err := chromedp.Do(tctx, chromedp.WaitVisible(`body[data-drawn] #models`)); err != nil {
		t.Fatalf("the overview was never drawn: %v", err)
	}
	type view struct{ Head, Cell string }
	got, err := chromedp.Run(tctx, chromedp.Evaluate[view](`(() => ({
		Head: [...document.querySelectorAll("table.models thead th")].map(th => th.textContent).join("|"),
		Cell: document.querySelector('table.models td[data-metric="judged"]').textContent }))()`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got.Head, "Round limit|Judged|Rounds") {
		t.Errorf("the model table's header %q has no Judged column after Round limit", got.Head)
	}
	for _, want := range []string{"0.0%", "0/4", "by judge-fence", "self-agreement 100.0%"} {
		if !strings.Contains(got.Cell, want) {
			t.Errorf("the judged cell %q lacks %q", got.Cell, want)
		}
	}
	browsertest.ScreenshotOf(t, tctx, "table.models", "judged-column.png")

	// A judge that is down: no verdict, its errors counted in the cell.
	dir, r, _ = judgeRun(t, url, judgedSuite(t, "judge-down"), "--retries", "0")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	browsertest.Open(t, ctx, filepath.Join(dir, runs.HTMLReportFile))
	if err := chromedp.Do(tctx, chromedp.WaitVisible(`body[data-drawn] #models`)); err != nil {
		t.Fatalf("the overview was never drawn: %v", err)
	}
	cell, err := chromedp.Run(tctx, chromedp.Evaluate[string](`document.querySelector('table.models td[data-metric="judged"]').textContent`))
	if err != nil || !strings.Contains(cell, "–") || !strings.Contains(cell, "2 judge errors") {
		t.Errorf("the judged cell of a judge that was down reads %q (%v)", cell, err)
	}
	browsertest.ScreenshotOf(t, tctx, "table.models", "judged-errors.png")
}
