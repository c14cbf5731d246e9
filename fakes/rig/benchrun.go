package rig

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/toolgrade/toolgrade/internal/record"
)

// BenchRun writes a finished run of n trials into dir for the benchmarks
// of a decision (compare, choose, gates): n/2 cases × models m and n, one
// repeat, each trial two rounds, a search call whose result is resultBytes
// long, then the answer. side shifts outcomes and latencies, so that two
// runs written with sides 0 and 1 differ by regressions, fixes and a
// latency change for a comparison to find.
func BenchRun(dir string, n, resultBytes, side int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := record.WriteRun(dir, RunMeta(benchTools)); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, record.TrialsFile))
	if err != nil {
		return err
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 1<<20)
	w := record.NewWriter(bw)
	result := strings.Repeat("The terrace welcomes dogs on a leash. ", resultBytes/38+1)[:resultBytes]
	for i := range n {
		if err := w.Write(benchTrial(i, side, result)); err != nil {
			return err
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// benchTools is the catalog of a benchmark run: the docs server's search.
const benchTools = `[{"type":"function","function":{"name":"search","description":"Search the docs.","parameters":{"type":"object","properties":{"query":{"type":"string"},"top_k":{"type":"integer"}},"required":["query"]}}}]`

// RunMeta is the run.json of a recorded two-model run (m and n) on the docs
// suite whose one catalog is tools (Ollama's tool format, as JSON): what
// benchmark runs and comparison fixtures start from.
func RunMeta(tools string) *record.Run {
	return &record.Run{
		Suite:   record.RunSuite{Name: "docs", Path: "suite.yaml", Hash: "s1"},
		Harness: "v1",
		Ollama:  record.RunOllama{URL: "http://127.0.0.1:11434", Version: "0.12.0"},
		Models: []record.Model{
			{Name: "m", Digest: "d1", ParameterSize: "8B", Quantization: "Q4_K_M", Load: 2 * time.Second},
			{Name: "n", Digest: "d2", ParameterSize: "1.7B", Quantization: "Q8_0", Load: time.Second},
		},
		CatalogHash: "c1", Repeat: 1, BaseSeed: 42,
		Options:   map[string]any{"temperature": 0.0},
		MaxRounds: 5, Status: "complete",
		Catalogs: []record.RunCatalog{{Variant: "", Hash: "h1", Tools: json.RawMessage(tools)}},
	}
}

// benchTrial is trial i of a benchmark run: one case in ten fails with
// wrong arguments (which ten depends on side), one in 37 is an
// infrastructure error.
func benchTrial(i, side int, result string) *record.Trial {
	model := []string{"m", "n"}[i%2]
	outcome := record.OutcomePass
	sc := record.Score{CallExpected: true, Rounds: 2, ToolCorrect: true, ArgsCorrect: true, CallsToKnownTools: 1, ValidCalls: 1}
	switch {
	case (i/2)%10 == side:
		outcome, sc.ArgsCorrect, sc.Detail = record.OutcomeWrongArgs, false, "top_k: 5 != 3"
	case (i/2)%37 == 0:
		outcome, sc = record.OutcomeInfraError, record.Score{CallExpected: true, Rounds: 2, Detail: "ollama: connection refused"}
	}
	sc.Outcome = outcome
	wall := time.Duration(900+i%200+side*50) * time.Millisecond
	args := json.RawMessage(`{"query":"can I bring a dog","top_k":5}`)
	call := record.ToolCall{ID: "call_" + strconv.Itoa(i), Name: "search", Arguments: args}
	opts := map[string]any{"temperature": 0, "seed": 42}
	metrics := record.Metrics{PromptEvalCount: 100, EvalCount: 20, EvalDuration: 200 * time.Millisecond}
	answer := "Yes. Dogs are welcome on the terrace, on a leash."
	return &record.Trial{Model: model, CaseID: fmt.Sprintf("case-%05d", i/2), Seed: 42, Attempts: 1, Score: sc,
		Transcript: &record.Transcript{Model: model, Answer: answer, Wall: wall,
			Messages: []record.Message{
				{Role: "system", Content: "You answer questions about the venue using the tools."},
				{Role: "user", Content: "Can I bring my dog to the terrace on Sunday?"},
			},
			Rounds: []record.Round{{
				Index: 1, Wall: wall / 2, Metrics: metrics,
				Request:    record.Request{Messages: 2, ToolsSent: true, Tools: 3, Options: opts},
				Response:   record.Response{ToolCalls: []record.ToolCall{call}, DoneReason: "stop", Chunks: 12},
				Executions: []record.Execution{{CallID: call.ID, Name: "search", Server: "docs", Tool: "search", Arguments: args, Result: result, Duration: 3 * time.Millisecond}},
			}, {
				Index: 2, Wall: wall / 2, Metrics: metrics,
				Request:  record.Request{Messages: 4, ToolsSent: true, Tools: 3, Options: opts},
				Response: record.Response{Content: answer, DoneReason: "stop", Chunks: 14},
			}}}}
}
