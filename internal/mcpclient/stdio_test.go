package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/toolgrade/toolgrade/internal/mcpclient/refservers"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/serversfile"
)

// lockedBuffer is a bytes.Buffer safe for the concurrent writes of several
// child processes' stderr.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// raceQuickExit is GORACE's option for a child run of this test binary: a
// binary built with -race sleeps a second before it exits (atexit_sleep_ms,
// so that other goroutines' race reports get out), and every close of a
// stdio server waits for its exit. Races a child finds are still reported
// as they happen.
func raceQuickExit() string {
	return strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")
}

// childRunEnv is what a child run of this test binary needs beside its
// role: GORACE (raceQuickExit), and under go test -cover the GOCOVERDIR
// its counters go to, without which it warns on stderr that it has none.
func childRunEnv() map[string]string {
	env := map[string]string{"GORACE": raceQuickExit()}
	if d := os.Getenv("GOCOVERDIR"); d != "" {
		env["GOCOVERDIR"] = d
	}
	return env
}

// childServer runs this test binary as a stdio MCP server (see runChild).
func childServer(t *testing.T, name string) serversfile.Server {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env := childRunEnv()
	env[childEnv], env["FAKE_K"] = "1", "from-config"
	return serversfile.Server{
		Name:      name,
		Command:   exe,
		Env:       env,
		Cwd:       t.TempDir(),
		Transport: serversfile.TransportStdio,
	}
}

func TestStdioChild(t *testing.T) {
	before := settleGoroutines()
	var stderr lockedBuffer
	s := childServer(t, "child")
	c, err := Connect(context.Background(), &serversfile.Config{Servers: []serversfile.Server{s}}, &Options{Stderr: &stderr})
	if err != nil {
		t.Fatal(err)
	}
	if got := exposedNames(c); strings.Join(got, ",") != "crash,environ,whoami" {
		t.Fatalf("exposed = %v", got)
	}
	ex := c.Call(context.Background(), "whoami", nil, "")
	wantDir, _ := filepath.EvalSymlinks(s.Cwd)
	if ex.IsError || ex.Result != "cwd="+wantDir+" FAKE_K=from-config" {
		t.Errorf("whoami: %+v", ex)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if got, want := stderr.String(), "[child] hello from child\n[child] partial line\n"; got != want {
		t.Errorf("stderr = %q, want %q", got, want)
	}
	waitGoroutines(t, before)
}

func TestStdioChildCrash(t *testing.T) {
	before := settleGoroutines()
	c, err := Connect(context.Background(), &serversfile.Config{Servers: []serversfile.Server{childServer(t, "child")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ex := c.Call(context.Background(), "crash", nil, "")
	if ex.ErrorKind != record.ExecServerFailure {
		t.Errorf("crash: %+v", ex)
	}
	// The server is restarted for the next call (see restart_test.go).
	if ex = c.Call(context.Background(), "whoami", nil, ""); ex.IsError {
		t.Errorf("call after the crash: %+v", ex)
	}
	if err := c.Close(); err != nil {
		t.Errorf("Close after a crash: %v", err)
	}
	waitGoroutines(t, before)
}

func TestStdioFailures(t *testing.T) {
	missing := serversfile.Server{Name: "missing", Command: "toolgrade-no-such-command", Transport: serversfile.TransportStdio}
	exits := childServer(t, "exits")
	exits.Env = childRunEnv() // not a server: the test binary runs no tests and exits
	exits.Args = []string{"-test.run=^$"}
	c := mustConnect(t, &Options{ConnectTimeout: 10 * time.Second}, missing, exits)
	f := c.Failed()
	if len(f) != 2 {
		t.Fatalf("failed = %v", f)
	}
	var notFound *exec.Error
	if f[1].Name != "missing" || !errors.As(f[1].Err, &notFound) {
		t.Errorf("missing command: %v", f[1])
	}
	if f[0].Name != "exits" {
		t.Errorf("exiting server: %v", f[0])
	}
}

func TestReferenceFilesystemServer(t *testing.T) {
	script := refservers.Script(t, "../..", refservers.Filesystem)
	dir := t.TempDir()
	conf := filepath.Join(dir, "service.conf")
	if err := os.WriteFile(conf, []byte("db_host=10.0.0.5\ndb_port=5432\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := settleGoroutines()
	var stderr lockedBuffer
	src, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"fs": map[string]any{"command": "node", "args": []string{script, dir}},
	}})
	cfg, err := serversfile.Parse(context.Background(), src, filepath.Join(dir, "servers.json"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := Connect(context.Background(), cfg, &Options{Stderr: &stderr, RequireAll: true})
	if err != nil {
		t.Fatalf("%v\nstderr:\n%s", err, stderr.String())
	}
	tool, ok := c.Lookup("read_text_file")
	if !ok {
		t.Fatalf("no read_text_file among %v", exposedNames(c))
	}
	if len(c.Tools()) < 5 {
		t.Errorf("only %d tools: %v", len(c.Tools()), exposedNames(c))
	}
	if _, err := json.Marshal(c.OllamaTools()); err != nil {
		t.Fatal(err)
	}
	if tool.SchemaError != "" {
		t.Errorf("read_text_file schema: %s", tool.SchemaError)
	}
	t.Logf("read_text_file: parameters %s; dropped %q", mustJSON(t, tool.Ollama.Function.Parameters), tool.Dropped)

	ex := c.Call(context.Background(), "read_text_file", json.RawMessage(`{"path":`+strconv.Quote(conf)+`}`), "c1")
	if ex.IsError || !strings.Contains(ex.Result, "db_port=5432") {
		t.Errorf("read_text_file: %+v", ex)
	}
	ex = c.Call(context.Background(), "read_text_file", json.RawMessage(`{"path":"/etc/passwd"}`), "c2")
	if ex.ErrorKind != record.ExecToolError {
		t.Errorf("reading outside the allowed directory: %+v", ex)
	}
	ex = c.Call(context.Background(), "read_text_file", json.RawMessage(`{"file":"service.conf"}`), "c3")
	if ex.ErrorKind != record.ExecInvalidArgs {
		t.Errorf("missing path: %+v", ex)
	}

	pid := childPID(t)
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if pid > 0 {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("server process %d still running after Close (kill 0: %v)", pid, err)
		}
	}
	waitGoroutines(t, before)
}

// childPID finds the one child process of this test (the node server), so
// the test can check it is gone after Close. It reads /proc and returns 0
// where there is none.
func childPID(t *testing.T) int {
	data, err := os.ReadFile("/proc/self/task/" + strconv.Itoa(os.Getpid()) + "/children")
	if err != nil {
		entries, _ := os.ReadDir("/proc")
		self := strconv.Itoa(os.Getpid())
		ppidRE := regexp.MustCompile(`(?m)^PPid:\s+(\d+)$`)
		for _, e := range entries {
			status, err := os.ReadFile(filepath.Join("/proc", e.Name(), "status"))
			if err != nil {
				continue
			}
			if m := ppidRE.FindSubmatch(status); m != nil && string(m[1]) == self {
				pid, _ := strconv.Atoi(e.Name())
				return pid
			}
		}
		return 0
	}
	fields := strings.Fields(string(data))
	if len(fields) == 0 {
		return 0
	}
	pid, _ := strconv.Atoi(fields[0])
	return pid
}

func mustJSON(t *testing.T, v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestStdioHangingServerLeavesNothing(t *testing.T) {
	// A "server" that never answers and leaves a grandchild behind: the
	// connect timeout must end both.
	const marker = "61.4242"
	before := settleGoroutines()
	s := serversfile.Server{Name: "hang", Command: "sh", Args: []string{"-c", "sleep " + marker + " & sleep " + marker}, Transport: serversfile.TransportStdio}
	start := time.Now()
	_, err := Connect(context.Background(), &serversfile.Config{Servers: []serversfile.Server{s}}, &Options{ConnectTimeout: 200 * time.Millisecond, RequireAll: true})
	if err == nil || !strings.Contains(err.Error(), "not connected within 200ms") {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Connect took %v", d)
	}
	// SIGKILL is delivered asynchronously; give it a moment.
	deadline := time.Now().Add(3 * time.Second)
	for pids := processesWith(marker); len(pids) > 0; pids = processesWith(marker) {
		if time.Now().After(deadline) {
			t.Errorf("processes left running: %v", pids)
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	waitGoroutines(t, before)
}

// processesWith lists the processes whose command line contains s.
func processesWith(s string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(cmdline, []byte(s)) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// referenceServers connects the reference servers named in entries
// (name → script, one of refservers' constants, and arguments) over real
// stdio.
func referenceServers(t *testing.T, entries map[string][]string) *Catalog {
	t.Helper()
	dir := t.TempDir()
	servers := map[string]any{}
	for name, args := range entries {
		script := refservers.Script(t, "../..", args[0])
		servers[name] = map[string]any{"command": "node", "args": append([]string{script}, args[1:]...),
			"env": map[string]string{"MEMORY_FILE_PATH": filepath.Join(dir, "memory.jsonl")}}
	}
	src, _ := json.Marshal(map[string]any{"mcpServers": servers})
	cfg, err := serversfile.Parse(context.Background(), src, filepath.Join(dir, "servers.json"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := Connect(context.Background(), cfg, &Options{RequireAll: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestReferenceEverythingServerContent calls the tools of
// @modelcontextprotocol/server-everything that return every kind of content,
// and checks what the model would be given for each.
func TestReferenceEverythingServerContent(t *testing.T) {
	c := referenceServers(t, map[string][]string{"everything": {refservers.Everything, "stdio"}})
	ctx := context.Background()
	for _, tc := range []struct {
		tool, args string
		want       []string
	}{
		{"echo", `{"message":"hello"}`, []string{"hello"}},
		{"get-sum", `{"a":2,"b":3}`, []string{"5"}},
		{"get-tiny-image", `{}`, []string{"[image: image/png, ", " bytes]"}},
		{"get-structured-content", `{"location":"New York"}`, []string{"temperature"}},
		{"get-resource-links", `{"count":2}`, []string{"[resource link: "}},
	} {
		ex := c.Call(ctx, tc.tool, json.RawMessage(tc.args), "")
		if ex.IsError {
			t.Errorf("%s: %s %s", tc.tool, ex.ErrorKind, ex.Result)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(ex.Result, w) {
				t.Errorf("%s: result lacks %q:\n%s", tc.tool, w, ex.Result)
			}
		}
	}
	// A wrong argument type is caught before the server sees it.
	if ex := c.Call(ctx, "get-sum", json.RawMessage(`{"a":"two","b":3}`), ""); ex.ErrorKind != "invalid_args" {
		t.Errorf("get-sum with a string: %+v", ex)
	}
}

// TestReferenceMemoryServerKeepsState: the knowledge-graph server keeps what
// one call wrote for the next, over one session.
func TestReferenceMemoryServerKeepsState(t *testing.T) {
	c := referenceServers(t, map[string][]string{"memory": {refservers.Memory}})
	ctx := context.Background()
	ex := c.Call(ctx, "create_entities", json.RawMessage(`{"entities":[{"name":"Rex","entityType":"dog","observations":["likes the terrace"]}]}`), "")
	if ex.IsError {
		t.Fatalf("create_entities: %s", ex.Result)
	}
	ex = c.Call(ctx, "search_nodes", json.RawMessage(`{"query":"terrace"}`), "")
	if ex.IsError || !strings.Contains(ex.Result, "Rex") {
		t.Errorf("search_nodes: %+v", ex)
	}
}

// TestFailedServerSaysWhyFromItsStderr: a server that dies while connecting
// usually explained itself on stderr; that explanation reaches the user even
// when stderr is not passed through.
func TestFailedServerSaysWhyFromItsStderr(t *testing.T) {
	src := []byte(`{"mcpServers": {"bad": {"command": "sh", "args": ["-c", "echo 'loading config' >&2; echo 'fatal: no API key in MY_TOKEN' >&2; exit 1"]}}}`)
	cfg, err := serversfile.Parse(context.Background(), src, filepath.Join(t.TempDir(), "servers.json"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := Connect(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	f := c.Failed()
	if len(f) != 1 || !strings.Contains(f[0].Err.Error(), "(its stderr: loading config | fatal: no API key in MY_TOKEN)") {
		t.Errorf("failed %v", f)
	}
}

func TestTailBufferKeepsTheEnd(t *testing.T) {
	var tb tailBuffer
	for i := range 500 {
		fmt.Fprintf(&tb, "line %d\n", i)
	}
	if s := tb.String(); s != "line 495 | line 496 | line 497 | line 498 | line 499" {
		t.Errorf("tail %q", s)
	}
	if len(tb.buf) > stderrTailSize {
		t.Errorf("kept %d bytes", len(tb.buf))
	}
	// A line longer than the buffer keeps only whole lines after it.
	var long tailBuffer
	long.Write([]byte(strings.Repeat("x", 2*stderrTailSize) + "\nlast words\n"))
	if s := long.String(); s != "last words" {
		t.Errorf("tail after a long line %q", s)
	}
	// A crash says what went wrong first and ends in its stack: Node's
	// missing module, its trace in between left out.
	var node tailBuffer
	node.Write([]byte("node:internal/modules/cjs/loader:1228\n  throw err;\n  ^\n\nError: Cannot find module '/x/missing.js'\n    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)\n    at Module._load (node:internal/modules/cjs/loader:1051:27)\n    at node:internal/main/run_main_module:28:49 {\n  code: 'MODULE_NOT_FOUND',\n  requireStack: []\n}\n\nNode.js v20.20.2\n"))
	if s := node.String(); !strings.HasPrefix(s, "Error: Cannot find module '/x/missing.js' | ... | ") || !strings.HasSuffix(s, "| Node.js v20.20.2") {
		t.Errorf("node's crash %q", s)
	}
	// Five lines or fewer are shown whole, once.
	var few tailBuffer
	few.Write([]byte("loading config\nfatal: no API key\n"))
	if s := few.String(); s != "loading config | fatal: no API key" {
		t.Errorf("few lines %q", s)
	}
	if (&tailBuffer{}).String() != "" || (*tailBuffer)(nil).String() != "" {
		t.Error("empty tail not empty")
	}
}
