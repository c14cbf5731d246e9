package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	fakemcp "github.com/toolgrade/toolgrade/fakes/mcp"
	"github.com/toolgrade/toolgrade/internal/serversfile"
)

// childEnv makes the test binary run as a stdio MCP server (see runChild).
const childEnv = "TOOLGRADE_SERVERS_TEST_CHILD"

// childFakeEnv makes the child serve a fake of fakes/mcp ("faulty") instead,
// as `toolgrade fake-mcp NAME` does.
const childFakeEnv = "TOOLGRADE_SERVERS_TEST_FAKE"

// childStartsEnv names a file the child appends its PID to when it starts,
// so tests can count restarts from the processes' side; a child that finds
// earlier starts there also offers the tool "extra".
const childStartsEnv = "TOOLGRADE_SERVERS_TEST_STARTS"

// childOnceEnv makes a child that finds earlier starts exit at once, as a
// server whose restart fails.
const childOnceEnv = "TOOLGRADE_SERVERS_TEST_ONCE"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		restarted := false
		if p := os.Getenv(childStartsEnv); p != "" {
			prev, _ := os.ReadFile(p)
			restarted = len(prev) > 0
			f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err != nil {
				fmt.Fprintln(os.Stderr, "child:", err)
				os.Exit(1)
			}
			fmt.Fprintln(f, os.Getpid())
			f.Close()
		}
		if restarted && os.Getenv(childOnceEnv) == "1" {
			fmt.Fprintln(os.Stderr, "fatal: this server starts only once")
			os.Exit(1)
		}
		if name := os.Getenv(childFakeEnv); name != "" {
			if err := fakemcp.ServeStdio(context.Background(), name, os.Stdin, os.Stdout); err != nil {
				fmt.Fprintln(os.Stderr, "child:", err)
				os.Exit(1)
			}
			os.Exit(0)
		}
		runChild(restarted)
		return
	}
	os.Exit(m.Run())
}

// runChild serves three tools over stdio: whoami reports the child's cwd
// and FAKE_K and writes to stderr; environ lists its whole environment;
// crash exits the process mid-call. A restarted
// child also serves "extra": its tools changed.
func runChild(restarted bool) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "child", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "whoami", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			wd, _ := os.Getwd()
			fmt.Fprint(os.Stderr, "hello from child\npartial line")
			return textResult(fmt.Sprintf("cwd=%s FAKE_K=%s", wd, os.Getenv("FAKE_K"))), nil
		})
	srv.AddTool(&mcp.Tool{Name: "environ", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			env := os.Environ()
			slices.Sort(env)
			return textResult(strings.Join(env, "\n")), nil
		})
	srv.AddTool(&mcp.Tool{Name: "crash", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			os.Exit(3)
			return nil, nil
		})
	if restarted {
		srv.AddTool(&mcp.Tool{Name: "extra", InputSchema: json.RawMessage(`{"type":"object"}`)}, echo)
	}
	if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(1)
	}
}

func textResult(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// fakeTool is one tool of an in-memory test server.
type fakeTool struct {
	name, desc string
	schema     string // JSON; default {"type":"object"}
	handler    mcp.ToolHandler
}

// echo answers with the arguments it received.
func echo(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return textResult("args=" + string(req.Params.Arguments)), nil
}

func newMCPServer(opts *mcp.ServerOptions, tools ...fakeTool) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "fake", Version: "1"}, opts)
	for _, ft := range tools {
		schema := ft.schema
		if schema == "" {
			schema = `{"type":"object"}`
		}
		h := ft.handler
		if h == nil {
			h = echo
		}
		srv.AddTool(&mcp.Tool{Name: ft.name, Description: ft.desc, InputSchema: json.RawMessage(schema)}, h)
	}
	return srv
}

// inMemory returns a config entry whose Dial connects srv over an in-memory
// pipe; dials counts connections.
func inMemory(name string, srv *mcp.Server) serversfile.Server {
	return serversfile.Server{Name: name, Dial: func(ctx context.Context) (mcp.Transport, error) {
		ct, st := mcp.NewInMemoryTransports()
		if _, err := srv.Connect(ctx, st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}}
}

func fakeServer(name string, tools ...fakeTool) serversfile.Server {
	return inMemory(name, newMCPServer(nil, tools...))
}

// silentServer accepts a connection and never answers, like a server that
// hangs on initialize.
func silentServer(name string) serversfile.Server {
	return serversfile.Server{Name: name, Dial: func(ctx context.Context) (mcp.Transport, error) {
		c1, c2 := net.Pipe()
		go func() {
			io.Copy(io.Discard, c2)
			c2.Close()
		}()
		return &mcp.IOTransport{Reader: c1, Writer: c1}, nil
	}}
}

func failingServer(name string) serversfile.Server {
	return serversfile.Server{Name: name, Dial: func(ctx context.Context) (mcp.Transport, error) {
		return nil, fmt.Errorf("no route to %s", name)
	}}
}

func mustConnect(t *testing.T, opts *Options, servers ...serversfile.Server) *Catalog {
	t.Helper()
	c, err := Connect(context.Background(), &serversfile.Config{Servers: servers}, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return c
}

func exposedNames(c *Catalog) []string {
	var names []string
	for _, t := range c.Tools() {
		names = append(names, t.Exposed)
	}
	return names
}

// counter counts handler invocations.
func counter(n *atomic.Int32, h mcp.ToolHandler) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		n.Add(1)
		return h(ctx, req)
	}
}

// waitGoroutines fails the test unless the goroutine count comes back down
// to before within a few seconds.
func waitGoroutines(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		n := runtime.NumGoroutine()
		if n <= before {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Fatalf("goroutines leaked: %d before, %d after\n%s", before, n, buf)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// settleGoroutines waits for goroutines left by earlier tests to finish, so
// a leak check starts from a quiet baseline.
func settleGoroutines() int {
	prev := runtime.NumGoroutine()
	for range 50 {
		time.Sleep(20 * time.Millisecond)
		n := runtime.NumGoroutine()
		if n == prev {
			return n
		}
		prev = n
	}
	return prev
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
