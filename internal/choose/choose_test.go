package choose

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolgrade/toolgrade/internal/cli"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/stats"
	"github.com/toolgrade/toolgrade/internal/store"
)

// fixtureModel is one model of a fixture run: what /api/ps listed, a
// trial's wall time, and how many of the first cases it fails in every
// repeat.
type fixtureModel struct {
	name   string
	size   int64
	wall   time.Duration
	fails  int
	digest string
}

var (
	big   = fixtureModel{name: "qwen3:8b", size: 5_200_000_000, wall: 3 * time.Second}
	small = fixtureModel{name: "qwen3:1.7b", size: 1_200_000_000, wall: time.Second}
)

// fixtureRun writes a run of models × cases × repeat into a directory and
// opens it; every model answers a case the same way every repeat, as at
// temperature 0. Every model fails the last case, so that no rate is 100%
// and the intervals are honest; a model fails its first fails cases too.
func fixtureRun(t *testing.T, cases, repeat int, models ...fixtureModel) *store.Reader {
	t.Helper()
	dir := t.TempDir()
	run := &record.Run{Suite: record.RunSuite{Name: "fixture"}, Repeat: repeat, Status: "complete"}
	var lines strings.Builder
	w := record.NewWriter(&lines)
	for _, m := range models {
		run.Models = append(run.Models, record.Model{Name: m.name, Digest: m.digest, ParameterSize: "8B", Quantization: "Q4_K_M", Load: time.Second,
			Cost: &record.Cost{Loaded: &record.Loaded{Size: m.size, SizeVRAM: m.size, ContextLength: 8192}}})
		for c := range cases {
			for r := range repeat {
				outcome := record.OutcomePass
				if c == cases-1 || c < m.fails {
					outcome = record.OutcomeWrongTool
				}
				tr := &record.Trial{Model: m.name, CaseID: fmt.Sprintf("c%03d", c), Repeat: r,
					Transcript: &record.Transcript{Wall: m.wall, Rounds: []record.Round{{Metrics: record.Metrics{
						PromptEvalCount: 500, PromptEvalDuration: m.wall / 10, EvalCount: 20, EvalDuration: m.wall / 2}}}},
					Score: record.Score{Outcome: outcome, CallExpected: true, ToolCorrect: outcome == record.OutcomePass, ArgsCorrect: outcome == record.OutcomePass}}
				if err := w.Write(tr); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if err := record.WriteRun(dir, run); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, record.TrialsFile), []byte(lines.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	rd, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return rd
}

func mustChoose(t *testing.T, r *store.Reader, o Options) *Choice {
	t.Helper()
	c, w, err := Choose(r, o)
	if err != nil || len(w) > 0 {
		t.Fatalf("choose: %v (warnings %v)", err, w)
	}
	return c
}

// TestIdenticalModelsTheCheaperIsChosen: two models that behave alike on
// every one of enough cases are within 5 points of each other: the cheaper
// is recommended, with its test, what it rests on and what it saves.
func TestIdenticalModelsTheCheaperIsChosen(t *testing.T) {
	c := mustChoose(t, fixtureRun(t, 100, 10, big, small), Options{})
	want := "qwen3:1.7b: not worse than qwen3:8b by more than 5 pts on pass (interval −3.7 to +3.7) over 100 cases (1000 trials, repeats agree on 100 of 100 cases), 3.0× faster at p50, 1.2 GB vs 5.2 GB"
	if c.Reference != "qwen3:8b" || c.Candidate != "qwen3:1.7b" || c.Recommendation.Kind != KindCandidate ||
		c.Recommendation.Model != "qwen3:1.7b" || c.Recommendation.Text != want {
		t.Errorf("reference %s, candidate %s, recommendation %+v\nwant %s", c.Reference, c.Candidate, c.Recommendation, want)
	}
	b, s := c.Row("qwen3:8b"), c.Row("qwen3:1.7b")
	if b.Frontier || b.DominatedBy != "qwen3:1.7b" || !s.Frontier || !b.Reference || !s.Candidate || b.Versus != nil {
		t.Errorf("rows %+v / %+v", b, s)
	}
	if v := s.Versus; v.Pairs != 1000 || v.Evidence.Cases != 100 || v.Diff != 0 || v.Verdict != "not_worse" || v.Test != "~" {
		t.Errorf("versus %+v", v)
	}
	if s.Cost.Size != 1_200_000_000 || s.Cost.P50 < 0.99 || s.Cost.P50 > 1.01 || s.Cost.EvalTokensPerSecond != 40 || c.CostBy != CostMemory {
		t.Errorf("cost %+v (by %s)", s.Cost, c.CostBy)
	}
}

// TestAWorseModelKeepsTheReference: a model that fails 20 of 100 cases
// more, in every one of 10 repeats, is worse by more than 5 points: the
// reference is kept, and the sentence says why.
func TestAWorseModelKeepsTheReference(t *testing.T) {
	weak := small
	weak.fails = 20
	c := mustChoose(t, fixtureRun(t, 100, 10, big, weak), Options{})
	r := c.Recommendation
	if c.Candidate != "qwen3:1.7b" || r.Kind != KindReference || r.Model != "qwen3:8b" ||
		!strings.HasPrefix(r.Text, "qwen3:8b: keep it; qwen3:1.7b is worse by more than 5 pts on pass (interval −") {
		t.Errorf("recommendation %+v", r)
	}
	if v := c.Row("qwen3:1.7b").Versus; v.Verdict != "worse" || v.Hi >= -0.05 || v.Diff != -0.2 {
		t.Errorf("versus %+v", v)
	}
	// Both are on the frontier: one is better, the other cheaper.
	if !c.Row("qwen3:8b").Frontier || !c.Row("qwen3:1.7b").Frontier {
		t.Errorf("frontier: %+v", c.Models)
	}
}

// TestTooFewCasesAreUndecidedWithTheCasesNeeded: 11 cases cannot show two
// models that behave alike within 5 points, however often they are
// repeated: the recommendation says so, and how many cases would (Nam's
// sample size at the observed rates, 80% power). Ten repeats that agree
// add nothing, and the recommendation says so rather than asking for more.
func TestTooFewCasesAreUndecidedWithTheCasesNeeded(t *testing.T) {
	need := stats.PairsForNonInferiority(10.0/11, 10.0/11, 0, 0.05, 0.025, 0.8)
	for _, tt := range []struct {
		repeat int
		tail   string
	}{
		{1, fmt.Sprintf(" over 11 cases (one trial each); about %d cases would decide: write about %d more cases", need, need-11)},
		{10, fmt.Sprintf(" over 11 cases (110 trials, repeats agree on 11 of 11 cases); about %d cases would decide: "+
			"repeats agree on every case (as at temperature 0), so more repeats add nothing: write about %d more cases", need, need-11)},
	} {
		c := mustChoose(t, fixtureRun(t, 11, tt.repeat, big, small), Options{})
		r, v := c.Recommendation, c.Row("qwen3:1.7b").Versus
		if r.Kind != KindUndecided || r.Model != "" || v.Verdict != "undecided" || need != 73 || r.CasesNeeded != need || r.MoreCases != need-11 ||
			r.PairsNeeded != need*tt.repeat {
			t.Fatalf("%d repeats: recommendation %+v, versus %+v, want %d cases", tt.repeat, r, v, need)
		}
		if !strings.HasPrefix(r.Text, "undecided: qwen3:1.7b against qwen3:8b at 5 pts on pass (interval −") || !strings.HasSuffix(r.Text, tt.tail) ||
			strings.Contains(r.Text, "--repeat") {
			t.Errorf("%d repeats: text %q\nwant it to end %q", tt.repeat, r.Text, tt.tail)
		}
	}
}

// TestAGivenReference: --reference judges against the model given; a name
// that is not a model of the run is a usage error naming the nearest.
func TestAGivenReference(t *testing.T) {
	rd := fixtureRun(t, 100, 10, big, small)
	c := mustChoose(t, rd, Options{Reference: "qwen3:1.7b"})
	if c.Reference != "qwen3:1.7b" || !c.ReferenceGiven || c.Candidate != "" || c.Recommendation.Kind != KindReference ||
		c.Recommendation.Text != "qwen3:1.7b: no model of the frontier is cheaper (by memory); none is as good on pass for less" {
		t.Errorf("choice %+v", c.Recommendation)
	}
	_, _, err := Choose(rd, Options{Reference: "qwen3:1.8b"})
	var ie *cli.UsageError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), `unknown model "qwen3:1.8b"`) || !strings.Contains(err.Error(), "qwen3:1.7b") {
		t.Errorf("unknown reference: %v", err)
	}
}

// TestOneModelAndAnOlderRun: a run of one model says there is nothing to
// choose; a run without memory in run.json orders cost by p50 and says so.
func TestOneModelAndAnOlderRun(t *testing.T) {
	c := mustChoose(t, fixtureRun(t, 11, 2, big), Options{})
	if c.Recommendation.Kind != KindOnly || c.Recommendation.Model != "qwen3:8b" {
		t.Errorf("one model: %+v", c.Recommendation)
	}
	old := big
	old.size = 0
	c = mustChoose(t, fixtureRun(t, 100, 10, old, small), Options{})
	// The fixture's run.json names no schedule: its models ran in blocks.
	if c.CostBy != CostP50 || !slices.Equal(c.Warnings, []string{record.ConfoundedNote, "run.json does not say how much memory every model took (qwen3:8b: Ollama's /api/ps did not list it after its warm-up (it unloaded it at once, or this Ollama does not say)): cost is ordered by p50 latency alone"}) ||
		c.Candidate != "qwen3:1.7b" || c.Recommendation.Kind != KindCandidate ||
		!strings.HasSuffix(c.Recommendation.Text, "3.0× faster at p50") {
		t.Errorf("older run: by %s, %v, %+v", c.CostBy, c.Warnings, c.Recommendation)
	}
}

// TestSameWeightsAreNamedAndShareTheirMemory: two names of one digest are
// named as the same weights, and the one whose memory /api/ps did not list
// (Ollama lists the weights once) takes the other's, so cost still orders
// by memory.
func TestSameWeightsAreNamedAndShareTheirMemory(t *testing.T) {
	a := big
	a.digest = "sha256:1a2b3c4d5e6f"
	b := a
	b.name, b.size = "my-qwen", 0
	c := mustChoose(t, fixtureRun(t, 11, 2, a, b, small), Options{})
	want := []string{
		"my-qwen's memory is qwen3:8b's: the same weights, which Ollama loads and lists once",
		"qwen3:8b and my-qwen are the same weights (digest 1a2b3c4d): differences between them are noise",
		record.ConfoundedNote,
	}
	if c.CostBy != CostMemory || !slices.Equal(c.Warnings, want) || c.Row("my-qwen").Cost.Size != big.size {
		t.Errorf("by %s, warnings %q, my-qwen %+v", c.CostBy, c.Warnings, c.Row("my-qwen").Cost)
	}
}

func TestFormatting(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{PointsRange(-0.0312, 0.0118), "−3.2 to +1.2"},
		{PointsRange(0, 0), "0.0 to 0.0"},
		{SignedPoints(-0.5), "−50.0 pts"},
		{Bytes(5_234_000_000), "5.2 GB"}, {Bytes(640_000_000), "640 MB"}, {Bytes(0), "–"}, {Bytes(999), "999 B"},
	} {
		if tc.got != tc.want {
			t.Errorf("%q, want %q", tc.got, tc.want)
		}
	}
}

// TestTheWalkAlongTheFrontier: of three models, the costliest is as good as
// a mid-sized one and off the frontier; the walk from the reference judges
// the mid-sized one not worse, then stops at the smallest, worse: the
// mid-sized one is recommended, and the sentence says why not the smallest.
func TestTheWalkAlongTheFrontier(t *testing.T) {
	mid := fixtureModel{name: "qwen3:4b", size: 3_000_000_000, wall: 2 * time.Second}
	tiny := fixtureModel{name: "qwen3:0.6b", size: 600_000_000, wall: 500 * time.Millisecond, fails: 30}
	c := mustChoose(t, fixtureRun(t, 100, 10, big, mid, tiny), Options{})
	r := c.Recommendation
	want := "qwen3:4b: not worse than qwen3:8b by more than 5 pts on pass (interval −3.7 to +3.7) over 100 cases (1000 trials, repeats agree on 100 of 100 cases), 1.5× faster at p50, 3.0 GB vs 5.2 GB; qwen3:0.6b, cheaper still, is worse by more than 5 pts on pass (interval −"
	if c.Reference != "qwen3:8b" || r.Kind != KindCandidate || r.Model != "qwen3:4b" || !strings.HasPrefix(r.Text, want) ||
		strings.Join(c.Tested, ",") != "qwen3:4b,qwen3:0.6b" || c.Candidate != "qwen3:4b" || !c.Row("qwen3:4b").Candidate {
		t.Errorf("tested %v, recommendation %+v\nwant it to begin %s", c.Tested, r, want)
	}
	if c.Row("qwen3:8b").Frontier || !c.Row("qwen3:4b").Frontier || !c.Row("qwen3:0.6b").Frontier {
		t.Errorf("frontier: %+v", c.Models)
	}
}
