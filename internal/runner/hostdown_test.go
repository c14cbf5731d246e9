package runner_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/runner"
)

// downHost is a host of a pool that goes down for good after its first
// trial began: that trial (told by its seed) waits until the host is first
// pinged and then ends well; every other chat is refused, every ping fails.
type downHost struct {
	runner.Models
	chat   bridge.Chatter
	pinged chan struct{}

	mu    sync.Mutex
	seed  string // the trial that survives; "" until the first chat
	pings int
}

func (d *downHost) Chat(ctx context.Context, req *api.ChatRequest, fn api.ChatResponseFunc) error {
	seed := fmt.Sprint(req.Options["seed"])
	d.mu.Lock()
	if d.seed == "" {
		d.seed = seed
	}
	survives := d.seed == seed
	d.mu.Unlock()
	if !survives {
		return refused
	}
	select {
	case <-d.pinged:
	case <-ctx.Done():
		return ctx.Err()
	}
	return d.chat.Chat(ctx, req, fn)
}

func (d *downHost) Ping(context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.pings++; d.pings == 1 {
		close(d.pinged)
	}
	return refused
}

// gatedChat holds every chat until gate is closed.
type gatedChat struct {
	bridge.Chatter
	gate chan struct{}
}

func (g gatedChat) Chat(ctx context.Context, req *api.ChatRequest, fn api.ChatResponseFunc) error {
	select {
	case <-g.gate:
	case <-ctx.Done():
		return ctx.Err()
	}
	return g.Chatter.Chat(ctx, req, fn)
}

// TestADeadHostIsNotGivenUpWhenTheRunEnds pins the cause of a flaky
// TestAHostKilledMidRunLosesNothing: a worker of a dead host that takes a
// trial while another of its workers pings hands it back and holds; when
// the other hosts then finish every trial, the pinging stops, and that
// stop must not read as the host given up.
func TestADeadHostIsNotGivenUpWhenTheRunEnds(t *testing.T) {
	r := newRig(t, nil, nil, nil, "docs")
	s := parseSuite(t, oneCase, r.cat)
	ms := models(t, r, "scripted-good")
	dead := &downHost{Models: r.runner.Models, chat: r.runner.Chat, pinged: make(chan struct{})}
	var notes []string
	var mu sync.Mutex
	run := &runner.Runner{
		Tools: r.cat, Out: r.runner.Out,
		Hosts: []runner.Host{
			{Name: "http://up", Chat: gatedChat{r.runner.Chat, dead.pinged}, Models: r.runner.Models, Parallel: 1},
			{Name: "http://dead", Chat: dead, Models: dead, Parallel: 2},
		},
		Sleep: func(ctx context.Context, d time.Duration) error {
			select {
			case <-time.After(min(d, time.Millisecond)):
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		},
		OnHost: func(msg string) { mu.Lock(); notes = append(notes, msg); mu.Unlock() },
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // deadlock guard
	defer cancel()
	const repeat = 20
	if _, err := run.Run(ctx, runner.Config{Suite: s, Models: ms, Repeat: repeat, WaitOllama: time.Millisecond, AllRepeats: true}); err != nil {
		t.Fatal(err)
	}
	trials := r.trials(t)
	byHost := map[string]int{}
	for _, tr := range trials {
		byHost[tr.Host]++
		if tr.Score.Outcome != record.OutcomePass {
			t.Errorf("repeat %d on %s: %s", tr.Repeat, tr.Host, tr.Score.Outcome)
		}
	}
	if len(trials) != repeat || byHost["http://dead"] != 1 {
		t.Errorf("%d trials, by host %v; want %d, 1 on the dead host", len(trials), byHost, repeat)
	}
	if slices.ContainsFunc(notes, func(n string) bool { return strings.Contains(n, "given up") }) {
		t.Errorf("the dead host was given up while the other ran: %q", notes)
	}
}
