package view

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/report/browsertest"
	"github.com/toolgrade/toolgrade/internal/runs"
	"github.com/toolgrade/toolgrade/internal/store"
)

// watch records what the pages of ctx request and every dialog they open.
type watch struct {
	mu                sync.Mutex
	requests, dialogs []string
}

func watchPage(t *testing.T, ctx context.Context) *watch {
	w := &watch{}
	if err := chromedp.Listen(ctx, func(ev any) {
		w.mu.Lock()
		defer w.mu.Unlock()
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			w.requests = append(w.requests, e.Request.URL)
		case *page.EventJavascriptDialogOpening:
			w.dialogs = append(w.dialogs, e.Message)
		}
	}); err != nil {
		t.Fatal(err)
	}
	return w
}

func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

// poll waits until js is true in the page: the page's own polling decides
// when, so the test states no time.
// A poll begun as a click navigates can lose its page's context: it is
// begun again on the next page.
func poll(t *testing.T, ctx context.Context, what, js string) {
	t.Helper()
	for i := 0; ; i++ {
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](js))
		if err == nil {
			return
		}
		// A sandboxed page (a report) is a new origin: Chromium may move it
		// to a process of its own, which ends the poll's target.
		lost := strings.Contains(err.Error(), "Cannot find context") || strings.Contains(err.Error(), "Inspected target navigated or closed")
		if i == 50 || !lost {
			t.Fatalf("waiting for %s (%s): %v", what, js, err)
		}
	}
}

const (
	rowsJS  = `[...document.querySelectorAll('#runs tbody tr')]`
	choose  = `((id, v) => { const s = document.getElementById(id); s.value = v; s.dispatchEvent(new Event('change')); return true })`
	liveRow = `document.querySelector('#runs tr[data-id="0/live"]')`
)

// TestViewInBrowser reads the index in headless Chromium: every run and
// broken folder listed, the hostile run's text shown as text, the filters,
// the trends, the live run's progress and its end without a reload, a
// report opened by a click, and two runs picked and compared.
func TestViewInBrowser(t *testing.T) {
	bctx := browsertest.New(t)
	root, live := testRuns(t)
	s := server(t, root)
	ctx, cancel := context.WithTimeout(bctx, 90*time.Second) // a deadlock guard, not a measurement
	defer cancel()
	w := watchPage(t, ctx)
	if err := chromedp.Do(ctx, chromedp.Navigate(s.URL+"/")); err != nil {
		t.Fatal(err)
	}
	poll(t, ctx, "the list", rowsJS+`.length === 8 && document.querySelectorAll('.trend').length === 3`)

	// The hostile run: its suite, model and commit-less row are text.
	if got := eval[string](t, ctx, `document.querySelector('#runs tr[data-id="0/hostile"] td.suite').textContent`); got != hostileText {
		t.Errorf("hostile suite shows %q, want the text %q", got, hostileText)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('main script, main img, [onerror]').length`); n != 0 {
		t.Errorf("%d elements came from a run's text", n)
	}
	if got := eval[string](t, ctx, `[...document.querySelectorAll('.trend')].find(e => e.dataset.suite.startsWith('<script>')).querySelector('h2').textContent`); !strings.HasPrefix(got, hostileText) {
		t.Errorf("hostile trend title %q", got)
	}
	errs := eval[[]string](t, ctx, rowsJS+`.filter(r => r.classList.contains('error')).map(r => r.dataset.id + ': ' + r.textContent)`)
	if len(errs) != 2 || !strings.Contains(strings.Join(errs, "\n"), "0/not-a-run: not a run directory") {
		t.Errorf("broken folders: %q", errs)
	}

	// Trends: each weather run's two models, pass and selection.
	if n := eval[int](t, ctx, `document.querySelectorAll('.trend[data-suite="weather"] svg.chart-pass g.point').length`); n != 6 {
		t.Errorf("weather's pass trend has %d points, want 6 (3 finished runs × 2 models)", n)
	}
	tip := eval[string](t, ctx, `document.querySelector('.trend[data-suite="weather"] svg.chart-pass g.point title').textContent`)
	if !strings.Contains(tip, "50.0% [23.7–76.3] (5/10)") {
		t.Errorf("a point's interval: %q", tip)
	}
	browsertest.Screenshot(t, ctx, "view-index.png")

	// Filters.
	eval[bool](t, ctx, choose+`('suite', 'weather')`)
	suites := eval[[]string](t, ctx, rowsJS+`.map(r => r.querySelector('td.suite').textContent)`)
	if strings.Join(suites, ",") != "weather,weather,weather,weather" {
		t.Errorf("suite filter shows %q", suites)
	}
	eval[bool](t, ctx, choose+`('model', 'llama3.2:3b')`)
	if n := eval[int](t, ctx, rowsJS+`.length`); n != 3 {
		t.Errorf("llama3.2:3b in weather: %d rows, want 3", n)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('.trend svg.chart-tool_selection g.point').length`); n != 3 {
		t.Errorf("llama3.2:3b's selection trend: %d points, want 3", n)
	}
	browsertest.Screenshot(t, ctx, "view-filtered.png")
	eval[bool](t, ctx, choose+`('model', '') && `+choose+`('suite', '')`)

	// The live run: its progress grows, then it ends, without a reload.
	poll(t, ctx, "the live run's progress", liveRow+`.querySelector('td.status').textContent === 'running: 3/6 trials'`)
	eval[bool](t, ctx, `window.notReloaded = true`)
	addTrial(t, live, "c3")
	poll(t, ctx, "a trial more", liveRow+`.querySelector('td.status').textContent === 'running: 4/6 trials'`)
	finish(t, live)
	poll(t, ctx, "the live run's end", liveRow+`.querySelector('td.status').textContent === 'complete' && `+liveRow+`.querySelector('td.rates').textContent === 'qwen3:4b: 75.0% [30.1–95.4] (3/4)'`)
	if !eval[bool](t, ctx, `window.notReloaded === true`) {
		t.Error("the page reloaded")
	}

	// Compare: two runs picked, the older one is the base.
	eval[bool](t, ctx, `document.querySelector('#runs tr[data-id="0/weather-2"] input.pick').click(), document.querySelector('#runs tr[data-id="0/weather-0"] input.pick').click(), true`)
	href := eval[string](t, ctx, `document.getElementById('compare').getAttribute('href')`)
	if href != "compare?a=0%2Fweather-0&b=0%2Fweather-2" {
		t.Errorf("compare link %q", href)
	}
	if err := chromedp.Do(ctx, chromedp.Click(`#compare`)); err != nil {
		t.Fatal(err)
	}
	poll(t, ctx, "the comparison", `location.pathname === '/compare' && document.readyState === 'complete' && document.body.textContent.includes('weather-2')`)
	browsertest.Screenshot(t, ctx, "view-compare.png")

	// Open: a click on a run opens its report.
	if err := chromedp.Do(ctx, chromedp.Navigate(s.URL+"/")); err != nil {
		t.Fatal(err)
	}
	poll(t, ctx, "the list", rowsJS+`.length === 8`)
	if err := chromedp.Do(ctx, chromedp.Click(`#runs tr[data-id="0/weather-1"] a.open`)); err != nil {
		t.Fatal(err)
	}
	poll(t, ctx, "the report", `location.search === '?id=0%2Fweather-1' && document.readyState === 'complete' && document.body.textContent.includes('llama3.2:3b')`)
	browsertest.Screenshot(t, ctx, "view-report.png")
	// The report runs sandboxed in an origin of its own: its transcripts
	// still open, and it cannot read the viewer's data.
	if got := eval[string](t, ctx, `window.origin`); got != "null" {
		t.Errorf("the report runs in origin %q, want an opaque one (null)", got)
	}
	eval[bool](t, ctx, `document.querySelector('table.heat td.cell').click(), true`)
	poll(t, ctx, "a transcript", `location.hash.startsWith('#t/') && document.querySelector('#transcript #answer') !== null`)

	// The hostile run's report, as run wrote it: text, nothing run.
	if err := chromedp.Do(ctx, chromedp.Navigate(s.URL+"/run?id=0/hostile")); err != nil {
		t.Fatal(err)
	}
	poll(t, ctx, "the hostile report", `document.readyState === 'complete' && document.body.textContent.includes('<script>alert("xss")')`)
	if n := eval[int](t, ctx, `document.querySelectorAll('[onerror], img[src="x"]').length`); n != 0 {
		t.Errorf("the hostile report has %d elements from a run's text", n)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.dialogs) > 0 {
		t.Errorf("dialogs opened: %q", w.dialogs)
	}
	for _, r := range w.requests {
		if !strings.HasPrefix(r, s.URL+"/") && !strings.HasPrefix(r, "data:") {
			t.Errorf("a request off the viewer: %s", r)
		}
	}
}

// finish ends the live run as `run` does: complete, with its summary.
func finish(t *testing.T, w *store.Writer) {
	t.Helper()
	if err := w.Update(func(r *record.Run) { r.Status = "complete" }); err != nil {
		t.Fatal(err)
	}
	sum, err := runs.Summarize(w.Reader(), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.WriteSummary(w.Dir(), sum); err != nil {
		t.Fatal(err)
	}
}
