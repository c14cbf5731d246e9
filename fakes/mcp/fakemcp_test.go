package fakemcp_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgrade/toolgrade/fakes/mcp"
)

// serveEnv, when set to a server name, makes the test binary serve that fake
// over stdio instead of running tests (the SDK's own fork-and-exec trick).
const serveEnv = "FAKEMCP_TEST_SERVE"

func TestMain(m *testing.M) {
	if name := os.Getenv(serveEnv); name != "" {
		os.Unsetenv(serveEnv)
		if err := fakemcp.ServeStdio(context.Background(), name, os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "serve:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

var clientImpl = &mcp.Implementation{Name: "fakemcp-test", Version: "v0.0.1"}

// connect serves s in memory and returns a connected client session, plus
// the stop func of InMemory; both are cleaned up at the end of the test.
func connect(t *testing.T, s *mcp.Server) (*mcp.ClientSession, func()) {
	t.Helper()
	tr, stop, err := fakemcp.InMemory(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(clientImpl, nil).Connect(t.Context(), tr, nil)
	if err != nil {
		stop()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		stop()
	})
	return cs, stop
}

// call calls a tool and fails the test on a protocol error.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("CallTool(%s, %v): %v", name, args, err)
	}
	return res
}

// text concatenates the text content of res.
func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// wantText calls a tool that must succeed and returns its text.
func wantText(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	res := call(t, cs, name, args)
	if res.IsError {
		t.Fatalf("%s(%v): unexpected tool error: %s", name, args, text(res))
	}
	return text(res)
}

// wantToolError calls a tool that must fail with an IsError result and
// returns the error text.
func wantToolError(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	res := call(t, cs, name, args)
	if !res.IsError {
		t.Fatalf("%s(%v): got success %q, want a tool error", name, args, text(res))
	}
	return text(res)
}

// settle waits until no more than max goroutines are running.
func settle(t *testing.T, max int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		n := runtime.NumGoroutine()
		if n <= max {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Fatalf("%d goroutines still running, want at most %d:\n%s", n, max, buf)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

const dogLine = "faq.txt: Q: Can I bring my dog? A: Yes, dogs are welcome on the terrace."

func TestNames(t *testing.T) {
	if got, want := fakemcp.Names(), []string{"docs", "faulty", "notes"}; !slices.Equal(got, want) {
		t.Errorf("Names() = %v, want %v", got, want)
	}
	for _, name := range fakemcp.Names() {
		if s, err := fakemcp.New(name); err != nil || s == nil {
			t.Errorf("New(%q) = %v, %v", name, s, err)
		}
	}
	_, err := fakemcp.New("nope")
	if err == nil || !strings.Contains(err.Error(), `"nope"`) || !strings.Contains(err.Error(), "docs, faulty, notes") {
		t.Errorf(`New("nope") error = %v, want one naming "nope" and listing docs, faulty, notes`, err)
	}
	if err := fakemcp.ServeStdio(t.Context(), "nope", strings.NewReader(""), io.Discard); err == nil {
		t.Error(`ServeStdio("nope") succeeded`)
	}
}

// TestAboutNamesEveryTool: what fake-mcp -h says of a server lists its
// tools, all of them and no other.
func TestAboutNamesEveryTool(t *testing.T) {
	for _, name := range fakemcp.Names() {
		s, _ := fakemcp.New(name)
		cs, _ := connect(t, s)
		res, err := cs.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var tools []string
		for _, tool := range res.Tools {
			tools = append(tools, tool.Name)
		}
		_, listed, ok := strings.Cut(fakemcp.About(name), "tools: ")
		listed = strings.ReplaceAll(listed, " (exits 3)", "")
		if got := strings.Split(listed, ", "); !ok || !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(tools))) {
			t.Errorf("About(%q) = %q; its tools are %v", name, fakemcp.About(name), tools)
		}
	}
	if fakemcp.About("nope") != "" {
		t.Error(`About("nope") is not empty`)
	}
}

func TestToolSchemas(t *testing.T) {
	for _, tc := range []struct {
		server   *mcp.Server
		tools    []string
		required map[string][]string
		defaults map[string]map[string]float64
	}{
		{
			server: fakemcp.Docs(),
			tools:  []string{"get_document", "list_documents", "search"},
			required: map[string][]string{
				"search":       {"query"},
				"get_document": {"name"},
			},
			defaults: map[string]map[string]float64{"search": {"top_k": 3}},
		},
		{
			server:   fakemcp.Faulty(nil),
			tools:    []string{"crash", "echo", "fail", "hang", "huge", "slow"},
			required: map[string][]string{"echo": {"text"}},
			defaults: map[string]map[string]float64{"huge": {"bytes": 1e6}, "slow": {"ms": 1000}},
		},
	} {
		cs, _ := connect(t, tc.server)
		var names []string
		for tool, err := range cs.Tools(t.Context(), nil) {
			if err != nil {
				t.Fatal(err)
			}
			names = append(names, tool.Name)
			if len(tool.Description) < 40 {
				t.Errorf("%s: description too short: %q", tool.Name, tool.Description)
			}
			schema, ok := tool.InputSchema.(map[string]any)
			if !ok {
				t.Fatalf("%s: input schema is %T", tool.Name, tool.InputSchema)
			}
			var req []string
			if r, ok := schema["required"].([]any); ok {
				for _, v := range r {
					req = append(req, v.(string))
				}
			}
			if !slices.Equal(req, tc.required[tool.Name]) {
				t.Errorf("%s: required = %v, want %v", tool.Name, req, tc.required[tool.Name])
			}
			props, _ := schema["properties"].(map[string]any)
			for name, p := range props {
				p := p.(map[string]any)
				if d, _ := p["description"].(string); len(d) < 10 {
					t.Errorf("%s.%s: description too short: %q", tool.Name, name, d)
				}
				if want, ok := tc.defaults[tool.Name][name]; ok && p["default"] != want {
					t.Errorf("%s.%s: default = %v, want %v", tool.Name, name, p["default"], want)
				}
			}
		}
		slices.Sort(names)
		if !slices.Equal(names, tc.tools) {
			t.Errorf("tools = %v, want %v", names, tc.tools)
		}
	}
}

func TestSearch(t *testing.T) {
	cs, _ := connect(t, fakemcp.Docs())
	for _, tc := range []struct {
		args      map[string]any
		wantFirst string
		wantLines int
	}{
		{map[string]any{"query": "dog"}, dogLine, 1},
		{map[string]any{"query": "DOGS"}, dogLine, 1},
		{map[string]any{"query": "Can I bring my dog?"}, dogLine, 1},
		{map[string]any{"query": "vegetarian"}, "menu.txt: Soup of the day: roasted tomato and basil soup (vegetarian) - $6.50", 3},
		{map[string]any{"query": "vegetarian", "top_k": 1}, "menu.txt: Soup of the day: roasted tomato and basil soup (vegetarian) - $6.50", 1},
		{map[string]any{"query": "vegetarian", "top_k": 20}, "menu.txt: Soup of the day: roasted tomato and basil soup (vegetarian) - $6.50", 5},
		{map[string]any{"query": "soup of the day"}, "menu.txt: Soup of the day: roasted tomato and basil soup (vegetarian) - $6.50", 2},
		{map[string]any{"query": "opening hours"}, "hours.txt: Opening hours on weekdays (Monday to Friday): open Mon-Fri 9:00-17:00.", 2},
		{map[string]any{"query": "are you open on saturday"}, "hours.txt: Opening hours on weekends (Saturday and Sunday): open Sat-Sun 10:00-16:00.", 2},
		{map[string]any{"query": "parking"}, "faq.txt: Q: Is there parking? A: Yes, free parking for 20 cars is available behind the restaurant.", 1},
		{map[string]any{"query": "xyzzy"}, "no results", 1},
		{map[string]any{"query": "is the"}, "no results", 1},
	} {
		got := wantText(t, cs, "search", tc.args)
		lines := strings.Split(got, "\n")
		if lines[0] != tc.wantFirst || len(lines) != tc.wantLines {
			t.Errorf("search(%v) =\n%s\nwant %d lines, first %q", tc.args, got, tc.wantLines, tc.wantFirst)
		}
	}
	for _, args := range []map[string]any{
		{},
		{"query": ""},
		{"query": "dog", "top_k": 0},
		{"query": "dog", "top_k": 21},
		{"query": "dog", "limit": 2},
	} {
		wantToolError(t, cs, "search", args)
	}
}

func TestDocuments(t *testing.T) {
	cs, _ := connect(t, fakemcp.Docs())
	if got, want := wantText(t, cs, "list_documents", nil), "faq.txt\nhours.txt\nmenu.txt"; got != want {
		t.Errorf("list_documents = %q, want %q", got, want)
	}
	for name, want := range map[string]string{
		"faq.txt":   "A: Yes, dogs are welcome on the terrace.",
		"hours.txt": "Mon-Fri 9:00-17:00",
		"menu.txt":  "Soup of the day",
	} {
		got := wantText(t, cs, "get_document", map[string]any{"name": name})
		if !strings.Contains(got, want) || !strings.HasSuffix(got, "\n") || strings.Count(got, "\n") < 4 {
			t.Errorf("get_document(%s) =\n%s\nwant the whole document, containing %q", name, got, want)
		}
	}
	msg := wantToolError(t, cs, "get_document", map[string]any{"name": "secrets.txt"})
	if !strings.Contains(msg, "secrets.txt") || !strings.Contains(msg, "faq.txt, hours.txt, menu.txt") {
		t.Errorf("unknown document error = %q, want it to name the document and list the known ones", msg)
	}
	wantToolError(t, cs, "get_document", nil)
}

func TestFail(t *testing.T) {
	cs, _ := connect(t, fakemcp.Faulty(nil))
	if msg := wantToolError(t, cs, "fail", map[string]any{"reason": "disk full"}); msg != "injected failure: disk full" {
		t.Errorf("fail = %q", msg)
	}
	if msg := wantToolError(t, cs, "fail", nil); msg != "injected failure" {
		t.Errorf("fail without reason = %q", msg)
	}
}

func TestEcho(t *testing.T) {
	cs, _ := connect(t, fakemcp.Faulty(nil))
	const s = "héllo, \"world\"\n\ttabs & <tags>"
	if got := wantText(t, cs, "echo", map[string]any{"text": s}); got != s {
		t.Errorf("echo = %q, want %q", got, s)
	}
	wantToolError(t, cs, "echo", nil)
}

func TestHuge(t *testing.T) {
	cs, _ := connect(t, fakemcp.Faulty(nil))
	for _, tc := range []struct {
		args map[string]any
		want int
	}{
		{nil, 1_000_000},
		{map[string]any{"bytes": 0}, 0},
		{map[string]any{"bytes": 10}, 10},
		{map[string]any{"bytes": 100_001}, 100_001},
	} {
		if got := len(wantText(t, cs, "huge", tc.args)); got != tc.want {
			t.Errorf("huge(%v): got %d bytes, want %d", tc.args, got, tc.want)
		}
	}
	if got := wantText(t, cs, "huge", map[string]any{"bytes": 10}); got != "0123456789" {
		t.Errorf("huge(10) = %q", got)
	}
	wantToolError(t, cs, "huge", map[string]any{"bytes": -1})
}

func TestSlow(t *testing.T) {
	cs, _ := connect(t, fakemcp.Faulty(nil))
	start := time.Now()
	if got := wantText(t, cs, "slow", map[string]any{"ms": 50}); got != "ok" {
		t.Errorf("slow = %q, want ok", got)
	}
	if d := time.Since(start); d < 50*time.Millisecond {
		t.Errorf("slow(50) answered after %v", d)
	}

	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	start = time.Now()
	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"ms": 60_000}})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("slow(60s) with a 50ms timeout: err = %v, want deadline exceeded", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("slow(60s) with a 50ms timeout returned after %v", d)
	}
	// The cancelled call must not block the session.
	if got := wantText(t, cs, "slow", map[string]any{"ms": 0}); got != "ok" {
		t.Errorf("slow(0) = %q", got)
	}
}

func TestHangCancel(t *testing.T) {
	before := runtime.NumGoroutine()
	cs, stop := connect(t, fakemcp.Faulty(nil))
	connected := runtime.NumGoroutine()

	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "hang"})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("hang: err = %v, want deadline exceeded", err)
	}
	settle(t, connected) // the server's handler returned
	if got := wantText(t, cs, "echo", map[string]any{"text": "still alive"}); got != "still alive" {
		t.Errorf("echo after hang = %q", got)
	}

	cs.Close()
	stop()
	settle(t, before)
}

func TestHangStop(t *testing.T) {
	before := runtime.NumGoroutine()
	cs, stop := connect(t, fakemcp.Faulty(nil))
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "hang"})
		errc <- err
	}()
	time.Sleep(50 * time.Millisecond) // let the call reach the handler
	stop()                            // must not wait for the hanging call
	if err := <-errc; err == nil {
		t.Error("hang succeeded after stop")
	}
	cs.Close()
	settle(t, before)
}

func TestCrashInMemory(t *testing.T) {
	before := runtime.NumGoroutine()
	cs, stop := connect(t, fakemcp.Faulty(nil))
	wantText(t, cs, "echo", map[string]any{"text": "x"})
	if res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "crash"}); err == nil {
		t.Fatalf("crash answered: %+v", res)
	}
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "x"}}); err == nil {
		t.Error("echo succeeded after crash")
	}
	stop()
	cs.Close()
	settle(t, before)
}

func TestCrashHook(t *testing.T) {
	called := make(chan struct{})
	var stop func()
	s := fakemcp.Faulty(&fakemcp.FaultyOptions{Crash: func() {
		close(called)
		stop()
	}})
	tr, stop, err := fakemcp.InMemory(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(clientImpl, nil).Connect(t.Context(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "crash"}); err == nil {
		t.Error("crash answered")
	}
	select {
	case <-called:
	default:
		t.Error("Crash hook not called")
	}
}

func TestCrashWithoutHook(t *testing.T) {
	// Served by neither InMemory nor ServeStdio and without a hook, crash
	// must not take the process down: it fails with a protocol error.
	st, ct := mcp.NewInMemoryTransports()
	ss, err := fakemcp.Faulty(nil).Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(clientImpl, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	_, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "crash"})
	if err == nil || !strings.Contains(err.Error(), "no crash hook") {
		t.Errorf("crash without a hook: err = %v, want a protocol error about the hook", err)
	}
}

func TestServeStdioCancel(t *testing.T) {
	before := runtime.NumGoroutine()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- fakemcp.ServeStdio(ctx, "faulty", inR, outW) }()

	cs, err := mcp.NewClient(clientImpl, nil).Connect(t.Context(), &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := wantText(t, cs, "echo", map[string]any{"text": "over pipes"}); got != "over pipes" {
		t.Errorf("echo = %q", got)
	}
	hung := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "hang"})
		hung <- err
	}()
	time.Sleep(50 * time.Millisecond) // let the call reach the handler

	cancel()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("ServeStdio after cancel: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ServeStdio did not return after cancel")
	}
	outW.Close() // ServeStdio leaves closing its output to the caller
	if err := <-hung; err == nil {
		t.Error("hang succeeded after the server stopped")
	}
	cs.Close()
	settle(t, before)
}

// serverCommand returns a command that runs this test binary as the named
// fake server over stdio.
func serverCommand(t *testing.T, name string) (*exec.Cmd, *strings.Builder) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	// atexit_sleep_ms=0 spares a -race child the race detector's 1s pause at exit.
	cmd.Env = append(os.Environ(), serveEnv+"="+name, "GORACE="+os.Getenv("GORACE")+" atexit_sleep_ms=0")
	stderr := new(strings.Builder)
	cmd.Stderr = stderr
	return cmd, stderr
}

func TestStdioDocs(t *testing.T) {
	cmd, stderr := serverCommand(t, "docs")
	cs, err := mcp.NewClient(clientImpl, nil).Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := wantText(t, cs, "search", map[string]any{"query": "dog"}); got != dogLine {
		t.Errorf("search over stdio = %q, want %q", got, dogLine)
	}
	if err := cs.Close(); err != nil {
		t.Errorf("closing: %v (stderr: %s)", err, stderr)
	}
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 0 {
		t.Errorf("server process state after close: %v (stderr: %s)", cmd.ProcessState, stderr)
	}
}

func TestStdioFaulty(t *testing.T) {
	cmd, stderr := serverCommand(t, "faulty")
	cs, err := mcp.NewClient(clientImpl, nil).Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	// A cancelled hang leaves the server usable.
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "hang"}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("hang over stdio: err = %v, want deadline exceeded", err)
	}
	if got := wantText(t, cs, "echo", map[string]any{"text": "after hang"}); got != "after hang" {
		t.Errorf("echo = %q", got)
	}
	if got := len(wantText(t, cs, "huge", nil)); got != 1_000_000 {
		t.Errorf("huge over stdio: %d bytes", got)
	}
	if msg := wantToolError(t, cs, "fail", map[string]any{"reason": "boom"}); msg != "injected failure: boom" {
		t.Errorf("fail over stdio = %q", msg)
	}

	if res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "crash"}); err == nil {
		t.Fatalf("crash answered over stdio: %+v", res)
	}
	cs.Close() // waits for the process
	if cmd.ProcessState == nil {
		t.Fatal("server process not waited for after crash")
	}
	if got := cmd.ProcessState.ExitCode(); got != fakemcp.CrashExitCode {
		t.Errorf("server exit code after crash = %d, want %d (stderr: %s)", got, fakemcp.CrashExitCode, stderr)
	}
}
