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

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/stats"
	"github.com/toolgrade/toolgrade/internal/store"
)

// fixtureModel is one model of a fixture run: what /api/ps listed, a
// trial's wall time, and the cases (of 11, a to k) it fails in every
// repeat.
type fixtureModel struct {
	name   string
	size   int64
	wall   time.Duration
	fails  string
	digest string
}

var (
	big   = fixtureModel{name: "qwen3:8b", size: 5_200_000_000, wall: 3 * time.Second}
	small = fixtureModel{name: "qwen3:1.7b", size: 1_200_000_000, wall: time.Second}
)

// fixtureRun writes a run of models × 11 cases × repeat into a directory
// and opens it. Every model fails case "k" in every repeat, so that no
// rate is 100% and the intervals are honest; a model fails its fails too.
func fixtureRun(t *testing.T, repeat int, models ...fixtureModel) *store.Reader {
	t.Helper()
	dir := t.TempDir()
	run := &record.Run{Suite: record.RunSuite{Name: "fixture"}, Repeat: repeat, Status: "complete"}
	var lines strings.Builder
	w := record.NewWriter(&lines)
	for _, m := range models {
		run.Models = append(run.Models, record.Model{Name: m.name, Digest: m.digest, ParameterSize: "8B", Quantization: "Q4_K_M", Load: time.Second,
			Cost: &record.Cost{Loaded: &record.Loaded{Size: m.size, SizeVRAM: m.size, ContextLength: 8192}}})
		for c := 'a'; c <= 'k'; c++ {
			for r := range repeat {
				outcome := record.OutcomePass
				if c == 'k' || strings.ContainsRune(m.fails, c) {
					outcome = record.OutcomeWrongTool
				}
				tr := &record.Trial{Model: m.name, CaseID: string(c), Repeat: r,
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
// every case, with enough repeats, are within 5 points of each other: the
// cheaper is recommended, with its test and what it saves.
func TestIdenticalModelsTheCheaperIsChosen(t *testing.T) {
	c := mustChoose(t, fixtureRun(t, 10, big, small), Options{})
	want := "qwen3:1.7b: not worse than qwen3:8b by more than 5 pts on pass (interval −3.4 to +3.4, 110 paired trials), 3.0× faster at p50, 1.2 GB vs 5.2 GB"
	if c.Reference != "qwen3:8b" || c.Candidate != "qwen3:1.7b" || c.Recommendation.Kind != KindCandidate ||
		c.Recommendation.Model != "qwen3:1.7b" || c.Recommendation.Text != want {
		t.Errorf("reference %s, candidate %s, recommendation %+v\nwant %s", c.Reference, c.Candidate, c.Recommendation, want)
	}
	b, s := c.Row("qwen3:8b"), c.Row("qwen3:1.7b")
	if b.Frontier || b.DominatedBy != "qwen3:1.7b" || !s.Frontier || !b.Reference || !s.Candidate || b.Versus != nil {
		t.Errorf("rows %+v / %+v", b, s)
	}
	if v := s.Versus; v.Pairs != 110 || v.Diff != 0 || v.Verdict != "not_worse" || v.Test != "~" {
		t.Errorf("versus %+v", v)
	}
	if s.Cost.Size != 1_200_000_000 || s.Cost.P50 < 0.99 || s.Cost.P50 > 1.01 || s.Cost.EvalTokensPerSecond != 40 || c.CostBy != CostMemory {
		t.Errorf("cost %+v (by %s)", s.Cost, c.CostBy)
	}
}

// TestAWorseModelKeepsTheReference: a model that fails 2 of the 11 cases
// more, in every one of 10 repeats, is worse by more than 5 points: the
// reference is kept, and the sentence says why.
func TestAWorseModelKeepsTheReference(t *testing.T) {
	weak := small
	weak.fails = "ab"
	c := mustChoose(t, fixtureRun(t, 10, big, weak), Options{})
	r := c.Recommendation
	if c.Candidate != "qwen3:1.7b" || r.Kind != KindReference || r.Model != "qwen3:8b" ||
		!strings.HasPrefix(r.Text, "qwen3:8b: keep it; qwen3:1.7b is worse by more than 5 pts on pass (interval −") {
		t.Errorf("recommendation %+v", r)
	}
	if v := c.Row("qwen3:1.7b").Versus; v.Verdict != "worse" || v.Hi >= -0.05 || v.Diff != -20.0/110 {
		t.Errorf("versus %+v", v)
	}
	// Both are on the frontier: one is better, the other cheaper.
	if !c.Row("qwen3:8b").Frontier || !c.Row("qwen3:1.7b").Frontier {
		t.Errorf("frontier: %+v", c.Models)
	}
}

// TestTooFewTrialsAreUndecidedWithTheNNeeded: one repeat of 11 cases cannot
// show two models that behave alike within 5 points: the recommendation
// says so, and how many paired trials would (Nam's sample size at the
// observed rates, 80% power), with the repeats that make them.
func TestTooFewTrialsAreUndecidedWithTheNNeeded(t *testing.T) {
	c := mustChoose(t, fixtureRun(t, 1, big, small), Options{})
	r, v := c.Recommendation, c.Row("qwen3:1.7b").Versus
	need := stats.PairsForNonInferiority(10.0/11, 10.0/11, 0, 0.05, 0.025, 0.8)
	if r.Kind != KindUndecided || r.Model != "" || v.Verdict != "undecided" || need <= 11 || r.PairsNeeded != need || r.MorePairs != need-11 {
		t.Fatalf("recommendation %+v, versus %+v, want %d pairs", r, v, need)
	}
	want := fmt.Sprintf("; about %d paired trials would decide (%d more: --repeat %d)", need, need-11, (need+10)/11)
	if !strings.HasPrefix(r.Text, "undecided: qwen3:1.7b against qwen3:8b at 5 pts on pass (interval −") || !strings.HasSuffix(r.Text, want) {
		t.Errorf("text %q\nwant it to end %q", r.Text, want)
	}
	// Ten times the repeats decide it (TestIdenticalModelsTheCheaperIsChosen).
	if need > 110 {
		t.Errorf("%d pairs needed; 110 decide", need)
	}
}

// TestAGivenReference: --reference judges against the model given; a name
// that is not a model of the run is an InputError naming the nearest.
func TestAGivenReference(t *testing.T) {
	rd := fixtureRun(t, 10, big, small)
	c := mustChoose(t, rd, Options{Reference: "qwen3:1.7b"})
	if c.Reference != "qwen3:1.7b" || !c.ReferenceGiven || c.Candidate != "" || c.Recommendation.Kind != KindReference ||
		c.Recommendation.Text != "qwen3:1.7b: no model of the frontier is cheaper (by memory); none is as good on pass for less" {
		t.Errorf("choice %+v", c.Recommendation)
	}
	_, _, err := Choose(rd, Options{Reference: "qwen3:1.8b"})
	var ie *InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), `unknown model "qwen3:1.8b"`) || !strings.Contains(err.Error(), "qwen3:1.7b") {
		t.Errorf("unknown reference: %v", err)
	}
}

// TestOneModelAndAnOlderRun: a run of one model says there is nothing to
// choose; a run without memory in run.json orders cost by p50 and says so.
func TestOneModelAndAnOlderRun(t *testing.T) {
	c := mustChoose(t, fixtureRun(t, 2, big), Options{})
	if c.Recommendation.Kind != KindOnly || c.Recommendation.Model != "qwen3:8b" {
		t.Errorf("one model: %+v", c.Recommendation)
	}
	old := big
	old.size = 0
	c = mustChoose(t, fixtureRun(t, 10, old, small), Options{})
	// The fixture's run.json names no schedule: its models ran in blocks.
	if c.CostBy != CostP50 || !slices.Equal(c.Warnings, []string{ConfoundedNote, "run.json does not say how much memory every model took (qwen3:8b: Ollama's /api/ps did not list it after its warm-up (it unloaded it at once, or this Ollama does not say)): cost is ordered by p50 latency alone"}) ||
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
	c := mustChoose(t, fixtureRun(t, 2, a, b, small), Options{})
	want := []string{
		"my-qwen's memory is qwen3:8b's: the same weights, which Ollama loads and lists once",
		"qwen3:8b and my-qwen are the same weights (digest 1a2b3c4d): differences between them are noise",
		ConfoundedNote,
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
	tiny := fixtureModel{name: "qwen3:0.6b", size: 600_000_000, wall: 500 * time.Millisecond, fails: "abc"}
	c := mustChoose(t, fixtureRun(t, 10, big, mid, tiny), Options{})
	r := c.Recommendation
	want := "qwen3:4b: not worse than qwen3:8b by more than 5 pts on pass (interval −3.4 to +3.4, 110 paired trials), 1.5× faster at p50, 3.0 GB vs 5.2 GB; qwen3:0.6b, cheaper still, is worse by more than 5 pts on pass (interval −"
	if c.Reference != "qwen3:8b" || r.Kind != KindCandidate || r.Model != "qwen3:4b" || !strings.HasPrefix(r.Text, want) ||
		strings.Join(c.Tested, ",") != "qwen3:4b,qwen3:0.6b" || c.Candidate != "qwen3:4b" || !c.Row("qwen3:4b").Candidate {
		t.Errorf("tested %v, recommendation %+v\nwant it to begin %s", c.Tested, r, want)
	}
	if c.Row("qwen3:8b").Frontier || !c.Row("qwen3:4b").Frontier || !c.Row("qwen3:0.6b").Frontier {
		t.Errorf("frontier: %+v", c.Models)
	}
}
