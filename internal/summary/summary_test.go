package summary

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgrade/toolgrade/internal/record"
)

var update = flag.Bool("update", false, "rewrite the golden files from the fixture")

// fixtureDir is the recorded run every report's golden files are made from:
// cases/docs.yaml against the demo's two models, repeated twice.
const fixtureDir = "../report/testdata"

func fixture(t *testing.T) (*record.Run, []*record.Trial) {
	t.Helper()
	meta, err := record.ReadRun(fixtureDir)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(fixtureDir, record.TrialsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := record.NewReader(f, "trials.jsonl")
	var trials []*record.Trial
	for r.Scan() {
		trials = append(trials, r.Trial())
	}
	if r.Err() != nil || len(r.Warnings) > 0 || len(trials) != 100 {
		t.Fatalf("fixture: %v %v, %d trials", r.Err(), r.Warnings, len(trials))
	}
	return meta, trials
}

func summarize(meta *record.Run, trials []*record.Trial) *Summary {
	s := NewSummarizer(meta.Suite.Name, meta.Models)
	for _, t := range trials {
		s.Add(t)
	}
	return s.Summary()
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/summary -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (-want +got):\n%s", name, cmp.Diff(string(want), string(got)))
	}
}

func TestGoldenSummaryJSON(t *testing.T) {
	meta, trials := fixture(t)
	var b bytes.Buffer
	if err := WriteJSON(&b, summarize(meta, trials)); err != nil {
		t.Fatal(err)
	}
	golden(t, "summary.golden.json", b.Bytes())
}

// TestOrderDoesNotMatter: parallel trials finish in any order; the reports
// must not depend on it.
func TestOrderDoesNotMatter(t *testing.T) {
	meta, trials := fixture(t)
	want, _ := json.Marshal(summarize(meta, trials))
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5 {
		shuffled := append([]*record.Trial(nil), trials...)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		got, _ := json.Marshal(summarize(meta, shuffled))
		if !bytes.Equal(want, got) {
			t.Fatal("the summary depends on the order of the trials")
		}
	}
}

func trial(model, id string, repeat int, outcome string, callExpected bool) *record.Trial {
	return &record.Trial{
		Model: model, CaseID: id, Repeat: repeat,
		Transcript: &record.Transcript{Wall: time.Second, Rounds: []record.Round{{Wall: time.Second,
			Metrics: record.Metrics{PromptEvalCount: 100, EvalCount: 10, EvalDuration: time.Second}}}},
		Score: record.Score{Outcome: outcome, CallExpected: callExpected, ToolCorrect: outcome == record.OutcomePass,
			ArgsCorrect: outcome == record.OutcomePass, Rounds: 1},
	}
}

// TestHandComputedNumbers checks the summary of a small set of trials whose
// figures are worked out by hand.
func TestHandComputedNumbers(t *testing.T) {
	p, f, infra := record.OutcomePass, record.OutcomeWrongTool, record.OutcomeInfraError
	trials := []*record.Trial{
		// case a: 2 of 2 pass; case b: 1 of 2 (flaky); case c: 0 of 2; one infra error on c.
		trial("m", "a", 0, p, true), trial("m", "a", 1, p, true),
		trial("m", "b", 0, p, true), trial("m", "b", 1, f, true),
		trial("m", "c", 0, f, true), trial("m", "c", 1, f, true),
		trial("m", "c", 2, infra, true),
	}
	trials[6].Score.ToolCorrect = true // an infra error counts in no rate, whatever its score says
	s := NewSummarizer("x", nil)
	for _, tr := range trials {
		s.Add(tr)
	}
	m := s.Summary().Models[0]
	if m.Trials != 7 || m.Scored != 6 || m.Infra != 1 {
		t.Fatalf("trials %d scored %d infra %d", m.Trials, m.Scored, m.Infra)
	}
	// pass 3/6 = 0.5 over 3 cases of 2 repeats: a case is the unit. The
	// design effect Σ(N·k_i − K·n_i)²/(N·K·(N−K)) = (36·5 − 2·3·6·6 +
	// 9·12)/54 = 4/3, times the small-sample factor for 3 cases
	// (3/2·(4.303/1.960)² = 7.2), is clamped to Σn_i²/N = 2: the six
	// trials weigh as 3, and at every rate the interval tries the clamp
	// holds too. Wilson 95% on 1.5 of 3: centre 0.5, half-width
	// 1.96/(1+3.84/3)·sqrt(0.25/3+3.84/36) = 0.3747 → [0.1253, 0.8747].
	if lo, hi := m.Pass.Wilson95(); m.Pass.K != 3 || m.Pass.N != 6 || m.Pass.Cases != 3 || m.Pass.Deff != 2 ||
		math.Abs(lo-0.1253) > 1e-3 || math.Abs(hi-0.8747) > 1e-3 {
		t.Errorf("pass %+v: [%v, %v]", m.Pass, lo, hi)
	}
	if e := m.Evidence.String(); e != "3 cases (6 trials, repeats agree on 2 of 3 cases)" {
		t.Errorf("evidence %q", e)
	}
	if m.Selection.K != 3 || m.Selection.N != 6 {
		t.Errorf("selection %+v", m.Selection)
	}
	// pass^2 per case: a C(2,2)/C(2,2)=1, b 0, c 0 → 1/3; pass@2: a 1, b 1, c 0 → 2/3.
	if m.K != 2 || math.Abs(*m.PassHatK-1.0/3) > 1e-9 || math.Abs(*m.PassAtK-2.0/3) > 1e-9 {
		t.Errorf("k %d pass^k %v pass@k %v", m.K, *m.PassHatK, *m.PassAtK)
	}
	if m.Stable != 1 || m.Failing != 1 || len(m.Flaky) != 1 || m.Flaky[0] != "b" {
		t.Errorf("stable %d failing %d flaky %v", m.Stable, m.Failing, m.Flaky)
	}
	// 60 eval tokens over 6 seconds of eval.
	if m.TokensPerSecond != 10 || m.PromptTokens != 600 {
		t.Errorf("tok/s %v prompt %d", m.TokensPerSecond, m.PromptTokens)
	}
	if m.TrialLatency.P50 < 0.99 || m.TrialLatency.P50 > 1.01 {
		t.Errorf("p50 %v", m.TrialLatency.P50)
	}
	if len(m.Failures) != 2 || m.Failures[0].Outcome != f || m.Failures[0].Count != 3 || m.Failures[1].Outcome != infra {
		t.Errorf("failures %+v", m.Failures)
	}
}

func TestFailureExamplesAreBounded(t *testing.T) {
	s := NewSummarizer("x", nil)
	for i := range 1000 {
		s.Add(trial("m", "case", 999-i, record.OutcomeWrongTool, true))
	}
	g := s.Summary().Models[0].Failures[0]
	if g.Count != 1000 || len(g.Examples) != maxExamples || g.Examples[0].Repeat != 0 || g.Examples[4].Repeat != 4 {
		t.Errorf("%d examples of %d: %+v", len(g.Examples), g.Count, g.Examples)
	}
}

// TestSummaryJSONCarriesTheFormat: summary.json says its format; one without
// a format (older) and one of a newer minor read, a newer major is refused.
func TestSummaryJSONCarriesTheFormat(t *testing.T) {
	meta, trials := fixture(t)
	var b bytes.Buffer
	WriteJSON(&b, summarize(meta, trials))
	if !strings.HasPrefix(b.String(), "{\n  \"format\": \""+record.Format+"\",\n") {
		t.Fatalf("summary.json starts %.40q", b.String())
	}
	if s, err := ReadJSON(&b, "summary.json"); err != nil || len(s.Models) != 2 || len(s.Models[0].Cases) != 25 {
		t.Fatalf("read back: %v", err)
	}
	for text, want := range map[string]string{
		`{"models":[{"model":"m"}]}`:                           "",
		`{"format":"1.3","models":[{"model":"m","new":true}]}`: "",
		`{"format":"2.0","models":[{"model":"m"}]}`:            "summary.json: written by a newer toolgrade (format 2.0); this one reads format 1: upgrade toolgrade",
	} {
		s, err := ReadJSON(strings.NewReader(text), "summary.json")
		switch {
		case want == "" && (err != nil || s.Models[0].Model != "m"):
			t.Errorf("%s: %v", text, err)
		case want != "" && (err == nil || err.Error() != want):
			t.Errorf("%s: %v, want %s", text, err, want)
		}
	}
}

// TestConfoundedCostIsWarned: a run whose models ran in blocks says its
// latency may be the machine's; one that interleaved them does not.
func TestConfoundedCostIsWarned(t *testing.T) {
	for _, c := range []struct {
		schedule string
		want     bool
	}{{"", true}, {record.ScheduleBlocks, true}, {record.ScheduleInterleaved, false}, {record.ScheduleABBA, false}} {
		run := &record.Run{Schedule: c.schedule, Models: []record.Model{{Name: "a"}, {Name: "b"}}}
		s := (&Summary{Models: []ModelSummary{{Model: "a"}, {Model: "b"}}}).WithRun(run).WithRun(run)
		got := 0
		for _, w := range s.Warnings {
			if w == record.ConfoundedNote {
				got++
			}
		}
		if got != map[bool]int{true: 1, false: 0}[c.want] {
			t.Errorf("schedule %q: the note %d times in %q", c.schedule, got, s.Warnings)
		}
	}
}
