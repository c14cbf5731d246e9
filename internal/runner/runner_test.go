package runner_test

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/fakes/rig"
	"github.com/toolgrade/toolgrade/internal/llm"
	"github.com/toolgrade/toolgrade/internal/mcpclient"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/runner"
	"github.com/toolgrade/toolgrade/internal/suite"
)

// testRig is a runner wired to a fake Ollama over HTTP and in-process fake
// MCP servers, writing trials into a buffer.
type testRig struct {
	fake   *fakeollama.Server
	cat    *mcpclient.Catalog
	out    bytes.Buffer
	runner *runner.Runner
}

func newRig(t testing.TB, script *fakeollama.Script, fo *fakeollama.Options, so *mcpclient.Options, names ...string) *testRig {
	t.Helper()
	fake, base := rig.Ollama(t, script, fo)
	r := &testRig{fake: fake, cat: rig.Catalog(t, so, names...)}
	hc := llm.HTTPClient()
	client := api.NewClient(base, hc)
	r.runner = &runner.Runner{
		Chat:   llm.NewChatter(base, hc, client), // as toolgrade run streams
		Tools:  r.cat,
		Models: &llm.Ollama{Client: client, Base: base},
		Out:    record.NewWriter(&r.out),
		Sleep:  func(context.Context, time.Duration) error { return nil },
	}
	return r
}

func loadSuite(t testing.TB, path string, cat *mcpclient.Catalog) *suite.Suite {
	t.Helper()
	s, err := suite.Load(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Check(cat); err != nil {
		t.Fatal(err)
	}
	return s
}

func parseSuite(t testing.TB, yaml string, cat *mcpclient.Catalog) *suite.Suite {
	t.Helper()
	s, err := suite.Parse([]byte(yaml), "inline.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Check(cat); err != nil {
		t.Fatal(err)
	}
	return s
}

func (r *testRig) trials(t testing.TB) []*record.Trial {
	t.Helper()
	rd := record.NewReader(bytes.NewReader(r.out.Bytes()), "trials")
	var out []*record.Trial
	for rd.Scan() {
		out = append(out, rd.Trial())
	}
	if rd.Err() != nil || len(rd.Warnings) > 0 {
		t.Fatalf("reading trials: %v %v", rd.Err(), rd.Warnings)
	}
	return out
}

// TestEveryOutcomeOfTheDocsSuite runs the shipped docs suite against the
// demo's two scripted models and checks the outcome of every trial: the
// strong model passes everything, the weak one fails in every way a small
// model does.
func TestEveryOutcomeOfTheDocsSuite(t *testing.T) {
	r := newRig(t, nil, nil, nil, "docs")
	s := loadSuite(t, "../../cases/docs.yaml", r.cat)
	ran, err := r.runner.Run(context.Background(), runner.Config{Suite: s, Models: models(t, r, "scripted-good", "scripted-weak")})
	if err != nil {
		t.Fatal(err)
	}
	if len(ran) != 2 || ran[0].Load <= 0 || ran[0].Digest == "" || ran[1].ParameterSize != "1.7B" {
		t.Errorf("models %+v", ran)
	}
	weak := map[string]string{
		"dog":               record.OutcomeInvalidArgs,
		"faq-in-full":       record.OutcomeWrongTool,
		"menu-in-full":      record.OutcomeWrongArgs,
		"reservations":      record.OutcomeNoCall,
		"wifi":              record.OutcomeCallInText,
		"payment":           record.OutcomeRoundLimit,
		"vegetarian-top5":   record.OutcomeWrongArgs,
		"salmon-price":      record.OutcomeWrongAnswer,
		"multi-turn-dog":    record.OutcomeWrongTool,
		"hours-and-menu":    record.OutcomeMissingCall,
		"list-then-read":    record.OutcomeExtraCall,
		"off-topic-joke":    record.OutcomeUnexpectedCall,
		"off-topic-weather": record.OutcomeEmptyAnswer,
		"answer-in-json":    record.OutcomeCallInText,
	}
	// The fake keeps both models loaded, so both load first (and neither
	// is unloaded) and their trials alternate case by case, the model
	// going first turning with each case.
	var order, firsts []string
	for _, req := range r.fake.Requests() {
		c := req.Chat
		switch {
		case c == nil:
		case len(c.Messages) == 0:
			ka := "default"
			if c.KeepAlive != nil {
				ka = c.KeepAlive.String()
			}
			order = append(order, c.Model+" keep_alive "+ka)
		case len(c.Messages) <= 2 && len(firsts) < 4:
			firsts = append(firsts, c.Model)
		}
	}
	if want := []string{"scripted-good keep_alive default", "scripted-weak keep_alive default"}; !slices.Equal(order, want) {
		t.Errorf("load requests %v, want %v", order, want)
	}
	if want := []string{"scripted-good", "scripted-weak", "scripted-weak", "scripted-good"}; !slices.Equal(firsts, want) {
		t.Errorf("first rounds of the first two cases by %v, want %v", firsts, want)
	}
	trials := r.trials(t)
	if len(trials) != 2*len(s.Cases) {
		t.Fatalf("%d trials, want %d", len(trials), 2*len(s.Cases))
	}
	for _, tr := range trials {
		want := record.OutcomePass
		if tr.Model == "scripted-weak" && weak[tr.CaseID] != "" {
			want = weak[tr.CaseID]
		}
		if tr.Score.Outcome != want {
			t.Errorf("%s/%s: outcome %s (%s), want %s", tr.Model, tr.CaseID, tr.Score.Outcome, tr.Score.Detail, want)
		}
		if tr.Attempts != 1 || tr.Transcript == nil || tr.Seed != 42 {
			t.Errorf("%s/%s: attempts %d seed %d", tr.Model, tr.CaseID, tr.Attempts, tr.Seed)
		}
	}
}

func TestHallucinatedToolAndInfraErrors(t *testing.T) {
	script := &fakeollama.Script{
		Models: []fakeollama.Model{{Name: "loose", KeepUnknownCalls: true}},
		Rules: []fakeollama.Rule{
			{User: &fakeollama.Matcher{Contains: "weather"}, ToolResult: &fakeollama.Matcher{Regex: "."}, Reply: fakeollama.Reply{Content: "Sorry."}},
			{User: &fakeollama.Matcher{Contains: "weather"}, Reply: fakeollama.Reply{ToolCalls: []fakeollama.ToolCall{fakeollama.Call("get_weather", "city", "Paris")}}},
			{User: &fakeollama.Matcher{Contains: "hang"}, ToolResult: &fakeollama.Matcher{Regex: "."}, Reply: fakeollama.Reply{Content: "Hung."}},
			{User: &fakeollama.Matcher{Contains: "hang"}, Reply: fakeollama.Reply{ToolCalls: []fakeollama.ToolCall{fakeollama.Call("hang")}}},
			{User: &fakeollama.Matcher{Contains: "broken"}, Fault: fakeollama.FaultHTTP500},
		},
	}
	r := newRig(t, script, nil, &mcpclient.Options{CallTimeout: 100 * time.Millisecond}, "docs", "faulty")
	var sleeps []time.Duration
	r.runner.Sleep = func(_ context.Context, d time.Duration) error { sleeps = append(sleeps, d); return nil }
	s := parseSuite(t, `
name: faults
models: [loose]
cases:
  - {id: weather, ask: "What's the weather?", expect: {tool: search}}
  - {id: hang, ask: "Please hang.", expect: {tool: hang}}
  - {id: broken, ask: "A broken Ollama.", expect: {tool: search}}
`, r.cat)
	if _, err := r.runner.Run(context.Background(), runner.Config{Suite: s, Models: models(t, r, s.Models...), Retries: 2, Backoff: time.Second}); err != nil {
		t.Fatal(err)
	}
	got := map[string]*record.Trial{}
	for _, tr := range r.trials(t) {
		got[tr.CaseID] = tr
	}
	if o := got["weather"].Score.Outcome; o != record.OutcomeHallucinatedTool {
		t.Errorf("weather: %s", o)
	}
	for _, id := range []string{"hang", "broken"} {
		tr := got[id]
		if tr.Score.Outcome != record.OutcomeInfraError || tr.Attempts != 3 {
			t.Errorf("%s: outcome %s after %d attempts", id, tr.Score.Outcome, tr.Attempts)
		}
	}
	if want := []time.Duration{time.Second, 2 * time.Second, time.Second, 2 * time.Second}; !slices.Equal(sleeps, want) {
		t.Errorf("backoff %v, want %v", sleeps, want)
	}
}

func TestRepeatsUseSeedPlusRepeatAndResumeSkipsDoneTrials(t *testing.T) {
	r := newRig(t, nil, nil, nil, "docs")
	s := parseSuite(t, `
name: small
defaults: {options: {seed: 100, temperature: 0}}
cases:
  - {id: dog, ask: "Can I bring my dog?", expect: {tool: search}}
  - {id: capital, ask: "What is the capital of France?", expect: {no_tool: true}}
`, r.cat)
	done := map[record.TrialKey]bool{{Model: "scripted-good", CaseID: "dog", Repeat: 1}: true}
	if _, err := r.runner.Run(context.Background(), runner.Config{Suite: s, Models: models(t, r, "scripted-good"), Repeat: 3, Done: done}); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, tr := range r.trials(t) {
		keys = append(keys, tr.CaseID+"#"+string(rune('0'+tr.Repeat)))
		if tr.Seed != 100+int64(tr.Repeat) {
			t.Errorf("%s#%d: seed %d", tr.CaseID, tr.Repeat, tr.Seed)
		}
	}
	// Repeat-major order, without the trial already done.
	if want := []string{"dog#0", "capital#0", "capital#1", "dog#2", "capital#2"}; !slices.Equal(keys, want) {
		t.Errorf("trials %v, want %v", keys, want)
	}
	seeds := map[any]bool{}
	for _, req := range r.fake.Requests() {
		if req.Chat != nil && len(req.Chat.Messages) > 0 {
			seeds[req.Chat.Options["seed"]] = true
		}
	}
	if len(seeds) != 3 {
		t.Errorf("seeds sent %v", seeds)
	}
}

func TestEveryModelIsCheckedBeforeAnyLoads(t *testing.T) {
	r := newRig(t, nil, nil, nil, "docs")
	_, err := r.runner.CheckModels(context.Background(), []string{"scripted-good", "qwen3:8b"})
	if err == nil || !strings.Contains(err.Error(), "ollama pull qwen3:8b") {
		t.Fatalf("err %v", err)
	}
	for _, req := range r.fake.Requests() {
		if req.Chat != nil {
			t.Errorf("a model was loaded before all were checked: %s", req.Body)
		}
	}
}

func TestParallelTrialsAndCancellation(t *testing.T) {
	latency := 50 * time.Millisecond
	r := newRig(t, nil, &fakeollama.Options{Latency: latency}, nil, "docs")
	s := loadSuite(t, "../../cases/docs.yaml", r.cat)
	var mu sync.Mutex
	var progress []runner.Progress
	ctx, cancel := context.WithCancel(context.Background())
	r.runner.OnProgress = func(p runner.Progress) {
		mu.Lock()
		progress = append(progress, p)
		if len(progress) == 6 {
			cancel()
		}
		mu.Unlock()
	}
	_, err := r.runner.Run(ctx, runner.Config{Suite: s, Models: models(t, r, "scripted-good"), Parallel: 4})
	if err == nil {
		t.Fatal("no error after cancellation")
	}
	n := len(r.trials(t))
	if n < 6 || n >= len(s.Cases) {
		t.Errorf("%d trials written after cancelling at 6 of %d", n, len(s.Cases))
	}
	for _, tr := range r.trials(t) {
		if tr.Score.Outcome != record.OutcomePass {
			t.Errorf("%s: %s: a cancelled trial was written as a result", tr.CaseID, tr.Score.Outcome)
		}
	}
	last := progress[len(progress)-1]
	if last.Done != n || last.Total != len(s.Cases) {
		t.Errorf("progress %+v with %d trials", last, n)
	}
}

func TestAPromptCutAtNumCtxIsFlagged(t *testing.T) {
	r := newRig(t, nil, nil, nil, "docs")
	s := parseSuite(t, `
name: small-context
defaults: {options: {num_ctx: 64}}
cases:
  - {id: dog, ask: "Can I bring my dog?", expect: {tool: search}}
`, r.cat)
	if _, err := r.runner.Run(context.Background(), runner.Config{Suite: s, Models: models(t, r, "scripted-good")}); err != nil {
		t.Fatal(err)
	}
	tr := r.trials(t)[0]
	if !tr.Score.Truncated || tr.Transcript.Rounds[0].Metrics.PromptEvalCount != 64 {
		t.Errorf("truncated %v, prompt_eval_count %d", tr.Score.Truncated, tr.Transcript.Rounds[0].Metrics.PromptEvalCount)
	}
	r2 := newRig(t, nil, nil, nil, "docs")
	s2 := parseSuite(t, `
name: big-context
defaults: {options: {num_ctx: 8192}}
cases:
  - {id: dog, ask: "Can I bring my dog?", expect: {tool: search}}
`, r2.cat)
	if _, err := r2.runner.Run(context.Background(), runner.Config{Suite: s2, Models: models(t, r2, "scripted-good")}); err != nil {
		t.Fatal(err)
	}
	if r2.trials(t)[0].Score.Truncated {
		t.Error("a prompt well within num_ctx flagged as truncated")
	}
}

// models checks the named models as a run does first.
func models(t testing.TB, r *testRig, names ...string) []record.Model {
	t.Helper()
	m, err := r.runner.CheckModels(context.Background(), names)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestTheLoadedContextStandsInForAMissingNumCtx: a model whose details name
// no num_ctx (most library models) is judged against the context Ollama
// loaded it with, read from /api/ps after the warm-up, so a prompt cut
// there is flagged.
func TestTheLoadedContextStandsInForAMissingNumCtx(t *testing.T) {
	r := newRig(t, nil, nil, nil, "docs")
	s := loadSuite(t, "../../cases/docs.yaml", r.cat)
	ms := models(t, r, "scripted-good")
	want := ms[0].NumCtx
	ms[0].NumCtx = 0 // as /api/show reads for a model without num_ctx
	var got []record.Model
	r.runner.OnModel = func(m record.Model) { got = append(got, m) }
	if _, err := r.runner.Run(context.Background(), runner.Config{Suite: s, Models: ms}); err != nil {
		t.Fatal(err)
	}
	if want == 0 || len(got) != 1 || got[0].NumCtx != want {
		t.Errorf("the model ran with num_ctx %v, want the loaded context %d", got, want)
	}
}
