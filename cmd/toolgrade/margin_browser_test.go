package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/toolgrade/toolgrade/internal/report/browsertest"
)

// TestComparePageShowsTheMargin reads `compare --margin --format html` in
// headless Chromium: under each rate of the paired table, the interval and
// the verdict at the margin, as the terminal words it (here all three:
// worse, not worse, undecided with the cases it needs), and the note that
// says how it reads beside the McNemar colour.
func TestComparePageShowsTheMargin(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t)
	dir := marginRun(t, 100, 2)
	page := filepath.Join(t.TempDir(), "compare.html")
	r := runCLI(t, context.Background(), "compare", dir, "--models", "twin-a,weak", "--margin", "5pts", "--format", "html", "-o", page)
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	browsertest.Open(t, ctx, page)
	tctx, cancel := context.WithTimeout(ctx, 30*time.Second) // a deadlock guard, not a measurement
	defer cancel()
	if err := chromedp.Do(tctx, chromedp.WaitVisible(`body[data-drawn] #paired table.pairs`)); err != nil {
		t.Fatalf("no paired table: %v", err)
	}
	lines, err := chromedp.Run(tctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#paired td.pc")].map(td => {
		const ni = td.querySelector(".ni");
		return td.className + " | " + (ni ? ni.className + " | " + ni.textContent : "none");
	})`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"pc worse | ni ni-worse | [-49.8, -30.9] · worse by more than 5 pts",                         // pass
		"pc worse | ni ni-worse | [-49.8, -30.9] · worse by more than 5 pts",                         // selection
		"pc same | ni ni-not_worse | [-3.7, +3.7] · not worse by more than 5 pts",                    // arg_validity
		"pc same | ni ni-undecided | [-6.1, +6.1] · undecided: need more cases (~73 cases, 13 more)", // arg_accuracy: 60 cases
		"pc same | none", // irrelevance: no case expects no tool
		"pc same | ni ni-not_worse | [-3.7, +3.7] · not worse by more than 5 pts", // round_limit
		"pc same | ni ni-not_worse | [-3.7, +3.7] · not worse by more than 5 pts", // failed_call
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("cells:\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	note, err := chromedp.Run(tctx, chromedp.Evaluate[string](`document.querySelector("#paired p.note + h3 + p.note, #paired h3 + p.note").textContent`))
	if err != nil || !strings.HasPrefix(note, "Margin 5 pts: under each rate, Tango's 95% interval of weak − twin-a") {
		t.Errorf("the margin's note: %q, %v", note, err)
	}
	browsertest.ScreenshotOf(t, ctx, "#paired", "compare-margin.png")
}
