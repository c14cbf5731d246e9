package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/serversfile"
)

// fakeClock is the injected clock of the restart tests: Sleep records the
// wait and moves the clock on instead of waiting.
type fakeClock struct {
	mu    sync.Mutex
	now   time.Time
	slept []time.Duration
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
}

func (f *fakeClock) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.slept = append(f.slept, d)
	f.now = f.now.Add(d)
	return ctx.Err()
}

func (f *fakeClock) Advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(d)
}

func (f *fakeClock) Slept() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Duration(nil), f.slept...)
}

// faultyChild runs this test binary as the faulty fake over real stdio. Its
// command line carries a marker unique to the test, so the test can find its
// processes in /proc; starts is the file each process appends its PID to.
func faultyChild(t *testing.T, name string) (s serversfile.Server, marker, starts string) {
	s = childServer(t, name)
	starts = filepath.Join(t.TempDir(), "starts")
	s.Env[childFakeEnv] = "faulty"
	s.Env[childStartsEnv] = starts
	marker = fmt.Sprintf("marker-%s-%d", strings.ReplaceAll(t.Name(), "/", "-"), time.Now().UnixNano())
	s.Args = []string{marker}
	return s, marker, starts
}

// countStarts is how many server processes were started.
func countStarts(t *testing.T, starts string) int {
	t.Helper()
	data, err := os.ReadFile(starts)
	if err != nil {
		t.Fatal(err)
	}
	return len(strings.Fields(string(data)))
}

// closeLeavesNothing closes c and checks that no process of the test and no
// goroutine is left.
func closeLeavesNothing(t *testing.T, c *Catalog, marker string, goroutines int) {
	t.Helper()
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	// Every process has been waited for by the time Close returns; only
	// its grandchildren could linger, and the fake has none.
	if pids := processesWith(marker); len(pids) > 0 {
		t.Errorf("processes left running after Close: %v", pids)
	}
	waitGoroutines(t, goroutines)
}

func echoCall(c *Catalog, text string) record.Execution {
	args, _ := json.Marshal(map[string]string{"text": text})
	return c.Call(context.Background(), "echo", args, "")
}

func TestStdioRestartAfterCrash(t *testing.T) {
	before := settleGoroutines()
	s, marker, starts := faultyChild(t, "faulty")
	c, err := Connect(context.Background(), &serversfile.Config{Servers: []serversfile.Server{s}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ex := c.Call(context.Background(), "crash", nil, "")
	if ex.ErrorKind != record.ExecServerFailure {
		t.Errorf("the crashing call: %+v", ex)
	}
	for i := range 3 {
		if ex := echoCall(c, fmt.Sprint("after ", i)); ex.IsError || ex.Result != fmt.Sprint("after ", i) {
			t.Errorf("call %d after the crash: %+v", i, ex)
		}
	}
	if got := c.Restarts(); len(got) != 1 || got["faulty"] != 1 {
		t.Errorf("Restarts = %v, want map[faulty:1]", got)
	}
	if n := countStarts(t, starts); n != 2 {
		t.Errorf("%d processes started, want 2", n)
	}
	closeLeavesNothing(t, c, marker, before)
}

func TestStdioRestartLimit(t *testing.T) {
	before := settleGoroutines()
	clock := newFakeClock()
	s, marker, starts := faultyChild(t, "faulty")
	c, err := Connect(context.Background(), &serversfile.Config{Servers: []serversfile.Server{s}},
		&Options{MaxRestarts: 3, RestartBackoff: time.Second, Now: clock.Now, Sleep: clock.Sleep})
	if err != nil {
		t.Fatal(err)
	}
	crash := func() {
		t.Helper()
		if ex := c.Call(context.Background(), "crash", nil, ""); ex.ErrorKind != record.ExecServerFailure {
			t.Fatalf("crash: %+v", ex)
		}
	}
	for i := range 3 {
		crash()
		if ex := echoCall(c, "ok"); ex.IsError {
			t.Fatalf("call after crash %d: %+v", i+1, ex)
		}
		clock.Advance(time.Second)
	}
	// The first restart in a minute is at once, then 1s, 2s.
	if got, want := fmt.Sprint(clock.Slept()), "[1s 2s]"; got != want {
		t.Errorf("backoff waits %s, want %s", got, want)
	}
	crash()
	for range 2 {
		ex := echoCall(c, "ok")
		if ex.ErrorKind != record.ExecServerFailure || !strings.Contains(ex.Result, "the limit of 3 restarts per minute is reached") {
			t.Errorf("call past the restart limit: %+v", ex)
		}
	}
	if n := countStarts(t, starts); n != 4 {
		t.Errorf("%d processes started, want 4 (no start past the limit)", n)
	}
	// A minute after the first restart, one more is allowed.
	clock.Advance(time.Minute - 3*time.Second)
	if ex := echoCall(c, "ok"); ex.IsError {
		t.Errorf("call a minute later: %+v", ex)
	}
	if got := c.Restarts()["faulty"]; got != 4 {
		t.Errorf("Restarts = %d, want 4", got)
	}
	closeLeavesNothing(t, c, marker, before)
}

func TestStdioConcurrentCallsDuringCrashRestartOnce(t *testing.T) {
	before := settleGoroutines()
	s, marker, starts := faultyChild(t, "faulty")
	c, err := Connect(context.Background(), &serversfile.Config{Servers: []serversfile.Server{s}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Calls in flight when the server dies fail with it.
	const n = 8
	var wg sync.WaitGroup
	inFlight := make([]record.Execution, n)
	for i := range n {
		wg.Go(func() {
			inFlight[i] = c.Call(context.Background(), "hang", nil, "")
		})
	}
	// hang never answers, so these calls are in flight once the server has
	// seen them; the crash call is answered by no one either.
	waitCalls(t, c, n)
	if ex := c.Call(context.Background(), "crash", nil, ""); ex.ErrorKind != record.ExecServerFailure {
		t.Errorf("crash: %+v", ex)
	}
	wg.Wait()
	for i, ex := range inFlight {
		if ex.ErrorKind != record.ExecServerFailure {
			t.Errorf("call %d in flight during the crash: %+v", i, ex)
		}
	}
	// Calls that arrive together after it share one restart.
	after := make([]record.Execution, n)
	for i := range n {
		wg.Go(func() { after[i] = echoCall(c, fmt.Sprint(i)) })
	}
	wg.Wait()
	for i, ex := range after {
		if ex.IsError || ex.Result != fmt.Sprint(i) {
			t.Errorf("call %d after the crash: %+v", i, ex)
		}
	}
	if got := c.Restarts()["faulty"]; got != 1 {
		t.Errorf("Restarts = %d, want 1", got)
	}
	if got := countStarts(t, starts); got != 2 {
		t.Errorf("%d processes started, want 2", got)
	}
	closeLeavesNothing(t, c, marker, before)
}

// waitCalls waits until n calls of the catalog's only server are in flight
// (a deadlock guard, not a timed assertion).
func waitCalls(t *testing.T, c *Catalog, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for c.conns[0].inFlight() < n {
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d calls in flight", c.conns[0].inFlight(), n)
		}
		runtime.Gosched()
		time.Sleep(time.Millisecond)
	}
}

// TestStdioHugeResultIsTruncated is the only test that reads a result of
// 50 MB, above the SDK's own 16 MiB line limit and near the 50 MB that
// DefaultMaxFrameBytes promises room for, over real stdio.
func TestStdioHugeResultIsTruncated(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: decoding a 50 MB frame takes about 4 s, 20 s under -race")
	}
	before := settleGoroutines()
	s, marker, _ := faultyChild(t, "faulty")
	c, err := Connect(context.Background(), &serversfile.Config{Servers: []serversfile.Server{s}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	const size = 50_000_000
	ex := c.Call(context.Background(), "huge", json.RawMessage(fmt.Sprintf(`{"bytes":%d}`, size)), "")
	note := fmt.Sprintf("\n[... truncated %d bytes]", size-DefaultMaxResultBytes)
	if ex.IsError || !strings.HasSuffix(ex.Result, note) || len(ex.Result) != DefaultMaxResultBytes+len(note) {
		t.Errorf("50 MB result: error %v %q, %d bytes ending %q", ex.IsError, ex.ErrorKind, len(ex.Result), ex.Result[max(0, len(ex.Result)-80):])
	}
	if ex := echoCall(c, "still here"); ex.IsError || ex.Result != "still here" {
		t.Errorf("call after the 50 MB result: %+v", ex)
	}
	if got := c.Restarts(); len(got) != 0 {
		t.Errorf("Restarts = %v, want none", got)
	}
	closeLeavesNothing(t, c, marker, before)
}

func TestStdioFrameAboveLimitRestarts(t *testing.T) {
	before := settleGoroutines()
	s, marker, starts := faultyChild(t, "faulty")
	c, err := Connect(context.Background(), &serversfile.Config{Servers: []serversfile.Server{s}}, &Options{MaxFrameBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	ex := c.Call(context.Background(), "huge", json.RawMessage(`{"bytes":2000000}`), "")
	if ex.ErrorKind != record.ExecServerFailure || !strings.Contains(ex.Result, "1048576 bytes") {
		t.Errorf("a reply above the frame limit: %+v", ex)
	}
	if ex := echoCall(c, "ok"); ex.IsError {
		t.Errorf("call after the oversized reply: %+v", ex)
	}
	if got := c.Restarts()["faulty"]; got != 1 {
		t.Errorf("Restarts = %d, want 1", got)
	}
	if got := countStarts(t, starts); got != 2 {
		t.Errorf("%d processes started, want 2", got)
	}
	closeLeavesNothing(t, c, marker, before)
}

func TestStdioRestartWithOtherToolsFailsTheServer(t *testing.T) {
	before := settleGoroutines()
	s := childServer(t, "child")
	s.Env[childStartsEnv] = filepath.Join(t.TempDir(), "starts")
	marker := fmt.Sprintf("marker-%s-%d", t.Name(), time.Now().UnixNano())
	s.Args = []string{marker}
	c, err := Connect(context.Background(), &serversfile.Config{Servers: []serversfile.Server{s}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ex := c.Call(context.Background(), "crash", nil, ""); ex.ErrorKind != record.ExecServerFailure {
		t.Errorf("crash: %+v", ex)
	}
	// The restarted child lists "extra" too: the catalog would no longer be
	// what the model was offered.
	for range 2 {
		ex := c.Call(context.Background(), "whoami", nil, "")
		if ex.ErrorKind != record.ExecServerFailure || !strings.Contains(ex.Result, "lists different tools") {
			t.Errorf("call after a restart with other tools: %+v", ex)
		}
	}
	if got := c.Restarts()["child"]; got != 1 {
		t.Errorf("Restarts = %d, want 1 (no restart after the tools changed)", got)
	}
	if d := c.Down(); d["child"] == nil || !strings.Contains(d["child"].Error(), "lists different tools") {
		t.Errorf("Down: %v", d)
	}
	// The restarted process is of no use, so it does not wait for Close.
	if pids := processesWith(marker); len(pids) > 0 {
		t.Errorf("processes running before Close: %v", pids)
	}
	closeLeavesNothing(t, c, marker, before)
}

// TestInMemoryReconnect: a server reached through Dial (as a remote one is
// through its URL) whose connection drops is connected again the same way.
func TestInMemoryReconnect(t *testing.T) {
	dials := 0
	srv := newMCPServer(nil, fakeTool{name: "ok"})
	var wire []func() error
	s := serversfile.Server{Name: "s", Dial: func(ctx context.Context) (mcp.Transport, error) {
		dials++
		c1, c2 := net.Pipe()
		wire = append(wire, c2.Close)
		if _, err := srv.Connect(ctx, &mcp.IOTransport{Reader: c2, Writer: c2}, nil); err != nil {
			return nil, err
		}
		return &mcp.IOTransport{Reader: c1, Writer: c1}, nil
	}}
	c := mustConnect(t, nil, s)
	wire[0]()
	// Drop the connection and wait until the catalog has noticed.
	<-c.conns[0].cur.watchDone
	if ex := c.Call(context.Background(), "ok", nil, ""); ex.IsError {
		t.Errorf("call after the connection dropped: %+v", ex)
	}
	if dials != 2 || c.Restarts()["s"] != 1 {
		t.Errorf("dials %d, restarts %v; want 2 and 1", dials, c.Restarts())
	}
}

func TestFrameLimitCountsLines(t *testing.T) {
	read := func(input string, max int) (string, error) {
		// HalfReader splits reads unevenly, so lines cross chunks.
		f := &frameLimit{r: iotest.HalfReader(strings.NewReader(input)), max: max}
		b, err := io.ReadAll(f)
		return string(b), err
	}
	ok := strings.Repeat("a", 10) + "\n" + strings.Repeat("b", 10) + "\n" + strings.Repeat("c", 10)
	if got, err := read(ok, 10); err != nil || got != ok {
		t.Errorf("lines of exactly the limit: %q, %v", got, err)
	}
	long := "short\n" + strings.Repeat("x", 11) + "\nafter\n"
	got, err := read(long, 10)
	if err == nil || !strings.Contains(err.Error(), "frame limit of 10 bytes") || len(got) > len("short\n")+11 {
		t.Errorf("a line over the limit: read %q, err %v", got, err)
	}
	if got, err := read(long, -1); err != nil || got != long {
		t.Errorf("no limit: %q, %v", got, err)
	}
}

// TestStdioFailedRestartSaysWhy: a server that cannot be started again
// fails its calls with its own explanation (its stderr), each call tries
// again after the backoff, and the limit counts failed attempts too.
func TestStdioFailedRestartSaysWhy(t *testing.T) {
	before := settleGoroutines()
	clock := newFakeClock()
	s, marker, starts := faultyChild(t, "faulty")
	s.Env[childOnceEnv] = "1"
	c, err := Connect(context.Background(), &serversfile.Config{Servers: []serversfile.Server{s}},
		&Options{MaxRestarts: 2, Now: clock.Now, Sleep: clock.Sleep})
	if err != nil {
		t.Fatal(err)
	}
	if ex := c.Call(context.Background(), "crash", nil, ""); ex.ErrorKind != record.ExecServerFailure {
		t.Fatalf("crash: %+v", ex)
	}
	if d := c.Down(); len(d) != 0 {
		t.Errorf("Down before any restart: %v", d)
	}
	if ex := echoCall(c, "ok"); ex.ErrorKind != record.ExecServerFailure || !strings.Contains(ex.Result, "restart 1 failed") ||
		!strings.Contains(ex.Result, "fatal: this server starts only once") {
		t.Errorf("first attempt: %+v", ex)
	}
	if d := c.Down(); len(d) != 1 || d["faulty"] == nil || !strings.Contains(d["faulty"].Error(), "restart 1 failed") {
		t.Errorf("Down after a failed restart: %v", d)
	}
	// The next call tries again, after the backoff; then the limit holds.
	if ex := echoCall(c, "ok"); !strings.Contains(ex.Result, "restart 2 failed") {
		t.Errorf("second attempt: %+v", ex)
	}
	if ex := echoCall(c, "ok"); !strings.Contains(ex.Result, "the limit of 2 restarts per minute is reached") {
		t.Errorf("third call: %+v", ex)
	}
	if got := countStarts(t, starts); got != 3 {
		t.Errorf("%d processes started, want 3", got)
	}
	if got := fmt.Sprint(clock.Slept()); got != "[250ms]" {
		t.Errorf("backoff waits %s, want [250ms]", got)
	}
	closeLeavesNothing(t, c, marker, before)
}

// TestRestartEndsWithTheCallerContext: an interrupted run must not wait out
// a restart's backoff (or a slow start) for a call nobody wants any more.
func TestRestartEndsWithTheCallerContext(t *testing.T) {
	before := settleGoroutines()
	sleeping := make(chan struct{})
	s, marker, _ := faultyChild(t, "faulty")
	c, err := Connect(context.Background(), &serversfile.Config{Servers: []serversfile.Server{s}}, &Options{
		Sleep: func(ctx context.Context, d time.Duration) error {
			close(sleeping)
			<-ctx.Done()
			return ctx.Err()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if ex := c.Call(context.Background(), "crash", nil, ""); ex.ErrorKind != record.ExecServerFailure {
			t.Fatalf("crash: %+v", ex)
		}
		if len(c.Restarts()) == 0 {
			// The first restart in a minute does not wait.
			if ex := echoCall(c, "ok"); ex.IsError {
				t.Fatalf("after the first crash: %+v", ex)
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan record.Execution)
	go func() {
		args, _ := json.Marshal(map[string]string{"text": "ok"})
		done <- c.Call(ctx, "echo", args, "")
	}()
	<-sleeping // the second restart waits out its backoff
	cancel()
	select {
	case ex := <-done:
		if ex.ErrorKind != record.ExecServerFailure || !strings.Contains(ex.Result, "context canceled") {
			t.Errorf("call whose context ended during the restart: %+v", ex)
		}
	case <-time.After(30 * time.Second): // a deadlock guard
		t.Fatal("the call still waits for the restart after its context ended")
	}
	closeLeavesNothing(t, c, marker, before)
}

// TestCloseDuringRestart: Close ends a restart in progress, and the call
// that waited for it fails as the catalog closed.
func TestCloseDuringRestart(t *testing.T) {
	before := settleGoroutines()
	sleeping := make(chan struct{})
	s, marker, _ := faultyChild(t, "faulty")
	c, err := Connect(context.Background(), &serversfile.Config{Servers: []serversfile.Server{s}}, &Options{
		Sleep: func(ctx context.Context, d time.Duration) error {
			close(sleeping)
			<-ctx.Done()
			return ctx.Err()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	c.Call(context.Background(), "crash", nil, "")
	if ex := echoCall(c, "ok"); ex.IsError {
		t.Fatalf("after the first crash: %+v", ex)
	}
	c.Call(context.Background(), "crash", nil, "")
	done := make(chan record.Execution)
	go func() { done <- echoCall(c, "ok") }()
	<-sleeping
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	ex := <-done
	if ex.ErrorKind != record.ExecServerFailure || !strings.Contains(ex.Result, "catalog closed") {
		t.Errorf("call whose restart Close ended: %+v", ex)
	}
	closeLeavesNothing(t, c, marker, before)
}
