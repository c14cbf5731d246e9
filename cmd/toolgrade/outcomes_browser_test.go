package main

import (
	"context"
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
)

// namedOutcomesScript plays a model that sends an integer as a string,
// plans a call in its thinking without making it, and loops; its 2048-token
// context is too small for one question.
const namedOutcomesScript = `
models:
  - {name: thinker, capabilities: [completion, tools, thinking], parameter_size: 8B, num_ctx: 2048}
rules:
  - user: {contains: top three}
    tool_result: {regex: "."}
    reply: {content: "Here they are."}
  - user: {contains: top three}
    reply: {tool_calls: [{name: search, arguments: {query: vegetarian, top_k: "3"}}]}
  - user: {contains: dog}
    reply:
      thinking: '<tool_call>{"name": "search", "arguments": {"query": "dog"}}</tool_call>'
      content: "Probably yes."
  - user: {contains: loop}
    tools_offered: true
    reply: {tool_calls: [{name: search, arguments: {query: x}}]}
  - user: {contains: loop}
    reply: {content: "Not found."}
`

// TestHTMLReportShowsTheNamedOutcomes: the model table of report.html says
// what validity reads if coerced and how many trials were kept out as
// truncated and how many calls repeated, from the run's summary.json; the
// outcome call_in_thinking has its colour in the legend.
func TestHTMLReportShowsTheNamedOutcomes(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t)
	script, err := fakeollama.ParseScript([]byte(namedOutcomesScript), "named.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, url := fakeOllama(t, script)
	text := `name: named
servers: ` + serversFile(t, "docs") + `
models: [thinker]
cases:
  - {id: string-int, ask: "The top three vegetarian dishes?", expect: {tool: search}}
  - {id: thinks, ask: "Can I bring my dog?", expect: {tool: search}}
  - {id: loops, ask: "loop please", max_rounds: 3, expect: {tool: search}}
  - {id: too-long, ask: "` + strings.Repeat("word ", 2000) + `", expect: {tool: search}}
`
	suite := filepath.Join(t.TempDir(), "named.yaml")
	if err := os.WriteFile(suite, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	r := runCLI(t, context.Background(), "run", suite, "--out", dir, "--ollama", url)
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	for _, want := range []string{"valid if coerced 100%", "1 trial kept out of every rate", "2 calls repeated", "call_in_thinking (1)", `repeating search({"query":"x"})`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the terminal report lacks %q:\n%s", want, r.stdout)
		}
	}

	browsertest.Open(t, ctx, filepath.Join(dir, record.HTMLFile))
	tctx, cancel := context.WithTimeout(ctx, 30*time.Second) // a deadlock guard, not a measurement
	defer cancel()
	if err := chromedp.Do(tctx, chromedp.WaitVisible(`body[data-drawn] #models`)); err != nil {
		t.Fatalf("the overview was never drawn: %v", err)
	}
	type row struct{ Name, Validity string }
	got, err := chromedp.Run(tctx, chromedp.Evaluate[row](`(() => { const tr = document.querySelector("table.models tr[data-row]");
		return {Name: tr.querySelector("th.name").textContent, Validity: tr.querySelector('td[data-metric="arg_validity"]').textContent}; })()`))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"1 truncated", "2 repeated"} {
		if !strings.Contains(got.Name, want) {
			t.Errorf("the model's cell %q lacks %q", got.Name, want)
		}
	}
	if !strings.Contains(got.Validity, "valid if coerced 100.0%") {
		t.Errorf("the validity cell %q lacks valid if coerced", got.Validity)
	}
	cell, err := chromedp.Run(tctx, chromedp.Evaluate[string](`document.querySelector('table.heat td.cell[data-case="too-long"]').textContent`))
	if err != nil || cell != "truncated✂1" {
		t.Errorf("the heat map's too-long cell reads %q (%v), want truncated✂1", cell, err)
	}
	legend, err := chromedp.Run(tctx, chromedp.Evaluate[string](`document.body.textContent`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(legend, "call in thinking") {
		t.Error("the page never names call in thinking")
	}
	// The fake answers in well under 10 ms: the latency bins' labels still
	// tell the bins apart (0.3 ms, 1.2 ms, not 0 ms, 1 ms, 1 ms).
	ticks, err := chromedp.Run(tctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#latency svg.hist text.bar-tick")].map(t => t.textContent)`))
	if err != nil || len(ticks) < 2 {
		t.Fatalf("latency ticks %q (%v)", ticks, err)
	}
	for i, a := range ticks {
		if slices.Contains(ticks[i+1:], a) {
			t.Errorf("two latency bins are labelled %q: %q", a, ticks)
		}
	}
}
