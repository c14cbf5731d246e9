package main

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/report/browsertest"
)

// TestHTMLReportShowsTheJudgedRate: report.html of a run with rubrics has
// a Judged column with the judged rate, its judge, its self-agreement and
// its judge errors; a run without rubrics has none (TestHTMLReportInChromium's
// docs run).
func TestHTMLReportShowsTheJudgedRate(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t)
	_, url := judgesOllama(t)
	dir, r, _ := judgeRun(t, url, judgedSuite(t, "judge-fence"), "--repeat", "2", "--judge-repeat", "3")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	browsertest.Open(t, ctx, filepath.Join(dir, record.HTMLFile))
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
	if !strings.Contains(got.Head, "Round limit|Failed call|Judged|Rounds") {
		t.Errorf("the model table's header %q has no Judged column after Failed call", got.Head)
	}
	for _, want := range []string{"0.0%", "0/4", "by judge-fence", "self-agreement 100.0%"} {
		if !strings.Contains(got.Cell, want) {
			t.Errorf("the judged cell %q lacks %q", got.Cell, want)
		}
	}
	browsertest.ScreenshotOf(t, tctx, "table.models", "judged-column.png")
	// The answers the judge failed are listed with the failures, apart
	// from the outcomes, each with the judge's reason.
	group, err := chromedp.Run(tctx, chromedp.Evaluate[string](`(() => {
		const g = document.querySelector('#failures .fail-group[data-group="judged: fail"]');
		return g ? g.textContent : ""; })()`))
	if err != nil || !strings.Contains(group, "judged: fail 4") || !strings.Contains(group, "dog #0") || !strings.Contains(group, "not grounded") {
		t.Errorf("the failures' judged group %q (%v)", group, err)
	}
	browsertest.ScreenshotOf(t, tctx, "#failures", "judged-failures.png")
	// The heat map gives each case's judged answers beside its passes.
	cells, err := chromedp.Run(tctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('table.heat td[data-case] .judged-kn')].map(e => e.closest("td").dataset.case + " " + e.dataset.judged)`))
	if err != nil || !slices.Equal(cells, []string{"dog 0/2", "list-documents 0/2"}) {
		t.Errorf("the heat map's judged counts %q (%v)", cells, err)
	}
	browsertest.ScreenshotOf(t, tctx, "#matrix", "judged-matrix.png")

	// A judge that is down: no verdict, its errors counted in the cell.
	dir, r, _ = judgeRun(t, url, judgedSuite(t, "judge-down"), "--retries", "0")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	browsertest.Open(t, ctx, filepath.Join(dir, record.HTMLFile))
	if err := chromedp.Do(tctx, chromedp.WaitVisible(`body[data-drawn] #models`)); err != nil {
		t.Fatalf("the overview was never drawn: %v", err)
	}
	cell, err := chromedp.Run(tctx, chromedp.Evaluate[string](`document.querySelector('table.models td[data-metric="judged"]').textContent`))
	if err != nil || !strings.Contains(cell, "–") || !strings.Contains(cell, "2 judge errors") {
		t.Errorf("the judged cell of a judge that was down reads %q (%v)", cell, err)
	}
	browsertest.ScreenshotOf(t, tctx, "table.models", "judged-errors.png")

	// compare's page pairs the judged rate where a side has verdicts, and
	// has no judged column where neither has (the judge down, then no judge).
	base, r, _ := judgeRun(t, url, judgedSuite(t, "judge-pass"), "--repeat", "2")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	for _, tc := range []struct {
		cur, want string
	}{{dir, "judged=100.0% → –"}, {base, "judged=100.0% → 100.0%"}} {
		page := filepath.Join(t.TempDir(), "compare.html")
		if r := runCLI(t, context.Background(), "compare", base, tc.cur, "--format", "html", "-o", page); r.err != nil {
			t.Fatalf("%v\n%s", r.err, r.stderr)
		}
		browsertest.Open(t, ctx, page)
		if err := chromedp.Do(tctx, chromedp.WaitVisible(`body[data-drawn] #paired`)); err != nil {
			t.Fatalf("the comparison was never drawn: %v", err)
		}
		cells, err := chromedp.Run(tctx, chromedp.Evaluate[[]string](`(() => { const heads = [...document.querySelectorAll("#paired table.pairs thead th")].map(th => th.textContent);
			return [...document.querySelectorAll("#paired table.pairs tbody tr:first-child td")].map((td, i) => heads[i + 1] + "=" + td.firstChild.textContent); })()`))
		if err != nil || !slices.Contains(cells, tc.want) {
			t.Errorf("compare's cells %q (%v) lack %q", cells, err, tc.want)
		}
	}
	browsertest.ScreenshotOf(t, tctx, "#paired table.pairs", "judged-compare.png")
	none := filepath.Join(t.TempDir(), "none.html")
	plain := docsSuite(t)
	a, _, _ := judgeRun(t, url, plain)
	if r := runCLI(t, context.Background(), "compare", a, a, "--format", "html", "-o", none); r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	browsertest.Open(t, ctx, none)
	if err := chromedp.Do(tctx, chromedp.WaitVisible(`body[data-drawn] #paired`)); err != nil {
		t.Fatalf("the comparison was never drawn: %v", err)
	}
	heads, err := chromedp.Run(tctx, chromedp.Evaluate[string](`[...document.querySelectorAll("#paired table.pairs thead th")].map(th => th.textContent).join("|")`))
	if err != nil || strings.Contains(heads, "judged") || !strings.Contains(heads, "pass") {
		t.Errorf("compare's header without rubrics: %q (%v)", heads, err)
	}
}
