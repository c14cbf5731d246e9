package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/serversfile"
	"github.com/toolgrade/toolgrade/internal/toolschema"
)

func TestNamingAutoCollisions(t *testing.T) {
	c := mustConnect(t, nil,
		fakeServer("b", fakeTool{name: "search"}, fakeTool{name: "other"}),
		fakeServer("a", fakeTool{name: "search"}, fakeTool{name: "fetch"}),
	)
	// Servers by name, each in its tools/list order (Go SDK servers list
	// tools by name).
	want := []string{"fetch", "a__search", "other", "b__search"}
	if got := exposedNames(c); !reflect.DeepEqual(got, want) {
		t.Fatalf("exposed = %v, want %v", got, want)
	}
	for name, want := range map[string]string{
		"a__search": "a/search", "b__search": "b/search", "a.search": "a/search",
		"fetch": "a/fetch", "a__fetch": "a/fetch", "a.fetch": "a/fetch", "b.other": "b/other",
	} {
		tool, ok := c.Lookup(name)
		if !ok {
			t.Errorf("Lookup(%q) failed", name)
			continue
		}
		if got := tool.Server + "/" + tool.Name; got != want {
			t.Errorf("Lookup(%q) = %s, want %s", name, got, want)
		}
	}
	for _, name := range []string{"search", "c__search", "a__other", "a.", ""} {
		if _, ok := c.Lookup(name); ok {
			t.Errorf("Lookup(%q) succeeded", name)
		}
	}
	for i, o := range c.OllamaTools() {
		if o.Function.Name != c.Tools()[i].Exposed || o.Type != "function" {
			t.Errorf("OllamaTools[%d] = %s/%s", i, o.Type, o.Function.Name)
		}
	}

	// A call through the prefixed name reaches the right server and records
	// the original name.
	ex := c.Call(context.Background(), "b__search", json.RawMessage(`{"q":1}`), "call_1")
	if ex.IsError || ex.Server != "b" || ex.Tool != "search" || ex.Name != "b__search" || ex.CallID != "call_1" {
		t.Errorf("execution = %+v", ex)
	}
}

func TestNamingPrefixed(t *testing.T) {
	c := mustConnect(t, &Options{Naming: NamingPrefixed},
		fakeServer("docs", fakeTool{name: "search"}, fakeTool{name: "read"}),
		fakeServer("web", fakeTool{name: "fetch"}),
	)
	want := []string{"docs__read", "docs__search", "web__fetch"}
	if got := exposedNames(c); !reflect.DeepEqual(got, want) {
		t.Fatalf("exposed = %v, want %v", got, want)
	}
	if _, ok := c.Lookup("docs.read"); !ok {
		t.Error("Lookup(docs.read) failed")
	}
	if _, err := Connect(context.Background(), &serversfile.Config{}, &Options{Naming: "short"}); err == nil {
		t.Error("Connect accepted an unknown naming mode")
	}
}

func TestToolFilters(t *testing.T) {
	tools := []fakeTool{{name: "read_text_file"}, {name: "write_file"}, {name: "edit_file"}, {name: "list_directory"}}
	inc := fakeServer("inc", tools...)
	inc.ToolFilter = &serversfile.ToolFilter{Mode: serversfile.FilterInclude, Tools: []string{"read_text_file", "list_directory", "missing_tool"}}
	exc := fakeServer("exc", tools...)
	exc.ToolFilter = &serversfile.ToolFilter{Mode: serversfile.FilterExclude, Tools: []string{"write_file", "edit_file"}}
	c := mustConnect(t, &Options{Naming: NamingPrefixed}, inc, exc)
	want := []string{"exc__list_directory", "exc__read_text_file", "inc__list_directory", "inc__read_text_file"}
	if got := exposedNames(c); !reflect.DeepEqual(got, want) {
		t.Errorf("exposed = %v, want %v", got, want)
	}
	if w := c.Warnings(); len(w) != 1 || !contains(w[0], `"missing_tool"`) {
		t.Errorf("warnings = %q, want one about missing_tool", w)
	}
	// A filtered-out tool is unknown to the model.
	ex := c.Call(context.Background(), "inc__write_file", nil, "")
	if ex.ErrorKind != record.ExecUnknownTool {
		t.Errorf("calling a filtered tool: %+v", ex)
	}
}

func TestAllPages(t *testing.T) {
	var tools []fakeTool
	for i := range 7 {
		tools = append(tools, fakeTool{name: fmt.Sprintf("tool%d", i)})
	}
	c := mustConnect(t, nil, inMemory("paged", newMCPServer(&mcp.ServerOptions{PageSize: 1}, tools...)))
	if got := len(c.Tools()); got != 7 {
		t.Fatalf("listed %d tools over pages of 1, want 7: %v", got, exposedNames(c))
	}
}

// detSchema has properties whose natural orders all differ: required order,
// name order and declaration order.
const detSchema = `{
  "$schema": "http://json-schema.org/draft-07/schema#",
  "type": "object",
  "properties": {
    "zeta": {"type": "string", "description": "z"},
    "alpha": {"type": "integer", "minimum": 1},
    "mid": {"$ref": "#/$defs/Point"},
    "beta": {"type": "array", "items": {"$ref": "#/$defs/Point"}},
    "kind": {"enum": ["b", "a", "c"]}
  },
  "required": ["zeta", "mid"],
  "$defs": {"Point": {"type": "object", "required": ["y"], "properties": {"y": {"type": "number"}, "x": {"type": "number"}}}}
}`

func TestOllamaToolsDeterministic(t *testing.T) {
	srv := newMCPServer(nil,
		fakeTool{name: "plot", desc: "Plot a point.", schema: detSchema},
		fakeTool{name: "search", schema: `{"type":"object","properties":{"q":{"type":"string"},"limit":{"type":"integer"},"offset":{"type":"integer"},"lang":{"type":"string"}}}`},
	)
	other := newMCPServer(nil, fakeTool{name: "search", schema: detSchema})
	for _, tc := range []struct {
		order        string
		search, plot string
	}{
		// The server's order, nested objects and items included.
		{"", `{"type":"function","function":{"name":"one__search","parameters":{"type":"object","properties":{"q":{"type":"string"},"limit":{"type":"integer"},"offset":{"type":"integer"},"lang":{"type":"string"}}}}}`,
			`{"type":"function","function":{"name":"plot","description":"Plot a point.","parameters":{"type":"object","required":["zeta","mid"],"properties":{"zeta":{"type":"string","description":"z"},"alpha":{"type":"integer"},"mid":{"type":"object","properties":{"y":{"type":"number"},"x":{"type":"number"}}},"beta":{"type":"array","items":{"type":"object","required":["y"],"properties":{"y":{"type":"number"},"x":{"type":"number"}}}},"kind":{"enum":["b","a","c"]}}}}}`},
		// Required first in required order, then by name.
		{toolschema.PropertyOrderRequiredFirst, `{"type":"function","function":{"name":"one__search","parameters":{"type":"object","properties":{"lang":{"type":"string"},"limit":{"type":"integer"},"offset":{"type":"integer"},"q":{"type":"string"}}}}}`,
			`{"type":"function","function":{"name":"plot","description":"Plot a point.","parameters":{"type":"object","required":["zeta","mid"],"properties":{"zeta":{"type":"string","description":"z"},"mid":{"type":"object","properties":{"y":{"type":"number"},"x":{"type":"number"}}},"alpha":{"type":"integer"},"beta":{"type":"array","items":{"properties":{"x":{"type":"number"},"y":{"type":"number"}},"required":["y"],"type":"object"}},"kind":{"enum":["b","a","c"]}}}}}`},
	} {
		var first []byte
		for i := range 20 {
			c, err := Connect(context.Background(), &serversfile.Config{Servers: []serversfile.Server{inMemory("one", srv), inMemory("two", other)}}, &Options{PropertyOrder: tc.order})
			if err != nil {
				t.Fatal(err)
			}
			data, err := json.Marshal(c.OllamaTools())
			if err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				first = data
			} else if !bytes.Equal(data, first) {
				t.Fatalf("%q: build %d differs:\n%s\nvs\n%s", tc.order, i, data, first)
			}
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
		}
		var tools []json.RawMessage
		if err := json.Unmarshal(first, &tools); err != nil {
			t.Fatal(err)
		}
		if got := string(tools[1]); got != tc.search {
			t.Errorf("%q: one__search:\n got %s\nwant %s", tc.order, got, tc.search)
		}
		if got := string(tools[0]); got != tc.plot {
			t.Errorf("%q: plot:\n got %s\nwant %s", tc.order, got, tc.plot)
		}
	}
	if _, err := Connect(context.Background(), &serversfile.Config{}, &Options{PropertyOrder: "alpha"}); err == nil || !strings.Contains(err.Error(), `unknown property order "alpha"`) {
		t.Errorf("bad PropertyOrder: %v", err)
	}
}

func TestCallErrorKinds(t *testing.T) {
	var validCalls, hangCalls atomic.Int32
	srv := newMCPServer(nil,
		fakeTool{name: "read", schema: `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"path":{"type":"string","minLength":1}},"required":["path"],"additionalProperties":false}`,
			handler: counter(&validCalls, echo)},
		fakeTool{name: "fail", handler: func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			r := textResult("disk on fire")
			r.IsError = true
			return r, nil
		}},
		fakeTool{name: "hang", handler: counter(&hangCalls, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})},
		fakeTool{name: "rpcerr", handler: func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New("internal trouble")
		}},
	)
	c := mustConnect(t, &Options{CallTimeout: 300 * time.Millisecond}, inMemory("s", srv))
	ctx := context.Background()

	cases := []struct {
		name, tool, args string
		kind             string
		result           string // substring
	}{
		{"ok", "read", `{"path":"/etc/hosts"}`, "", `args={"path":"/etc/hosts"}`},
		{"unknown", "get_weather", `{}`, record.ExecUnknownTool, `error: unknown tool "get_weather"; available tools: fail, hang, read, rpcerr`},
		{"missing required", "read", `{}`, record.ExecInvalidArgs, `error: invalid arguments for tool read: `},
		{"wrong type", "read", `{"path":7}`, record.ExecInvalidArgs, `invalid arguments for tool read`},
		{"too short", "read", `{"path":""}`, record.ExecInvalidArgs, `invalid arguments for tool read`},
		{"extra property", "read", `{"path":"a","mode":"x"}`, record.ExecInvalidArgs, `invalid arguments for tool read`},
		{"not an object", "read", `["a"]`, record.ExecInvalidArgs, `arguments must be a JSON object, not an array`},
		{"not JSON", "read", `{path:`, record.ExecInvalidArgs, `arguments are not valid JSON`},
		{"tool error", "fail", ``, record.ExecToolError, `disk on fire`},
		{"timeout", "hang", `{}`, record.ExecTimeout, `error: tool hang timed out after 300ms`},
		{"protocol error", "rpcerr", `{}`, record.ExecServerFailure, `internal trouble`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ex := c.Call(ctx, tc.tool, json.RawMessage(tc.args), "id-"+tc.name)
			if ex.ErrorKind != tc.kind || ex.IsError != (tc.kind != "") {
				t.Errorf("kind = %q (IsError %v), want %q; result %q, error %q", ex.ErrorKind, ex.IsError, tc.kind, ex.Result, ex.Error)
			}
			if !contains(ex.Result, tc.result) {
				t.Errorf("result = %q, want it to contain %q", ex.Result, tc.result)
			}
			if ex.Name != tc.tool || ex.CallID != "id-"+tc.name {
				t.Errorf("name, id = %q, %q", ex.Name, ex.CallID)
			}
			if tc.kind != record.ExecUnknownTool && (ex.Server != "s" || ex.Tool != tc.tool) {
				t.Errorf("server, tool = %q, %q", ex.Server, ex.Tool)
			}
			if ex.Duration <= 0 {
				t.Errorf("duration = %v", ex.Duration)
			}
			if !json.Valid(ex.Arguments) {
				t.Errorf("arguments %q are not valid JSON", ex.Arguments)
			}
			if _, err := json.Marshal(ex); err != nil {
				t.Errorf("execution does not marshal: %v", err)
			}
		})
	}
	if n := validCalls.Load(); n != 1 {
		t.Errorf("read ran %d times; invalid arguments must not reach the server", n)
	}
	if hangCalls.Load() != 1 {
		t.Errorf("hang ran %d times", hangCalls.Load())
	}
	// The server survives a timeout.
	if ex := c.Call(ctx, "read", json.RawMessage(`{"path":"x"}`), ""); ex.IsError {
		t.Errorf("call after a timeout: %+v", ex)
	}
	// Empty and null arguments are sent as {} and recorded as given.
	ex := c.Call(ctx, "fail", nil, "")
	if string(ex.Arguments) != "{}" {
		t.Errorf("nil arguments recorded as %q", ex.Arguments)
	}
	ex = c.Call(ctx, "rpcerr", json.RawMessage("null"), "")
	if ex.ErrorKind != record.ExecServerFailure {
		t.Errorf("null arguments: %+v", ex)
	}
	// A canceled caller is not a timeout.
	cctx, cancel := context.WithCancel(ctx)
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	ex = c.Call(cctx, "hang", nil, "")
	if ex.ErrorKind != record.ExecServerFailure || !contains(ex.Result, "canceled") {
		t.Errorf("canceled call: %+v", ex)
	}
}

func TestCallNilArgsSendEmptyObject(t *testing.T) {
	c := mustConnect(t, nil, fakeServer("s", fakeTool{name: "echo"}))
	for _, args := range []string{"", "  ", "null"} {
		ex := c.Call(context.Background(), "echo", json.RawMessage(args), "")
		if ex.IsError || ex.Result != "args={}" {
			t.Errorf("args %q: %+v", args, ex)
		}
	}
	// The model's own bytes go to the server.
	ex := c.Call(context.Background(), "echo", json.RawMessage(`{"b":1.50,"a":2}`), "")
	if ex.Result != `args={"b":1.50,"a":2}` {
		t.Errorf("result = %q", ex.Result)
	}
}

func TestCallServerCrash(t *testing.T) {
	var after atomic.Int32
	var wire net.Conn // the server's end of the connection
	srv := newMCPServer(nil,
		fakeTool{name: "crash", handler: func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			wire.Close() // the server drops dead mid-call
			<-ctx.Done()
			return nil, ctx.Err()
		}},
		fakeTool{name: "ok", handler: counter(&after, echo)},
	)
	crashy := serversfile.Server{Name: "s", Dial: func(ctx context.Context) (mcp.Transport, error) {
		c1, c2 := net.Pipe()
		wire = c2
		if _, err := srv.Connect(ctx, &mcp.IOTransport{Reader: c2, Writer: c2}, nil); err != nil {
			return nil, err
		}
		return &mcp.IOTransport{Reader: c1, Writer: c1}, nil
	}}
	// With restarts off, a dead server stays dead (see restart_test.go for
	// restarts).
	c := mustConnect(t, &Options{CallTimeout: 5 * time.Second, MaxRestarts: -1}, crashy, fakeServer("t", fakeTool{name: "alive"}))
	ex := c.Call(context.Background(), "crash", nil, "")
	if ex.ErrorKind != record.ExecServerFailure {
		t.Fatalf("crash: %+v", ex)
	}
	start := time.Now()
	ex = c.Call(context.Background(), "ok", nil, "")
	if ex.ErrorKind != record.ExecServerFailure || !contains(ex.Result, `server "s" is not available`) || !contains(ex.Result, "restarts are off") {
		t.Errorf("call to the dead server: %+v", ex)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("call to a dead server took %v; want it to fail fast", d)
	}
	if after.Load() != 0 {
		t.Error("the dead server's tool ran")
	}
	// Other servers are unaffected.
	if ex := c.Call(context.Background(), "alive", nil, ""); ex.IsError {
		t.Errorf("other server: %+v", ex)
	}
}

func TestResultText(t *testing.T) {
	size := int64(1234)
	cases := []struct {
		name string
		res  *mcp.CallToolResult
		want string
	}{
		{"texts joined", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "a"}, &mcp.TextContent{Text: "b"}}}, "a\nb"},
		{"structured only", &mcp.CallToolResult{StructuredContent: map[string]any{"t": 21.5}}, `{"t":21.5}`},
		{"structured same as text", &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: "{\n  \"t\": 21.5, \"u\": \"C\"\n}"}},
			StructuredContent: map[string]any{"u": "C", "t": 21.5},
		}, "{\n  \"t\": 21.5, \"u\": \"C\"\n}"},
		{"structured differs", &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: "It is warm."}},
			StructuredContent: map[string]any{"t": 21.5},
		}, "It is warm.\n{\"t\":21.5}"},
		{"image and audio", &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.TextContent{Text: "chart:"},
			&mcp.ImageContent{MIMEType: "image/png", Data: make([]byte, 1234)},
			&mcp.AudioContent{MIMEType: "audio/wav", Data: make([]byte, 10)},
		}}, "chart:\n[image: image/png, 1234 bytes]\n[audio: audio/wav, 10 bytes]"},
		{"resource link", &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.ResourceLink{URI: "file:///srv/a.txt", Name: "a.txt", MIMEType: "text/plain", Size: &size},
		}}, "[resource link: file:///srv/a.txt, name a.txt, text/plain, 1234 bytes]"},
		{"embedded resources", &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///a.txt", MIMEType: "text/plain", Text: "hello"}},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///b.bin", Blob: []byte{1, 2, 3}}},
		}}, "[resource: file:///a.txt, text/plain, 5 bytes]\nhello\n[resource: file:///b.bin, unknown type, 3 bytes]"},
		{"empty", &mcp.CallToolResult{}, ""},
	}
	for _, tc := range cases {
		if got := resultText(tc.res); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

func TestResultsOverTheWire(t *testing.T) {
	// The same contents survive the SDK's encoding both ways.
	srv := newMCPServer(nil, fakeTool{name: "mixed", handler: func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{
			Content: []mcp.Content{
				&mcp.TextContent{Text: "see"},
				&mcp.ImageContent{MIMEType: "image/png", Data: make([]byte, 1234)},
				&mcp.ResourceLink{URI: "file:///x", MIMEType: "text/plain"},
			},
			StructuredContent: map[string]any{"n": 1},
		}, nil
	}}, fakeTool{name: "big", handler: func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return textResult(strings.Repeat("é", 100)), nil // 200 bytes
	}})
	c := mustConnect(t, nil, inMemory("s", srv))
	ex := c.Call(context.Background(), "mixed", nil, "")
	want := "see\n[image: image/png, 1234 bytes]\n[resource link: file:///x, text/plain]\n{\"n\":1}"
	if ex.Result != want {
		t.Errorf("mixed:\n got %q\nwant %q", ex.Result, want)
	}
	if ex = c.Call(context.Background(), "big", nil, ""); ex.Result != strings.Repeat("é", 100) {
		t.Errorf("big result cut under the default limit: %q", ex.Result)
	}
	c = mustConnect(t, &Options{MaxResultBytes: 51}, inMemory("s", srv))
	ex = c.Call(context.Background(), "big", nil, "")
	// 51 bytes would split a character; the cut backs off to 50.
	if want := strings.Repeat("é", 25) + "\n[... truncated 150 bytes]"; ex.Result != want {
		t.Errorf("big:\n got %q\nwant %q", ex.Result, want)
	}
}

func TestFailedServerSkipped(t *testing.T) {
	c := mustConnect(t, &Options{ConnectTimeout: 500 * time.Millisecond},
		fakeServer("good", fakeTool{name: "search"}),
		failingServer("down"),
		silentServer("mute"),
	)
	if got := exposedNames(c); !reflect.DeepEqual(got, []string{"search"}) {
		t.Errorf("exposed = %v", got)
	}
	failed := c.Failed()
	if len(failed) != 2 || failed[0].Name != "down" || failed[1].Name != "mute" {
		t.Fatalf("failed = %v", failed)
	}
	if !contains(failed[0].Error(), "no route to down") {
		t.Errorf("down: %v", failed[0])
	}
	if !contains(failed[1].Error(), "not connected within 500ms") {
		t.Errorf("mute: %v", failed[1])
	}
}

func TestRequireAll(t *testing.T) {
	before := settleGoroutines()
	srv := newMCPServer(nil, fakeTool{name: "search"})
	var sessions []*mcp.ServerSession
	good := serversfile.Server{Name: "good", Dial: func(ctx context.Context) (mcp.Transport, error) {
		ct, st := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(ctx, st, nil)
		sessions = append(sessions, ss)
		return ct, err
	}}
	_, err := Connect(context.Background(), &serversfile.Config{Servers: []serversfile.Server{good, failingServer("down"), failingServer("gone")}},
		&Options{RequireAll: true})
	if err == nil {
		t.Fatal("Connect succeeded with failed servers and RequireAll")
	}
	for _, want := range []string{`server "down": no route to down`, `server "gone": no route to gone`, "2 of 3"} {
		if !contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	// The server that did connect was closed.
	done := make(chan struct{})
	go func() { sessions[0].Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the connected server's session was not closed")
	}
	waitGoroutines(t, before)
}

func TestNoGoroutineLeaks(t *testing.T) {
	srv := newMCPServer(nil, fakeTool{name: "search"}, fakeTool{name: "hang", handler: func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}})
	t.Run("connect and close", func(t *testing.T) {
		before := settleGoroutines()
		for range 3 {
			c, err := Connect(context.Background(), &serversfile.Config{Servers: []serversfile.Server{inMemory("a", srv), inMemory("b", srv)}}, &Options{CallTimeout: 50 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			c.Call(context.Background(), "a__search", nil, "")
			c.Call(context.Background(), "b__hang", nil, "")
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
		}
		waitGoroutines(t, before)
	})
	t.Run("canceled connect", func(t *testing.T) {
		before := settleGoroutines()
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(100*time.Millisecond, cancel)
		_, err := Connect(ctx, &serversfile.Config{Servers: []serversfile.Server{inMemory("a", srv), silentServer("mute")}}, nil)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		waitGoroutines(t, before)
	})
	t.Run("connect timeout", func(t *testing.T) {
		before := settleGoroutines()
		_, err := Connect(context.Background(), &serversfile.Config{Servers: []serversfile.Server{silentServer("mute")}},
			&Options{ConnectTimeout: 100 * time.Millisecond, RequireAll: true})
		if err == nil || !contains(err.Error(), "not connected within 100ms") {
			t.Fatalf("err = %v", err)
		}
		waitGoroutines(t, before)
	})
}

func TestCloseThenCall(t *testing.T) {
	c, err := Connect(context.Background(), &serversfile.Config{Servers: []serversfile.Server{fakeServer("s", fakeTool{name: "x"})}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if ex := c.Call(context.Background(), "x", nil, ""); ex.ErrorKind != record.ExecServerFailure {
		t.Errorf("call after Close: %+v", ex)
	}
}

func TestConcurrentCalls(t *testing.T) {
	c := mustConnect(t, nil, fakeServer("a", fakeTool{name: "x"}), fakeServer("b", fakeTool{name: "y"}))
	done := make(chan record.Execution)
	for i := range 20 {
		go func() {
			name := []string{"x", "y"}[i%2]
			done <- c.Call(context.Background(), name, json.RawMessage(fmt.Sprintf(`{"i":%d}`, i)), "")
		}()
	}
	for range 20 {
		if ex := <-done; ex.IsError {
			t.Errorf("%+v", ex)
		}
	}
}

func TestValidatePartial(t *testing.T) {
	cat := mustConnect(t, nil, fakeServer("docs", fakeTool{name: "search", schema: `{"type":"object","required":["query"],"properties":{"query":{"type":"string"},"top_k":{"type":"integer"}},"additionalProperties":false}`}))
	for _, tc := range []struct {
		args    string
		partial bool // valid when missing properties are allowed
		full    bool
	}{
		{`{"top_k": 5}`, true, false},
		{`{"query": "dog", "top_k": 5}`, true, true},
		{`{"top_k": "five"}`, false, false},
		{`{"q": "dog"}`, false, false},
	} {
		if err := cat.ValidatePartial("search", json.RawMessage(tc.args)); (err == nil) != tc.partial {
			t.Errorf("ValidatePartial(%s) = %v", tc.args, err)
		}
		if err := cat.ValidateArgs("search", json.RawMessage(tc.args)); (err == nil) != tc.full {
			t.Errorf("ValidateArgs(%s) = %v", tc.args, err)
		}
	}
}

// TestValidationErrorsInJSON: whatever validates arguments (a suite's
// check, a call) words the values it names as JSON, not in Go's syntax.
func TestValidationErrorsInJSON(t *testing.T) {
	cat := mustConnect(t, nil, fakeServer("docs", fakeTool{name: "search", schema: `{"type":"object","required":["query"],"properties":{"query":{"type":"string"},"top_k":{"type":"integer"}},"additionalProperties":false}`}))
	for _, tt := range []struct{ args, want string }{
		{`{"query": {"regexp": "dog"}}`, `type: {"regexp":"dog"} has type "object", want "string"`},
		{`{"query": null}`, `type: null has type "null", want "string"`},
		{`{"query": "dog", "top_k": "5"}`, `type: "5" has type "string", want "integer"`},
	} {
		for name, err := range map[string]error{
			"ValidatePartial": cat.ValidatePartial("search", json.RawMessage(tt.args)),
			"ValidateArgs":    cat.ValidateArgs("search", json.RawMessage(tt.args)),
		} {
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s(%s) = %v, want ...%s", name, tt.args, err, tt.want)
			}
		}
		ex := cat.Call(context.Background(), "search", json.RawMessage(tt.args), "")
		if ex.ErrorKind != record.ExecInvalidArgs || !strings.Contains(ex.Error, tt.want) || !strings.Contains(ex.Result, tt.want) {
			t.Errorf("Call(%s) = %+v, want ...%s", tt.args, ex, tt.want)
		}
	}
}
