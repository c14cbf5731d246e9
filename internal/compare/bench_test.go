package compare

import (
	"bufio"
	"encoding/json"
	"fmt"
	"github.com/toolgrade/toolgrade/fakes/rig"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/store"
)

// benchRun writes a run of n trials (n/2 cases × 2 models, 1 repeat) whose
// transcripts have two rounds: a tool call with its result of resultBytes,
// then the answer. side shifts outcomes and latencies so the comparison has
// regressions, fixes and a latency change to find.
func benchRun(b *testing.B, dir string, n, resultBytes, side int) {
	b.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := record.WriteRun(dir, baseRun()); err != nil {
		b.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, record.TrialsFile))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 1<<20)
	w := record.NewWriter(bw)
	result := strings.Repeat("The terrace welcomes dogs on a leash. ", resultBytes/38+1)[:resultBytes]
	args := json.RawMessage(`{"query":"can I bring a dog","top_k":5}`)
	for i := range n {
		model := []string{"m", "n"}[i%2]
		c := fmt.Sprintf("case-%05d", i/2)
		outcome := record.OutcomePass
		switch {
		case (i/2)%10 == side:
			outcome = record.OutcomeWrongArgs
		case (i/2)%37 == 0:
			outcome = record.OutcomeInfraError
		}
		tr := trial(model, "", c, 0, outcome, time.Duration(900+i%200+side*50)*time.Millisecond)
		call := record.ToolCall{ID: "call_" + strconv.Itoa(i), Name: "search", Arguments: args}
		tr.Transcript.Messages = []record.Message{
			{Role: "system", Content: "You answer questions about the venue using the tools."},
			{Role: "user", Content: "Can I bring my dog to the terrace on Sunday?"},
		}
		tr.Transcript.Rounds[0].Request = record.Request{Messages: 2, ToolsSent: true, Tools: 3, Options: map[string]any{"temperature": 0, "seed": 42}}
		tr.Transcript.Rounds[0].Response = record.Response{ToolCalls: []record.ToolCall{call}, DoneReason: "stop", Chunks: 12}
		tr.Transcript.Rounds[0].Executions = []record.Execution{{CallID: call.ID, Name: "search", Server: "docs", Tool: "search", Arguments: args, Result: result, Duration: 3 * time.Millisecond}}
		tr.Transcript.Rounds[1].Request = record.Request{Messages: 4, ToolsSent: true, Tools: 3, Options: map[string]any{"temperature": 0, "seed": 42}}
		tr.Transcript.Rounds[1].Response = record.Response{Content: "Yes. Dogs are welcome on the terrace, on a leash.", DoneReason: "stop", Chunks: 14}
		tr.Transcript.Answer = tr.Transcript.Rounds[1].Response.Content
		if err := w.Write(tr); err != nil {
			b.Fatal(err)
		}
	}
	if err := bw.Flush(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkCompare compares two 100,000-trial runs; peak-RSS-MB is the
// process's peak resident memory during the comparisons, cpu-s/op the CPU
// time of one (on a shared machine, what the others' load leaves alone).
// The large variant has tool results 8 times longer: neither time nor
// memory may follow the transcripts, which a comparison never decodes.
func BenchmarkCompare(b *testing.B) {
	const n = 100_000
	for _, size := range []struct {
		name   string
		result int
	}{{"100k-trials-results-512B", 512}, {"100k-trials-results-4KB", 4096}}[:benchSizes()] {
		dir := b.TempDir()
		benchRun(b, filepath.Join(dir, "base"), n, size.result, 0)
		benchRun(b, filepath.Join(dir, "current"), n, size.result, 1)
		st, _ := os.Stat(filepath.Join(dir, "base", record.TrialsFile))
		b.Run(size.name, func(b *testing.B) {
			base, err := store.Open(filepath.Join(dir, "base"))
			if err != nil {
				b.Fatal(err)
			}
			cur, err := store.Open(filepath.Join(dir, "current"))
			if err != nil {
				b.Fatal(err)
			}
			rig.ResetPeakRSS()
			cpu := rig.CPUSeconds()
			b.ResetTimer()
			for range b.N {
				c, _, err := Runs(base, cur, nil)
				if err != nil {
					b.Fatal(err)
				}
				if got := c.Groups[0].Pairs; got != n/2 {
					b.Fatalf("%d pairs, want %d", got, n/2)
				}
			}
			b.StopTimer()
			b.ReportMetric((rig.CPUSeconds()-cpu)/float64(b.N), "cpu-s/op")
			b.ReportMetric(rig.PeakRSSMB(), "peak-RSS-MB")
			b.ReportMetric(float64(st.Size())/(1<<20), "file-MB")
		})
	}
}

// benchSizes is how many transcript sizes BenchmarkCompare runs:
// TOOLGRADE_BENCH_SMALL=1 keeps only the first, for profiling.
func benchSizes() int {
	if os.Getenv("TOOLGRADE_BENCH_SMALL") == "1" {
		return 1
	}
	return 2
}
