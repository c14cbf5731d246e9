package compare

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/toolgrade/toolgrade/fakes/rig"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/stats"
	"github.com/toolgrade/toolgrade/internal/store"
)

// baseRun is the run.json every fixture starts from.
func baseRun() *record.Run { return rig.RunMeta(searchTools) }

const searchTools = `[{"type":"function","function":{"name":"search","description":"Search the docs.","parameters":{"type":"object","properties":{"query":{"type":"string","description":"what to look for"},"top_k":{"type":"integer"}},"required":["query"]}}}]`

// trial builds a scored trial with an outcome and a two-round transcript
// whose wall time is wall.
func trial(model, variant, caseID string, repeat int, outcome string, wall time.Duration) *record.Trial {
	sc := record.Score{Outcome: outcome, CallExpected: true, Rounds: 2}
	switch outcome {
	case record.OutcomePass:
		sc.ToolCorrect, sc.ArgsCorrect, sc.CallsToKnownTools, sc.ValidCalls = true, true, 1, 1
	case record.OutcomeWrongArgs:
		sc.ToolCorrect, sc.CallsToKnownTools, sc.ValidCalls = true, 1, 1
		sc.Detail = "top_k: 5 != 3"
	case record.OutcomeInvalidArgs:
		sc.ToolCorrect, sc.CallsToKnownTools = true, 1
		sc.Detail = "query: required"
	case record.OutcomeWrongTool:
		sc.CallsToKnownTools, sc.ValidCalls = 1, 1
		sc.Detail = "called fetch, want search"
	case record.OutcomeNoCall:
		sc.Detail = "no tool call"
	case record.OutcomeRoundLimit:
		sc.ToolCorrect, sc.ArgsCorrect, sc.CallsToKnownTools, sc.ValidCalls = true, true, 5, 5
	case record.OutcomeInfraError:
		sc.Detail = "ollama: connection refused"
	}
	half := wall / 2
	round := func(i int) record.Round {
		return record.Round{Index: i, Wall: half, Metrics: record.Metrics{PromptEvalCount: 100, EvalCount: 20, EvalDuration: 200 * time.Millisecond}}
	}
	return &record.Trial{Model: model, CaseID: caseID, Variant: variant, Repeat: repeat, Seed: 42 + int64(repeat), Attempts: 1,
		Transcript: &record.Transcript{Model: model, Rounds: []record.Round{round(1), round(2)}, Answer: "ok", Wall: wall},
		Score:      sc}
}

// writeRun writes a run directory through the record writer.
func writeRun(t testing.TB, run *record.Run, trials []*record.Trial) *store.Reader {
	t.Helper()
	dir := t.TempDir()
	if err := record.WriteRun(dir, run); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, record.TrialsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := record.NewWriter(f)
	for _, tr := range trials {
		if err := w.Write(tr); err != nil {
			t.Fatal(err)
		}
	}
	r, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// kn is a rate's passes and trials, without its clusters, for comparing
// counts.
type kn struct{ k, n int }

func newRate(k, n int) kn { return kn{k, n} }

func (r kn) String() string { return fmt.Sprintf("%d/%d", r.k, r.n) }

func knOf(r stats.Rate) kn { return kn{r.K, r.N} }
