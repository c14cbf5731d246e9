package main

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/report/browsertest"
	"github.com/toolgrade/toolgrade/internal/stats"
	"github.com/toolgrade/toolgrade/internal/summary"
)

// hostileAnswer is markup a model could write: shown as text it is
// harmless; parsed as HTML it would run script or end the data block.
const hostileAnswer = "<script>alert(1)</script> <img src=x onerror=alert(1)> </script> done"

// TestHTMLReportInChromium runs the docs suite against the fake Ollama (one
// answer hostile), then reads the run's report.html in headless Chromium:
// its numbers must be summary.json's, a failing cell must open its trial,
// the hostile answer must stay text, and the page must request nothing.
func TestHTMLReportInChromium(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t)
	script, err := fakeollama.DemoScript()
	if err != nil {
		t.Fatal(err)
	}
	script.Rules = append([]fakeollama.Rule{{
		Model: "scripted-good", User: &fakeollama.Matcher{Contains: "what documents can you search"},
		ToolResult: &fakeollama.Matcher{Regex: "."}, Reply: fakeollama.Reply{Content: hostileAnswer},
	}}, script.Rules...)
	_, url := fakeOllama(t, script)
	dir := filepath.Join(t.TempDir(), "run")
	r := runCLI(t, context.Background(), "run", docsSuite(t), "--out", dir, "--ollama", url, "--repeat", "2", "--parallel", "2")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	f, err := os.Open(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := summary.ReadJSON(f, "summary.json")
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	var trials []*record.Trial
	if err := readTrials(dir, os.Stderr, func(tr *record.Trial) { trials = append(trials, tr) }); err != nil {
		t.Fatal(err)
	}

	page := browsertest.Open(t, ctx, filepath.Join(dir, record.HTMLFile))
	tctx, cancel := context.WithTimeout(ctx, 30*time.Second) // a deadlock guard, not a measurement
	defer cancel()
	if err := chromedp.Do(tctx, chromedp.WaitVisible(`body[data-drawn] #models`)); err != nil {
		t.Fatalf("the overview was never drawn: %v", err)
	}

	t.Run("numbers are summary.json's", func(t *testing.T) {
		type cell struct{ Row, Metric, Value, KN string }
		got, err := chromedp.Run(tctx, chromedp.Evaluate[[]cell](`[...document.querySelectorAll("table.models tr[data-row] td.rate")].map(td => ({
			Row: td.parentElement.dataset.row, Metric: td.dataset.metric,
			Value: td.querySelector(".v").textContent, KN: td.querySelector(".kn").textContent}))`))
		if err != nil {
			t.Fatal(err)
		}
		var want []cell
		for _, m := range sum.Models {
			for _, x := range []struct {
				name string
				r    stats.Rate
			}{{"pass", m.Pass}, {"tool_selection", m.Selection}, {"arg_validity", m.ArgValidity},
				{"arg_accuracy", m.ArgAccuracy}, {"irrelevance", m.Irrelevance}, {"round_limit", m.RoundLimit}, {"failed_call", m.FailedCall}} {
				v := "–"
				if x.r.N > 0 {
					v = fmt.Sprintf("%.1f%%", x.r.Value()*100)
				}
				want = append(want, cell{m.Label(sum.HasVariants()), x.name, v, fmt.Sprintf("%d/%d", x.r.K, x.r.N)})
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("the model table shows\n%v\nsummary.json says\n%v", got, want)
		}
		type hcell struct{ Model, Case, Text string }
		heat, err := chromedp.Run(tctx, chromedp.Evaluate[[]hcell](`[...document.querySelectorAll("table.heat td.cell")].map(td => ({
			Model: td.dataset.model, Case: td.dataset.case, Text: td.firstChild.textContent}))`))
		if err != nil {
			t.Fatal(err)
		}
		var wantHeat []hcell
		for _, m := range sum.Models {
			for _, c := range m.Cases {
				wantHeat = append(wantHeat, hcell{m.Model, c.ID, fmt.Sprintf("%d/%d", c.Pass.K, c.Pass.N)})
			}
		}
		byKey := func(a, b hcell) int { return cmp.Or(cmp.Compare(a.Model, b.Model), cmp.Compare(a.Case, b.Case)) }
		slices.SortFunc(heat, byKey)
		slices.SortFunc(wantHeat, byKey)
		if len(heat) == 0 || !slices.Equal(heat, wantHeat) {
			t.Errorf("the heat map shows\n%v\nsummary.json says\n%v", heat, wantHeat)
		}
	})
	browsertest.Screenshot(t, ctx, "report-overview.png")
	if os.Getenv("TOOLGRADE_SCREENSHOTS") != "" {
		for _, id := range []string{"models", "matrix", "outcomes", "failures", "rounds"} {
			browsertest.ScreenshotOf(t, ctx, "#"+id, "report-"+id+".png")
		}
	}

	t.Run("a failing cell opens its trial", func(t *testing.T) {
		// The first failing trial of scripted-weak, by case and repeat.
		var fail *record.Trial
		for _, tr := range trials {
			if tr.Model == "scripted-weak" && tr.Score.Outcome != record.OutcomePass &&
				(fail == nil || cmp.Or(cmp.Compare(tr.CaseID, fail.CaseID), cmp.Compare(tr.Repeat, fail.Repeat)) < 0) {
				fail = tr
			}
		}
		if fail == nil {
			t.Fatal("scripted-weak failed no trial")
		}
		sel := fmt.Sprintf(`table.heat td.cell[data-model="scripted-weak"][data-case=%q]`, fail.CaseID)
		if err := chromedp.Do(tctx, chromedp.Click(sel), chromedp.WaitVisible(`#transcript .thead`)); err != nil {
			t.Fatal(err)
		}
		type shown struct{ Case, Outcome, Hash, Detail string }
		got, err := chromedp.Run(tctx, chromedp.Evaluate[shown](`({Case: document.querySelector("#transcript .case").textContent,
			Outcome: document.querySelector("#transcript .pill").dataset.outcome, Hash: location.hash,
			Detail: (document.querySelector("#transcript .detail-box pre") || {}).textContent || ""})`))
		if err != nil {
			t.Fatal(err)
		}
		want := shown{fail.CaseID, fail.Score.Outcome, fmt.Sprintf("#t/scripted-weak/base/%s/%d", fail.CaseID, fail.Repeat), fail.Score.Detail + "\n"}
		if fail.Score.Detail == "" {
			want.Detail = ""
		}
		if got != want {
			t.Errorf("clicking %s shows %+v, want %+v", sel, got, want)
		}
		browsertest.Screenshot(t, ctx, "report-transcript-failing.png")
	})

	t.Run("the hostile answer is text", func(t *testing.T) {
		if err := chromedp.Do(tctx, chromedp.Evaluate[chromedp.Void](`location.hash = "#t/scripted-good/base/list-documents/0"; null`),
			chromedp.WaitVisible(`#answer`)); err != nil {
			t.Fatal(err)
		}
		type check struct {
			Answer string
			Imgs   int
			Script int
		}
		got, err := chromedp.Run(tctx, chromedp.Evaluate[check](`({Answer: document.getElementById("answer").textContent,
			Imgs: document.querySelectorAll("img").length, Script: document.scripts.length})`))
		if err != nil {
			t.Fatal(err)
		}
		if got != (check{hostileAnswer, 0, 3}) {
			t.Errorf("the page shows %+v, want the answer as text, no img and its own 3 scripts", got)
		}
		browsertest.Screenshot(t, ctx, "report-transcript-hostile.png")
	})

	t.Run("a malformed permalink says so", func(t *testing.T) {
		// The hash names no trial and cannot be decoded: the view says so
		// rather than stopping on the decoding error, blank.
		if err := chromedp.Do(tctx, chromedp.Evaluate[chromedp.Void](`location.hash = "#t/%E0%A4%A"; null`)); err != nil {
			t.Fatal(err)
		}
		const shown = `document.querySelector("#transcript") && document.querySelector("#transcript").textContent === "No trial %E0%A4%A in this run."`
		if _, err := chromedp.Run(tctx, chromedp.Poll[bool](shown, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
			got, _ := chromedp.Run(tctx, chromedp.Evaluate[string](`document.getElementById("app").textContent.slice(0, 200)`))
			t.Errorf("a malformed permalink shows %q: %v", got, err)
		}
	})

	if d := page.Dialogs(); len(d) > 0 {
		t.Errorf("the page opened dialogs: %q", d)
	}
	want := browsertest.FileURL(filepath.Join(dir, record.HTMLFile))
	for _, u := range page.Requests() {
		if strings.TrimSuffix(u, "#") != want && !strings.HasPrefix(u, want+"#") {
			t.Errorf("the page requested %s; only %s may be loaded", u, want)
		}
	}
	if len(page.Requests()) == 0 {
		t.Error("no request seen at all: the network listener saw nothing")
	}
}

// TestHTMLReportPairsVariants reads a variants run's report.html: each
// variant is paired with the base, regressions before fixes, and a fix's
// link opens the variant's trial.
func TestHTMLReportPairsVariants(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t)
	_, url := fakeOllama(t, nil)
	suitePath, _ := variantsSuite(t)
	dir := filepath.Join(t.TempDir(), "run")
	r := runCLI(t, context.Background(), "run", suitePath, "--out", dir, "--ollama", url, "--repeat", "2")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	browsertest.Open(t, ctx, filepath.Join(dir, record.HTMLFile))
	tctx, cancel := context.WithTimeout(ctx, 30*time.Second) // a deadlock guard
	defer cancel()
	if err := chromedp.Do(tctx, chromedp.WaitVisible(`body[data-drawn] #paired`)); err != nil {
		t.Fatalf("no paired section: %v", err)
	}
	type change struct{ Title, Kinds, Link string }
	got, err := chromedp.Run(tctx, chromedp.Evaluate[[]change](`[...document.querySelectorAll("#paired h3")].map(h => {
		const kinds = [], links = [];
		for (let el = h.nextElementSibling; el && el.tagName !== "H3"; el = el.nextElementSibling)
			el.querySelectorAll("ul.changes li").forEach(li => { kinds.push(li.className); links.push(li.querySelectorAll("a")[1].getAttribute("href")); });
		return {Title: h.textContent, Kinds: kinds.join(","), Link: links.find((l, i) => kinds[i] === "fix") || ""};
	})`))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) < 1 {
		t.Fatalf("the paired section compares nothing: %+v", got)
	}
	fixes := 0
	for _, c := range got {
		if !strings.HasPrefix(c.Title, "base → ") {
			t.Errorf("comparison %q is not base → a variant", c.Title)
		}
		k := strings.Split(c.Kinds, ",")
		if !slices.IsSortedFunc(k, func(a, b string) int { return -cmp.Compare(a, b) }) { // regression < fix
			t.Errorf("%s lists %v: regressions must come first", c.Title, k)
		}
		if c.Link != "" {
			fixes++
			if err := chromedp.Do(tctx, chromedp.Evaluate[chromedp.Void](`location.hash = `+fmt.Sprintf("%q", c.Link)+`; null`),
				chromedp.WaitVisible(`#transcript .thead`)); err != nil {
				t.Fatal(err)
			}
			shown, err := chromedp.Run(tctx, chromedp.Evaluate[string](`document.querySelector("#transcript .pill").dataset.outcome + " " + location.hash`))
			if err != nil {
				t.Fatal(err)
			}
			if shown != "pass "+c.Link {
				t.Errorf("the fix's link %s shows %q, want the passing trial", c.Link, shown)
			}
			chromedp.Do(tctx, chromedp.Evaluate[chromedp.Void](`location.hash = "#paired"; null`), chromedp.WaitVisible(`#paired`))
		}
	}
	if fixes == 0 {
		t.Errorf("no variant fixed a case of the demo: %+v", got)
	}
	chromedp.Do(tctx, chromedp.Evaluate[chromedp.Void](`location.hash = ""; window.scrollTo(0, 0); null`), chromedp.WaitVisible(`#models`))
	browsertest.Screenshot(t, ctx, "report-variants.png")
	if os.Getenv("TOOLGRADE_SCREENSHOTS") != "" {
		for _, id := range []string{"models", "paired", "matrix", "outcomes", "confusion", "latency"} {
			browsertest.ScreenshotOf(t, ctx, "#"+id, "report-variants-"+id+".png")
		}
	}
}
