package report

import (
	"encoding/json"
	"fmt"
	"github.com/toolgrade/toolgrade/fakes/rig"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/report/browsertest"
)

// benchTrial makes trial i of a synthetic run of 5 models, each case
// repeated reps times: two rounds (a search call with a 512-byte result,
// then the answer), one trial in ten failing with wrong_args.
func benchTrial(i, reps int) *record.Trial {
	model := fmt.Sprintf("model-%d", i%5)
	c := fmt.Sprintf("case-%04d", i/5/reps)
	rep := (i / 5) % reps
	args := json.RawMessage(`{"query":"can I bring a dog","top_k":5}`)
	call := record.ToolCall{ID: "call_" + strconv.Itoa(i), Name: "search", Arguments: args}
	sc := record.Score{Outcome: record.OutcomePass, CallExpected: true, ToolCorrect: true, ArgsCorrect: true, CallsToKnownTools: 1, ValidCalls: 1, Rounds: 2}
	if i%10 == 3 {
		sc.Outcome, sc.ArgsCorrect, sc.Detail = record.OutcomeWrongArgs, false, "search (call 1): top_k: got 5, want 3"
	}
	wall := time.Duration(400+i%900) * time.Millisecond
	m := record.Metrics{PromptEvalCount: 500, EvalCount: 20, EvalDuration: 80 * time.Millisecond}
	return &record.Trial{Model: model, CaseID: c, Repeat: rep, Seed: 42 + int64(rep), Tags: []string{"search"}, Attempts: 1,
		Score: sc, Transcript: &record.Transcript{Model: model, MaxRounds: 4, Wall: wall,
			Messages: []record.Message{
				{Role: "system", Content: "You answer questions about the venue using the tools."},
				{Role: "user", Content: "Can I bring my dog to the terrace on Sunday?"},
			},
			Rounds: []record.Round{
				{Index: 1, Request: record.Request{Messages: 2, ToolsSent: true, Tools: 3}, Metrics: m, Wall: wall / 2,
					Response:   record.Response{ToolCalls: []record.ToolCall{call}, DoneReason: "stop", Chunks: 12},
					Executions: []record.Execution{{CallID: call.ID, Name: "search", Server: "docs", Tool: "search", Arguments: args, Result: strings.Repeat("The terrace welcomes dogs on a leash. ", 14)[:512], Duration: 3 * time.Millisecond}}},
				{Index: 2, Request: record.Request{Messages: 4, ToolsSent: true, Tools: 3}, Metrics: m, Wall: wall / 2,
					Response: record.Response{Content: "Yes. Dogs are welcome on the terrace, on a leash.", DoneReason: "stop", Chunks: 14}},
			},
			Answer: "Yes. Dogs are welcome on the terrace, on a leash."}}
}

func benchMeta() *record.Run {
	r := &record.Run{Suite: record.RunSuite{Name: "bench"}}
	for i := range 5 {
		r.Models = append(r.Models, record.Model{Name: fmt.Sprintf("model-%d", i)})
	}
	return r
}

// BenchmarkHTML builds the HTML report of 1,000 and 100,000 trials made on
// the fly (so only the report's own memory counts): time, peak RSS and the
// page's size.
func BenchmarkHTML(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		b.Run(fmt.Sprintf("%d-trials", n), func(b *testing.B) {
			reps := 10
			if n >= 100_000 {
				reps = 20
			}
			var size int64
			rig.ResetPeakRSS()
			for range b.N {
				h := NewHTML(benchMeta(), &HTMLOptions{TempDir: b.TempDir()})
				for i := range n {
					h.Add(benchTrial(i, reps))
				}
				cw := &countWriter{}
				if err := h.Write(cw); err != nil {
					b.Fatal(err)
				}
				size = cw.n
			}
			b.ReportMetric(rig.PeakRSSMB(), "peak-RSS-MB")
			b.ReportMetric(float64(size)/(1<<20), "page-MB")
		})
	}
}

type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

var _ io.Writer = (*countWriter)(nil)

// BenchmarkHTMLOverviewInChromium opens the page of a 10,000-trial run in
// headless Chromium: overview-ms is the time from navigation to the
// overview drawn (the goal is under 2 s), first-transcript-ms from a click
// on the heat map to its trial shown (the trials block parsed on the way),
// page-MB the file's size.
func BenchmarkHTMLOverviewInChromium(b *testing.B) {
	const n = 10_000
	path := filepath.Join(b.TempDir(), "report.html")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	h := NewHTML(benchMeta(), &HTMLOptions{TempDir: b.TempDir()})
	for i := range n {
		h.Add(benchTrial(i, 10))
	}
	if err := h.Write(f); err != nil {
		b.Fatal(err)
	}
	f.Close()
	st, _ := os.Stat(path)
	ctx := browsertest.New(b)
	var total, first float64
	b.ResetTimer()
	for range b.N {
		browsertest.Open(b, ctx, path)
		if err := chromedp.Do(ctx, chromedp.WaitVisible(`body[data-drawn] #matrix`)); err != nil {
			b.Fatal(err)
		}
		ms, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.dataset.drawn`))
		if err != nil {
			b.Fatal(err)
		}
		v, _ := strconv.ParseFloat(ms, 64)
		total += v
		// The first transcript parses the trials block.
		if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`window.t0 = performance.now(); document.querySelector("table.heat td.cell").click(); null`),
			chromedp.WaitVisible(`#transcript .thead`)); err != nil {
			b.Fatal(err)
		}
		open, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`performance.now() - window.t0`))
		if err != nil {
			b.Fatal(err)
		}
		first += open
		// Reset the page so the next navigation loads the file again.
		if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(total/float64(b.N), "overview-ms")
	b.ReportMetric(first/float64(b.N), "first-transcript-ms")
	b.ReportMetric(float64(st.Size())/(1<<20), "page-MB")
}
