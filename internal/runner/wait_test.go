package runner_test

import (
	"context"
	"errors"
	"net/url"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/runner"
)

// outage makes Ollama unreachable for a stretch of a run: chats and
// warm-ups fail with connection refused from the chat numbered downFrom on
// (or the warm-up numbered warmDownFrom on), and pings fail until upAfter
// of them have. A fake clock moves only when the runner sleeps.
type outage struct {
	runner.Models
	chat bridge.Chatter

	mu                     sync.Mutex
	now                    time.Time
	chats, warmups, pings  int
	downFrom, warmDownFrom int // 0: never down
	upAfter                int // pings that fail; negative: every one
	down                   bool
	waits                  []time.Duration
}

var refused = &url.Error{Op: "Post", URL: "http://127.0.0.1:1/api/chat", Err: syscall.ECONNREFUSED}

func (o *outage) Chat(ctx context.Context, req *api.ChatRequest, fn api.ChatResponseFunc) error {
	o.mu.Lock()
	o.chats++
	if o.downFrom > 0 && o.chats == o.downFrom {
		o.down = true
	}
	down := o.down
	o.mu.Unlock()
	if down {
		return refused
	}
	return o.chat.Chat(ctx, req, fn)
}

func (o *outage) Warmup(ctx context.Context, model string, ka *api.Duration, opts map[string]any) (time.Duration, error) {
	o.mu.Lock()
	o.warmups++
	if o.warmDownFrom > 0 && o.warmups == o.warmDownFrom {
		o.down = true
	}
	down := o.down
	o.mu.Unlock()
	if down {
		return 0, refused
	}
	return o.Models.Warmup(ctx, model, ka, opts)
}

func (o *outage) Ping(context.Context) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.pings++
	if o.down && (o.upAfter < 0 || o.pings <= o.upAfter) {
		return refused
	}
	o.down = false
	return nil
}

func (o *outage) install(r *runner.Runner) {
	o.Models, o.chat = r.Models, r.Chat
	o.now = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	r.Models, r.Chat = o, o
	r.Now = func() time.Time { o.mu.Lock(); defer o.mu.Unlock(); return o.now }
	r.Sleep = func(_ context.Context, d time.Duration) error {
		o.mu.Lock()
		o.now = o.now.Add(d)
		o.mu.Unlock()
		return nil
	}
	r.OnWait = func(left time.Duration) { o.mu.Lock(); o.waits = append(o.waits, left); o.mu.Unlock() }
}

const waitSuite = `
name: wait
cases:
  - {id: dog, ask: "Can I bring my dog?", expect: {tool: search}}
  - {id: capital, ask: "What is the capital of France?", expect: {no_tool: true}}
`

func TestAnOllamaThatComesBackLosesNoTrial(t *testing.T) {
	r := newRig(t, nil, nil, nil, "docs")
	s := parseSuite(t, waitSuite, r.cat)
	ms := models(t, r, "scripted-good")
	o := &outage{downFrom: 3, upAfter: 3}
	o.install(r.runner)
	if _, err := r.runner.Run(context.Background(), runner.Config{Suite: s, Models: ms, Repeat: 3, Parallel: 2}); err != nil {
		t.Fatal(err)
	}
	keys := map[record.TrialKey]int{}
	for _, tr := range r.trials(t) {
		keys[tr.Key()]++
		if tr.Score.Outcome == record.OutcomeInfraError {
			t.Errorf("%s#%d written as infra_error: %s", tr.CaseID, tr.Repeat, tr.Score.Detail)
		}
	}
	if len(keys) != 6 {
		t.Errorf("%d trials, want 6: %v", len(keys), keys)
	}
	for k, n := range keys {
		if n != 1 {
			t.Errorf("%v written %d times", k, n)
		}
	}
	// Three failed pings, each followed by a pause: 1s, 2s, 4s of the wait.
	// (A trial that failed while the wait ended pings once more, at once.)
	if o.pings < 4 || len(o.waits) != 3 || o.waits[0] > 2*time.Minute || o.waits[0] < 2*time.Minute-2*time.Second || o.waits[2] >= o.waits[1] {
		t.Errorf("%d pings, waits %v", o.pings, o.waits)
	}
}

func TestAnOllamaThatStaysDownStopsTheRun(t *testing.T) {
	r := newRig(t, nil, nil, nil, "docs")
	s := parseSuite(t, waitSuite, r.cat)
	ms := models(t, r, "scripted-good")
	o := &outage{downFrom: 3, upAfter: -1}
	o.install(r.runner)
	_, err := r.runner.Run(context.Background(), runner.Config{Suite: s, Models: ms, Repeat: 3, WaitOllama: time.Minute})
	var down *runner.OllamaDownError
	if !errors.As(err, &down) || down.Waited != time.Minute || !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("err %v", err)
	}
	for _, tr := range r.trials(t) {
		if tr.Score.Outcome == record.OutcomeInfraError {
			t.Errorf("%s#%d written as infra_error", tr.CaseID, tr.Repeat)
		}
	}
	if n := len(r.trials(t)); n != 1 {
		t.Errorf("%d trials written, want the 1 before the outage", n)
	}
	var waited time.Duration
	for i := 1; i < len(o.waits); i++ {
		waited += o.waits[i-1] - o.waits[i]
	}
	if len(o.waits) == 0 || o.waits[0] > time.Minute || waited > time.Minute {
		t.Errorf("waits %v", o.waits)
	}
}

func TestWithoutWaitingAnUnreachableOllamaIsAnInfraError(t *testing.T) {
	r := newRig(t, nil, nil, nil, "docs")
	s := parseSuite(t, waitSuite, r.cat)
	ms := models(t, r, "scripted-good")
	o := &outage{downFrom: 1, upAfter: -1}
	o.install(r.runner)
	if _, err := r.runner.Run(context.Background(), runner.Config{Suite: s, Models: ms, WaitOllama: -1}); err != nil {
		t.Fatal(err)
	}
	trials := r.trials(t)
	if len(trials) != 2 || trials[0].Score.Outcome != record.OutcomeInfraError || trials[0].Attempts != 3 || o.pings != 0 {
		t.Errorf("%d trials, %d pings", len(trials), o.pings)
	}
}

func TestTheWarmupIsRetriedAndWaitsForOllama(t *testing.T) {
	r := newRig(t, nil, nil, nil, "docs")
	s := parseSuite(t, waitSuite, r.cat)
	ms := models(t, r, "scripted-good")
	o := &outage{warmDownFrom: 1, upAfter: 2}
	o.install(r.runner)
	ran, err := r.runner.Run(context.Background(), runner.Config{Suite: s, Models: ms})
	if err != nil {
		t.Fatal(err)
	}
	// Three attempts (two retries) fail, the wait pings three times, then
	// the fourth warm-up loads the model.
	if o.warmups != 4 || o.pings != 3 || len(ran) != 1 || ran[0].Load == 0 || len(r.trials(t)) != 2 {
		t.Errorf("%d warm-ups, %d pings, ran %+v, %d trials", o.warmups, o.pings, ran, len(r.trials(t)))
	}
}

// The wait a stopped run reports reads as people write a duration, not as
// Go's time.Duration prints one (2m0s).
func TestOllamaDownErrorSaysItsWaitPlainly(t *testing.T) {
	err := &runner.OllamaDownError{Waited: 2 * time.Minute, Err: errors.New("connection refused")}
	if got, want := err.Error(), "Ollama stayed unreachable for 2m (--wait-ollama): connection refused"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}
