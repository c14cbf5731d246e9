package runner_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/runner"
	"github.com/toolgrade/toolgrade/internal/suite"
)

// demoWith is the demo script with max_loaded set and, when twin is set, a
// model of that name with scripted-good's weights.
func demoWith(t *testing.T, maxLoaded int, twin string) *fakeollama.Script {
	t.Helper()
	s, err := fakeollama.DemoScript()
	if err != nil {
		t.Fatal(err)
	}
	s.MaxLoaded = maxLoaded
	if twin != "" {
		s.Models = append(s.Models, fakeollama.Model{Name: twin, SameWeights: "scripted-good", ParameterSize: "8.2B", Family: "qwen3"})
	}
	return s
}

// firstRounds is the model of each trial's first request, in the order
// Ollama received them.
func firstRounds(r *testRig) []string {
	var out []string
	for _, req := range r.fake.Requests() {
		if c := req.Chat; c != nil && len(c.Messages) > 0 && !slices.ContainsFunc(c.Messages, func(m api.Message) bool { return m.Role == "tool" || m.Role == "assistant" }) {
			out = append(out, c.Model)
		}
	}
	return out
}

// runOrder runs the docs suite's first four cases once for two models
// against script and returns the rig, the schedule told and why.
func runOrder(t *testing.T, script *fakeollama.Script, a, b string, cfg runner.Config) (*testRig, string, string) {
	t.Helper()
	r := newRig(t, script, nil, nil, "docs")
	s := loadSuite(t, "../../cases/docs.yaml", r.cat)
	s.Cases = s.Cases[:4]
	var schedule, why string
	r.runner.OnSchedule = func(s, w string) { schedule, why = s, w }
	cfg.Suite, cfg.Models = s, models(t, r, a, b)
	if _, err := r.runner.Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	return r, schedule, why
}

// TestModelsThatFitTogetherAreInterleaved: one Ollama that keeps both
// models loaded runs their trials case by case, the model going first
// turning with each case (A B, B A, A B, B A).
func TestModelsThatFitTogetherAreInterleaved(t *testing.T) {
	r, schedule, _ := runOrder(t, nil, "scripted-good", "scripted-weak", runner.Config{})
	if schedule != record.ScheduleInterleaved {
		t.Fatalf("schedule %q, want interleaved", schedule)
	}
	g, w := "scripted-good", "scripted-weak"
	if got, want := firstRounds(r), []string{g, w, w, g, g, w, w, g}; !slices.Equal(got, want) {
		t.Errorf("first rounds %v, want %v", got, want)
	}
}

// TestModelsThatCannotShareTheHostRunABBA: an Ollama that holds one model
// at a time (max_loaded 1) unloads the first to load the second, so the
// models run in counterbalanced blocks: A over the first half of the cases,
// B over all of them, A over the second half; asking for blocks runs A then
// B.
func TestModelsThatCannotShareTheHostRunABBA(t *testing.T) {
	g, w := "scripted-good", "scripted-weak"
	r, schedule, why := runOrder(t, demoWith(t, 1, ""), g, w, runner.Config{})
	if schedule != record.ScheduleABBA || why == "" {
		t.Fatalf("schedule %q (%s), want abba", schedule, why)
	}
	if got, want := firstRounds(r), []string{g, g, w, w, w, w, g, g}; !slices.Equal(got, want) {
		t.Errorf("first rounds %v, want %v", got, want)
	}
	r, schedule, _ = runOrder(t, nil, g, w, runner.Config{Schedule: record.ScheduleBlocks})
	if got, want := firstRounds(r), []string{g, g, g, g, w, w, w, w}; schedule != record.ScheduleBlocks || !slices.Equal(got, want) {
		t.Errorf("blocks asked for: %q, first rounds %v, want %v", schedule, got, want)
	}
}

// TestSameWeightsUnderTwoNamesAreMeasuredAtTheSuitesContext: two names of
// one weights share one loaded copy, which /api/ps lists under the first
// name only; both still get its memory (found by digest), measured at the
// suite's num_ctx (4096 here, not the model's 8192), because the warm-up
// sends the suite's options; and they run interleaved.
func TestSameWeightsUnderTwoNamesAreMeasuredAtTheSuitesContext(t *testing.T) {
	r := newRig(t, demoWith(t, 0, "my-good"), nil, nil, "docs")
	s := parseSuite(t, `
name: ctx
defaults: {options: {temperature: 0, seed: 1, num_ctx: 4096}}
cases:
  - id: dog
    ask: "Can I bring my dog?"
    expect: {tool: search, args: {query: {contains: dog}}, answer: {contains: terrace}}
`, r.cat)
	var schedule string
	r.runner.OnSchedule = func(s, _ string) { schedule = s }
	ran, err := r.runner.Run(context.Background(), runner.Config{Suite: s, Models: models(t, r, "scripted-good", "my-good")})
	if err != nil {
		t.Fatal(err)
	}
	if ran[0].Digest == "" || ran[0].Digest != ran[1].Digest {
		t.Fatalf("digests %q and %q, want one", ran[0].Digest, ran[1].Digest)
	}
	for _, m := range ran {
		if m.Cost == nil || m.Cost.Loaded == nil || m.Cost.Loaded.Size == 0 || m.Cost.Loaded.ContextLength != 4096 {
			t.Errorf("%s: cost %+v; want its memory at num_ctx 4096", m.Name, m.Cost)
		}
	}
	if schedule != record.ScheduleInterleaved {
		t.Errorf("schedule %q, want interleaved", schedule)
	}
	if got := record.SameWeights(ran); len(got) != 1 {
		t.Errorf("same weights %q", got)
	}
}

// judgeGrader is a grader with a model, as the judge of answers is, that
// grades nothing.
type judgeGrader struct{ model string }

func (g judgeGrader) Grade(context.Context, *suite.Case, *record.Trial) error { return nil }
func (g judgeGrader) GraderModel() (string, string, map[string]any) {
	return g.model, "", nil
}

// TestTheJudgeModelCountsInWhatTheHostHolds: a judge model served by the
// same Ollama takes memory beside the models judged. An Ollama that holds
// two models keeps two interleaved alone, but not with a judge beside
// them: they run ABBA, and the reason names the judge model.
func TestTheJudgeModelCountsInWhatTheHostHolds(t *testing.T) {
	g, w := "scripted-good", "scripted-weak"
	script := func() *fakeollama.Script {
		s := demoWith(t, 2, "")
		s.Models = append(s.Models, fakeollama.Model{Name: "judge", ParameterSize: "4B", Family: "qwen3"})
		return s
	}
	if _, schedule, why := runOrder(t, script(), g, w, runner.Config{}); schedule != record.ScheduleInterleaved {
		t.Fatalf("without a judge: schedule %q (%s), want interleaved", schedule, why)
	}
	r := newRig(t, script(), nil, nil, "docs")
	s := loadSuite(t, "../../cases/docs.yaml", r.cat)
	s.Cases = s.Cases[:4]
	var schedule, why string
	r.runner.OnSchedule = func(s, w string) { schedule, why = s, w }
	r.runner.Grader = judgeGrader{"judge"}
	if _, err := r.runner.Run(context.Background(), runner.Config{Suite: s, Models: models(t, r, g, w)}); err != nil {
		t.Fatal(err)
	}
	if schedule != record.ScheduleABBA || !strings.Contains(why, "the judge model judge answers on the same Ollama") {
		t.Errorf("with a judge: schedule %q (%s), want abba, the judge named", schedule, why)
	}
	// A judge that is one of the models run takes no more memory.
	r = newRig(t, script(), nil, nil, "docs")
	r.runner.OnSchedule = func(s, w string) { schedule, why = s, w }
	r.runner.Grader = judgeGrader{g}
	if _, err := r.runner.Run(context.Background(), runner.Config{Suite: s, Models: models(t, r, g, w)}); err != nil || schedule != record.ScheduleInterleaved {
		t.Errorf("judged by %s: schedule %q (%s), %v; want interleaved", g, schedule, why, err)
	}
}

// doneUser is a simulated user that has nothing more to say.
type doneUser struct{}

func (doneUser) Next(context.Context, []api.Message) (string, bool, error) { return "", true, nil }

// TestTheUserModelCountsInWhatTheHostHolds: a simulated user's model
// answers on the same Ollama while the models run, as a judge does: an
// Ollama that holds two models keeps two interleaved alone, but not with
// a user model beside them: they run ABBA, and the reason names it.
func TestTheUserModelCountsInWhatTheHostHolds(t *testing.T) {
	g, w := "scripted-good", "scripted-weak"
	script := demoWith(t, 2, "")
	script.Models = append(script.Models, fakeollama.Model{Name: "user", ParameterSize: "4B", Family: "qwen3"})
	r := newRig(t, script, nil, nil, "docs")
	s := loadSuite(t, "../../cases/docs.yaml", r.cat)
	s.Cases = s.Cases[:4]
	for i := range s.Cases {
		c := &s.Cases[i]
		c.User = &suite.SimUser{Goal: "ask the question", Model: "user", MaxTurns: 1, First: c.Messages[len(c.Messages)-1].Content}
	}
	var schedule, why string
	r.runner.OnSchedule = func(s, w string) { schedule, why = s, w }
	users := func(*suite.Case, *record.Trial) runner.UserModel { return doneUser{} }
	if _, err := r.runner.Run(context.Background(), runner.Config{Suite: s, Models: models(t, r, g, w), Users: users}); err != nil {
		t.Fatal(err)
	}
	if schedule != record.ScheduleABBA || !strings.Contains(why, "the user model user answers on the same Ollama") {
		t.Errorf("with a user model: schedule %q (%s), want abba, the user model named", schedule, why)
	}
}
