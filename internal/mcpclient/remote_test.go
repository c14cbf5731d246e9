package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/serversfile"
)

// authServer serves h only to requests carrying the expected Authorization
// header, counting both kinds.
func authServer(t *testing.T, h http.Handler, want string) (url string, authed, refused *atomic.Int32) {
	authed, refused = new(atomic.Int32), new(atomic.Int32)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != want {
			refused.Add(1)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		authed.Add(1)
		h.ServeHTTP(w, r)
	}))
	// Registered before the catalog's cleanup, so it runs after it.
	t.Cleanup(ts.Close)
	return ts.URL, authed, refused
}

func connectConfig(t *testing.T, src string, opts *Options) *Catalog {
	t.Helper()
	cfg, err := serversfile.Parse(context.Background(), []byte(src), "servers.json")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Connect(context.Background(), cfg, opts)
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

func TestRemoteTransports(t *testing.T) {
	srv := newMCPServer(nil, fakeTool{name: "search", schema: `{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`})
	get := func(*http.Request) *mcp.Server { return srv }
	for _, tc := range []struct {
		name, path, transport string
		handler               http.Handler
	}{
		{"streamable", "/mcp", serversfile.TransportStreamable, mcp.NewStreamableHTTPHandler(get, nil)},
		{"sse", "/sse", serversfile.TransportSSE, mcp.NewSSEHandler(get, nil)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("TOOLGRADE_TEST_TOKEN", "tok-123")
			base, authed, refused := authServer(t, tc.handler, "Bearer tok-123")
			src := fmt.Sprintf(`{"mcpServers": {
  "remote": {"url": %q, "headers": {"Authorization": "Bearer ${env:TOOLGRADE_TEST_TOKEN}"}},
  "nokey": {"url": %q}
}}`, base+tc.path, base+tc.path)
			cfg, err := serversfile.Parse(context.Background(), []byte(src), "servers.json")
			if err != nil {
				t.Fatal(err)
			}
			if got := cfg.Servers[1].Transport; got != tc.transport {
				t.Fatalf("transport = %q, want %q", got, tc.transport)
			}
			c := connectConfig(t, src, nil)
			if got := exposedNames(c); len(got) != 1 || got[0] != "search" {
				t.Fatalf("exposed = %v", got)
			}
			if f := c.Failed(); len(f) != 1 || f[0].Name != "nokey" {
				t.Errorf("failed = %v; want the server without the header", f)
			}
			ex := c.Call(context.Background(), "search", json.RawMessage(`{"q":"mcp"}`), "c1")
			if ex.IsError || ex.Result != `args={"q":"mcp"}` || ex.Server != "remote" {
				t.Errorf("call: %+v", ex)
			}
			if ex := c.Call(context.Background(), "search", json.RawMessage(`{}`), ""); ex.ErrorKind != record.ExecInvalidArgs {
				t.Errorf("invalid call: %+v", ex)
			}
			if authed.Load() == 0 || refused.Load() == 0 {
				t.Errorf("authorized %d, refused %d requests", authed.Load(), refused.Load())
			}
		})
	}
}

func TestRemoteServerGone(t *testing.T) {
	srv := newMCPServer(nil, fakeTool{name: "search"})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	c := connectConfig(t, fmt.Sprintf(`{"mcpServers":{"r":{"url":%q}}}`, ts.URL), nil)
	ts.Close()
	ex := c.Call(context.Background(), "search", nil, "")
	if ex.ErrorKind != record.ExecServerFailure {
		t.Errorf("call to a stopped server: %+v", ex)
	}
}

func TestRemoteNoGoroutineLeaks(t *testing.T) {
	srv := newMCPServer(nil, fakeTool{name: "search"})
	get := func(*http.Request) *mcp.Server { return srv }
	before := settleGoroutines()
	streamable := httptest.NewServer(mcp.NewStreamableHTTPHandler(get, nil))
	sse := httptest.NewServer(mcp.NewSSEHandler(get, nil))
	cfg, err := serversfile.Parse(context.Background(), []byte(fmt.Sprintf(`{"mcpServers":{"h":{"url":%q},"s":{"url":%q}}}`, streamable.URL+"/mcp", sse.URL+"/sse")), "s.json")
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		c, err := Connect(context.Background(), cfg, &Options{RequireAll: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"h__search", "s__search"} {
			if ex := c.Call(context.Background(), name, nil, ""); ex.IsError {
				t.Errorf("%s: %+v", name, ex)
			}
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
	streamable.Close()
	sse.Close()
	waitGoroutines(t, before)
}

// TestConnectErrorsRedactURLSecrets: a remote server that fails, reached
// through a URL with a key in its query and a password in its userinfo,
// never has those echoed in the skipped-server error.
func TestConnectErrorsRedactURLSecrets(t *testing.T) {
	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "bad key "+r.URL.Query().Get("api_key"), http.StatusForbidden)
	}))
	t.Cleanup(refusing.Close)
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close() // connection refused, and an error that quotes the URL
	host := func(u string) string { return u[len("http://"):] }
	src := fmt.Sprintf(`{"mcpServers": {
  "refusing": {"url": "http://%s/mcp?api_key=SECRET-Q1&team=t"},
  "closed": {"url": "http://%s/mcp?api_key=SECRET-Q2"},
  "userinfo": {"url": "http://me:SECRET-PW@%s/mcp"},
  "plain": {"url": "http://%s/mcp"}
}}`, host(refusing.URL), host(closed.URL), host(closed.URL), host(closed.URL))
	cfg, err := serversfile.Parse(context.Background(), []byte(src), "servers.json")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Connect(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	failed := map[string]string{}
	for _, f := range c.Failed() {
		failed[f.Name] = f.Error()
	}
	if len(failed) != 4 {
		t.Fatalf("failed = %v, want all four", failed)
	}
	for name, msg := range failed {
		if strings.Contains(msg, "SECRET") {
			t.Errorf("%s: message holds a secret: %s", name, msg)
		}
	}
	if !strings.Contains(failed["closed"], "api_key=xxxxx") {
		t.Errorf("closed: %s; want the URL with its key masked", failed["closed"])
	}
	if want := "http://" + host(closed.URL) + "/mcp"; !strings.Contains(failed["plain"], want) {
		t.Errorf("plain: %s; want the URL unchanged (%s)", failed["plain"], want)
	}

	_, err = Connect(context.Background(), cfg, &Options{RequireAll: true})
	if err == nil || strings.Contains(err.Error(), "SECRET") {
		t.Errorf("RequireAll error: %v; want one without secrets", err)
	}
}

// TestCallErrorsRedactURLSecrets: a remote server that goes away after
// connecting; the failed call's result (which the model sees and trials.jsonl
// keeps) does not hold the key in its URL.
func TestCallErrorsRedactURLSecrets(t *testing.T) {
	srv := newMCPServer(nil, fakeTool{name: "search"})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	c := connectConfig(t, fmt.Sprintf(`{"mcpServers":{"r":{"url":%q}}}`, ts.URL+"/mcp?api_key=SECRET-CALL"), nil)
	ts.Close()
	ex := c.Call(context.Background(), "search", nil, "")
	if !ex.IsError || ex.Result == "" {
		t.Fatalf("call to a stopped server: %+v", ex)
	}
	if strings.Contains(ex.Result+ex.Error, "SECRET") {
		t.Errorf("the call's result holds the key:\n%s\n%s", ex.Result, ex.Error)
	}
}

// TestRemoteReconnectAfterServerRestart: a remote server that restarted
// has forgotten its sessions; the call that finds out fails, and the next one
// connects again, as a crashed stdio server is restarted.
func TestRemoteReconnectAfterServerRestart(t *testing.T) {
	srv := newMCPServer(nil, fakeTool{name: "search"})
	newHandler := func() http.Handler {
		return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	}
	var h atomic.Pointer[http.Handler]
	first := newHandler()
	h.Store(&first)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { (*h.Load()).ServeHTTP(w, r) }))
	t.Cleanup(ts.Close)
	c := connectConfig(t, fmt.Sprintf(`{"mcpServers":{"r":{"url":%q}}}`, ts.URL), nil)
	if ex := c.Call(context.Background(), "search", nil, ""); ex.IsError {
		t.Fatalf("first call: %+v", ex)
	}
	restarted := newHandler()
	h.Store(&restarted)
	if ex := c.Call(context.Background(), "search", nil, ""); ex.ErrorKind != record.ExecServerFailure {
		t.Errorf("call that finds the session gone: %+v", ex)
	}
	if ex := c.Call(context.Background(), "search", nil, ""); ex.IsError {
		t.Errorf("call after reconnecting: %+v", ex)
	}
	if got := c.Restarts(); got["r"] != 1 {
		t.Errorf("Restarts = %v, want r: 1", got)
	}
}

func TestRemotePropertyOrder(t *testing.T) {
	// Over every remote transport, paged, the server's property order
	// survives the SDK's decoding into a map.
	var tools []fakeTool
	for _, name := range []string{"one", "two"} {
		tools = append(tools, fakeTool{name: name, schema: `{"type":"object","properties":{"zz":{},"` + name + `":{},"aa":{}}}`})
	}
	srv := newMCPServer(&mcp.ServerOptions{PageSize: 1}, tools...)
	get := func(*http.Request) *mcp.Server { return srv }
	for _, tc := range []struct {
		name, path string
		handler    http.Handler
	}{
		{"streamable events", "/mcp", mcp.NewStreamableHTTPHandler(get, nil)},
		{"streamable json", "/mcp", mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{JSONResponse: true})},
		{"sse", "/sse", mcp.NewSSEHandler(get, nil)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := httptest.NewServer(tc.handler)
			t.Cleanup(ts.Close)
			c := connectConfig(t, fmt.Sprintf(`{"mcpServers": {"r": {"url": %q}}}`, ts.URL+tc.path), nil)
			if len(c.Tools()) != 2 {
				t.Fatalf("tools: %v", exposedNames(c))
			}
			for _, tool := range c.Tools() {
				var names []string
				for name := range tool.Ollama.Function.Parameters.Properties.All() {
					names = append(names, name)
				}
				if want := []string{"zz", tool.Name, "aa"}; !reflect.DeepEqual(names, want) {
					t.Errorf("%s: properties %q, want %q", tool.Name, names, want)
				}
			}
		})
	}
}
