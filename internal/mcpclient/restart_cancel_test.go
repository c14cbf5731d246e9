package mcpclient

import (
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/serversfile"
)

// TestCanceledCallsDoNotUseUpRestarts: calls whose context has ended (a
// proxy's clients that left, an interrupted run) reach a dead server
// without restarting it, so they neither use up the restart limit nor make
// the next live call wait out a backoff.
func TestCanceledCallsDoNotUseUpRestarts(t *testing.T) {
	before := settleGoroutines()
	clock := newFakeClock()
	s, marker, starts := faultyChild(t, "faulty")
	c, err := Connect(context.Background(), &serversfile.Config{Servers: []serversfile.Server{s}},
		&Options{MaxRestarts: 2, Now: clock.Now, Sleep: clock.Sleep})
	if err != nil {
		t.Fatal(err)
	}
	if ex := c.Call(context.Background(), "crash", nil, ""); ex.ErrorKind != record.ExecServerFailure {
		t.Fatalf("crash: %+v", ex)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	args, _ := json.Marshal(map[string]string{"text": "gone"})
	for i := range 3 {
		if ex := c.Call(ctx, "echo", args, ""); ex.ErrorKind != record.ExecServerFailure || !strings.Contains(ex.Result, "context canceled") {
			t.Errorf("canceled call %d: %+v", i, ex)
		}
	}
	if d := c.Down(); len(d) != 0 {
		t.Errorf("Down after canceled calls only: %v", d)
	}
	if ex := echoCall(c, "ok"); ex.IsError || ex.Result != "ok" {
		t.Errorf("the live call after them: %+v", ex)
	}
	if got := c.Restarts()["faulty"]; got != 1 {
		t.Errorf("Restarts = %d, want 1", got)
	}
	if n := countStarts(t, starts); n != 2 {
		t.Errorf("%d processes started, want 2", n)
	}
	if got := clock.Slept(); len(got) != 0 {
		t.Errorf("backoff waits %v, want none: the live call's restart is the first", got)
	}
	closeLeavesNothing(t, c, marker, before)
}

// TestWaitersRestartWhenTheRestartersCallEnds: a restart ends with the call
// that started it; a live call that waited for it must then restart the
// server itself, not fail with the other call's cancellation.
func TestWaitersRestartWhenTheRestartersCallEnds(t *testing.T) {
	before := settleGoroutines()
	sleeping := make(chan struct{})
	var sleeps atomic.Int32
	s, marker, _ := faultyChild(t, "faulty")
	c, err := Connect(context.Background(), &serversfile.Config{Servers: []serversfile.Server{s}}, &Options{
		// The first backoff waits until its caller leaves; later ones end at once.
		Sleep: func(ctx context.Context, d time.Duration) error {
			if sleeps.Add(1) > 1 {
				return ctx.Err()
			}
			close(sleeping)
			<-ctx.Done()
			return ctx.Err()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	// A first crash and restart, so that the second restart has a backoff
	// to wait out.
	c.Call(context.Background(), "crash", nil, "")
	if ex := echoCall(c, "ok"); ex.IsError {
		t.Fatalf("after the first crash: %+v", ex)
	}
	c.Call(context.Background(), "crash", nil, "")
	ctx, cancel := context.WithCancel(context.Background())
	leaving := make(chan record.Execution)
	go func() {
		args, _ := json.Marshal(map[string]string{"text": "leaving"})
		leaving <- c.Call(ctx, "echo", args, "")
	}()
	<-sleeping
	staying := make(chan record.Execution)
	go func() { staying <- echoCall(c, "staying") }()
	waitForRestartWaiter(t)
	cancel()
	if ex := <-leaving; ex.ErrorKind != record.ExecServerFailure || !strings.Contains(ex.Result, "context canceled") {
		t.Errorf("the call that left: %+v", ex)
	}
	if ex := <-staying; ex.IsError || ex.Result != "staying" {
		t.Errorf("the call that waited for the restart: %+v", ex)
	}
	closeLeavesNothing(t, c, marker, before)
}

// waitForRestartWaiter waits until a goroutine waits in conn for a restart
// another call started (a deadlock guard, not a timed assertion).
func waitForRestartWaiter(t *testing.T) {
	t.Helper()
	buf := make([]byte, 1<<20)
	deadline := time.Now().Add(30 * time.Second)
	for {
		for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
			if strings.Contains(g, "[select") && strings.Contains(g, "mcpclient.(*server).conn(") && !strings.Contains(g, "restartLocked") {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("no call waits for the restart")
		}
		time.Sleep(time.Millisecond)
	}
}
