package proxy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/fakes/rig"
	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/llm"
	"github.com/toolgrade/toolgrade/internal/proxy"
	"github.com/toolgrade/toolgrade/internal/record"
)

// testRules are the answers these tests need beyond the demo script's.
func testRules() []fakeollama.Rule {
	user := func(s string) *fakeollama.Matcher { return &fakeollama.Matcher{Contains: s} }
	any := &fakeollama.Matcher{Regex: "."}
	calls := func(c ...fakeollama.ToolCall) fakeollama.Reply { return fakeollama.Reply{ToolCalls: c} }
	return []fakeollama.Rule{
		{User: user("time and the dog"), Reply: calls(fakeollama.Call("search", "query", "dog"), fakeollama.Call("clock", "zone", "UTC"))},
		{User: user("what time"), Reply: calls(fakeollama.Call("clock", "zone", "UTC"))},
		{User: user("please fail"), ToolResult: any, Reply: fakeollama.Reply{Content: "The tool failed, sorry.", Chunks: 2}},
		{User: user("please fail"), Reply: calls(fakeollama.Call("fail", "reason", "boom"))},
		{User: user("hang forever"), Reply: calls(fakeollama.Call("hang"))},
		{User: user("stall now"), Fault: fakeollama.FaultStall, Reply: fakeollama.Reply{Content: "one two three", Chunks: 3}},
		{User: user("break mid-stream"), ToolResult: any, Fault: fakeollama.FaultErrorMidStream, Reply: fakeollama.Reply{Content: "one two three", Chunks: 3}},
		{User: user("break mid-stream"), Reply: fakeollama.Reply{Thinking: "Let me look.", ToolCalls: []fakeollama.ToolCall{fakeollama.Call("search", "query", "x")}}},
	}
}

// env is a fake Ollama behind the proxy, fake MCP servers in-process, and
// the official Ollama client pointed at the proxy.
type env struct {
	fake     *fakeollama.Server
	upstream *url.URL
	inflight *atomic.Int32 // requests the fake is serving
	// gate holds the second line of /api/generate until the client has
	// the first, which it can only have if the proxy flushed it.
	gate   chan struct{}
	tools  *countingTools
	proxy  *proxy.Server
	url    *url.URL
	client *api.Client

	mu       sync.Mutex
	recorded []*record.Transcript
	logs     bytes.Buffer
}

func newEnv(t testing.TB, o *fakeollama.Options) *env {
	t.Helper()
	return newEnvWith(t, o, nil)
}

// newEnvWith is newEnv with the proxy's options changed by set.
func newEnvWith(t testing.TB, o *fakeollama.Options, set func(*proxy.Options)) *env {
	t.Helper()
	script, err := fakeollama.DemoScript()
	if err != nil {
		t.Fatal(err)
	}
	script.Rules = append(testRules(), script.Rules...)
	if o == nil {
		o = &fakeollama.Options{Latency: 0, Seed: 1}
	}
	e := &env{fake: fakeollama.New(script, o), inflight: new(atomic.Int32), gate: make(chan struct{})}
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.inflight.Add(1)
		defer e.inflight.Add(-1)
		if r.URL.Path == "/api/generate" {
			e.generate(w, r)
			return
		}
		e.fake.ServeHTTP(w, r)
	}))
	t.Cleanup(up.Close)
	e.upstream, _ = url.Parse(up.URL)
	cat := rig.Catalog(t, nil, "docs", "faulty")
	e.tools = &countingTools{Toolbox: cat}
	po := proxy.Options{
		Upstream: e.upstream,
		Chat:     &llm.IdleChatter{Next: &llm.StreamChatter{Base: e.upstream}, Idle: time.Minute},
		Tools:    e.tools,
		Record: func(t *record.Transcript) {
			e.mu.Lock()
			e.recorded = append(e.recorded, t)
			e.mu.Unlock()
		},
		MaxRounds:   3,
		Log:         newLogger(e),
		CORSOrigins: []string{"http://app.example", "https://*.example.com"},
	}
	if set != nil {
		set(&po)
	}
	srv, err := proxy.New(po)
	if err != nil {
		t.Fatal(err)
	}
	e.proxy = srv
	ps := httptest.NewServer(srv)
	t.Cleanup(ps.Close)
	e.url, _ = url.Parse(ps.URL)
	e.client = api.NewClient(e.url, http.DefaultClient)
	return e
}

// generate streams two /api/generate lines as Ollama does (the fake has
// no /api/generate), the second only once the gate opens.
func (e *env) generate(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Write([]byte(`{"model":"scripted-good","created_at":"2026-01-01T00:00:00Z","response":"Hello","done":false}` + "\n"))
	http.NewResponseController(w).Flush()
	select {
	case <-e.gate:
	case <-r.Context().Done():
		return
	}
	w.Write([]byte(`{"model":"scripted-good","created_at":"2026-01-01T00:00:01Z","response":"","done":true,"done_reason":"stop","eval_count":2}` + "\n"))
}

// rec returns the transcripts recorded so far.
func (e *env) rec() []*record.Transcript {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]*record.Transcript(nil), e.recorded...)
}

// countingTools counts the tool calls in flight.
type countingTools struct {
	bridge.Toolbox
	running atomic.Int32
	calls   atomic.Int32
}

func (c *countingTools) Call(ctx context.Context, name string, args json.RawMessage, id string) record.Execution {
	c.running.Add(1)
	c.calls.Add(1)
	defer c.running.Add(-1)
	return c.Toolbox.Call(ctx, name, args, id)
}

// chat runs one chat through the official client and gathers its chunks.
func (e *env) chat(t *testing.T, req *api.ChatRequest) ([]api.ChatResponse, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a deadlock guard only
	defer cancel()
	var out []api.ChatResponse
	err := e.client.Chat(ctx, req, func(r api.ChatResponse) error {
		out = append(out, r)
		return nil
	})
	return out, err
}

func userMsg(q string) []api.Message { return []api.Message{{Role: "user", Content: q}} }

func boolPtr(b bool) *bool { return &b }

// post sends body to path on the proxy (or on the fake with direct) and
// returns the response with its body read.
func post(t testing.TB, base *url.URL, path, body string) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.Post(base.JoinPath(path).String(), "application/json", bytes.NewBufferString(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	return resp, b.Bytes()
}

// lines splits an NDJSON body.
func lines(b []byte) []string {
	var out []string
	for _, l := range bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n")) {
		out = append(out, string(l))
	}
	return out
}

// keys returns the top-level keys of a JSON object in order, with the keys
// of "message" as "message.KEY".
func keys(t testing.TB, line string) []string {
	t.Helper()
	var out []string
	var walk func(prefix string, raw json.RawMessage)
	walk = func(prefix string, raw json.RawMessage) {
		dec := json.NewDecoder(bytes.NewReader(raw))
		if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
			t.Fatalf("not an object: %s", raw)
		}
		for dec.More() {
			k, _ := dec.Token()
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				t.Fatal(err)
			}
			out = append(out, prefix+k.(string))
			if k == "message" {
				walk("message.", v)
			}
		}
	}
	walk("", json.RawMessage(line))
	return out
}

func newRecorder() *httptest.ResponseRecorder { return httptest.NewRecorder() }
