package curve

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgrade/toolgrade/internal/record"
)

var writeFixture = flag.Bool("fixture", false, "rewrite testdata/sweep, the recorded sweep run the tests of reports, gate, compare and cmd read")

// FixtureDir is the recorded tool-count sweep: two models, decoys 0, 10, 30
// and 60 over a three-tool catalog (3, 13, 33 and 63 tools), ten cases (c09
// expects no call) repeated twice. "good" picks the right tool except once
// at 60 decoys; "weak" picks a wrong tool in the first 2, 3, 6 and 12 of its
// 18 call-expecting trials (case by case, repeat by repeat), and its last
// call-expecting trial at 10 decoys (c08 #1) is an infrastructure error.
// Walls are (500 + 10·tools) ms for good, twice that for weak; the first
// request's prompt is 200 + 50·tools tokens (the infrastructure error's
// 99999 tokens in a minute, which no figure may count).
const fixtureDir = "testdata/sweep"

var fixtureDecoys = []int{0, 10, 30, 60}

// weakWrong is how many of weak's call-expecting trials pick a wrong tool at
// each decoy count.
var weakWrong = map[int]int{0: 2, 10: 3, 30: 6, 60: 12}

func tool(name string) string {
	return fmt.Sprintf(`{"type":"function","function":{"name":%q,"description":"Tool %s.","parameters":{"type":"object","properties":{}}}}`, name, name)
}

func fixtureRun() *record.Run {
	run := &record.Run{
		Suite:   record.RunSuite{Name: "sweep", Path: "sweep.yaml", Hash: "s1"},
		Harness: "v1",
		Ollama:  record.RunOllama{URL: "http://127.0.0.1:11434", Version: "0.12.0"},
		Models:  []record.Model{{Name: "good"}, {Name: "weak"}},
		Repeat:  2, BaseSeed: 42, MaxRounds: 5, Status: "complete",
		Start: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC),
	}
	for _, n := range fixtureDecoys {
		tools := []string{tool("search"), tool("fetch"), tool("list")}
		var decoys []string
		for i := range n {
			name := fmt.Sprintf("decoy_%02d", i)
			decoys = append(decoys, name)
			tools = append(tools, tool(name))
		}
		c := record.RunCatalog{Hash: fmt.Sprintf("h%d", n), Tools: json.RawMessage("[" + strings.Join(tools, ",") + "]"),
			Sweep: map[string]any{"decoys": float64(n)}, Decoys: decoys}
		if n > 0 {
			c.Variant = fmt.Sprintf("decoys=%d", n)
		}
		run.Catalogs = append(run.Catalogs, c)
	}
	return run
}

func fixtureTrials() []*record.Trial {
	var out []*record.Trial
	for _, model := range []string{"good", "weak"} {
		for _, n := range fixtureDecoys {
			tools := 3 + n
			variant := ""
			if n > 0 {
				variant = fmt.Sprintf("decoys=%d", n)
			}
			wall := time.Duration(500+10*tools) * time.Millisecond
			if model == "weak" {
				wall *= 2
			}
			for c := range 10 {
				for r := range 2 {
					i := 2*c + r
					outcome := record.OutcomePass
					switch {
					case c == 9:
					case model == "good" && n == 60 && i == 0:
						outcome = record.OutcomeWrongTool
					case model == "weak" && n == 10 && i == 17:
						outcome = record.OutcomeInfraError
					case model == "weak" && i < weakWrong[n]:
						outcome = record.OutcomeWrongTool
					}
					out = append(out, fixtureTrial(model, variant, fmt.Sprintf("c%02d", c), r, c != 9, outcome, wall, 200+50*tools))
				}
			}
		}
	}
	return out
}

func fixtureTrial(model, variant, caseID string, repeat int, callExpected bool, outcome string, wall time.Duration, prompt int) *record.Trial {
	sc := record.Score{Outcome: outcome, CallExpected: callExpected, Rounds: 2}
	rounds := []record.Round{
		{Index: 1, Wall: wall / 2, Metrics: record.Metrics{PromptEvalCount: prompt, EvalCount: 20, EvalDuration: 100 * time.Millisecond}},
		{Index: 2, Wall: wall / 2, Metrics: record.Metrics{PromptEvalCount: prompt + 30, EvalCount: 10, EvalDuration: 50 * time.Millisecond}},
	}
	switch {
	case outcome == record.OutcomeInfraError:
		// Numbers no figure may count: the trial is excluded.
		sc.Detail = "ollama: connection refused"
		rounds = rounds[:1]
		rounds[0].Metrics.PromptEvalCount, wall = 99999, time.Minute
	case !callExpected:
		ok := true
		sc.IrrelevanceOK, sc.Rounds = &ok, 1
		rounds = rounds[:1]
	case outcome == record.OutcomePass:
		sc.ToolCorrect, sc.ArgsCorrect, sc.CallsToKnownTools, sc.ValidCalls = true, true, 1, 1
	case outcome == record.OutcomeWrongTool:
		sc.CallsToKnownTools, sc.ValidCalls = 1, 1
		sc.Detail = "called decoy_03, want search"
	}
	limit := false
	if outcome != record.OutcomeInfraError {
		sc.RoundLimit = &limit
	}
	return &record.Trial{Model: model, CaseID: caseID, Variant: variant, Repeat: repeat, Seed: 42 + int64(repeat), Attempts: 1,
		Start:      time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC),
		Transcript: &record.Transcript{Model: model, Rounds: rounds, Answer: "ok", MaxRounds: 5, Wall: wall},
		Score:      sc}
}

func TestWriteFixture(t *testing.T) {
	if !*writeFixture {
		t.Skip("run with -fixture to rewrite testdata/sweep")
	}
	if err := os.MkdirAll(fixtureDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := record.WriteRun(fixtureDir, fixtureRun()); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(fixtureDir, record.TrialsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := record.NewWriter(f)
	for _, tr := range fixtureTrials() {
		if err := w.Write(tr); err != nil {
			t.Fatal(err)
		}
	}
}
