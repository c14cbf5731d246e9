package fakeollama

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
)

// harness is a fake server behind httptest with a real api.Client whose
// transport keeps a copy of the last response.
type harness struct {
	srv    *Server
	ts     *httptest.Server
	client *api.Client
	tee    *teeTransport
}

func newHarness(t *testing.T, s *Script, o *Options) *harness {
	t.Helper()
	srv := New(s, o)
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	base, err := url.Parse(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	tee := &teeTransport{next: ts.Client().Transport}
	return &harness{
		srv:    srv,
		ts:     ts,
		client: api.NewClient(base, &http.Client{Transport: tee}),
		tee:    tee,
	}
}

func demoHarness(t *testing.T, o *Options) *harness {
	t.Helper()
	s, err := LoadScript("testdata/captures.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return newHarness(t, s, o)
}

// teeTransport records the status and the body (as far as it was read) of
// the last response.
type teeTransport struct {
	next   http.RoundTripper
	mu     sync.Mutex
	status int
	body   *bytes.Buffer
}

func (tt *teeTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := tt.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	buf := &bytes.Buffer{}
	tt.mu.Lock()
	tt.status, tt.body = resp.StatusCode, buf
	tt.mu.Unlock()
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.TeeReader(resp.Body, &lockedWriter{mu: &tt.mu, w: buf}), resp.Body}
	return resp, nil
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// last returns the last response's status and body lines.
func (tt *teeTransport) last() (int, []string) {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	if tt.body == nil {
		return 0, nil
	}
	return tt.status, splitLines(tt.body.String())
}

func splitLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// exchange is one chat request as the client and the wire saw it.
type exchange struct {
	status int
	lines  []string
	resps  []api.ChatResponse
	err    error
}

func (h *harness) chat(t *testing.T, req *api.ChatRequest) exchange {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var ex exchange
	ex.err = h.client.Chat(ctx, req, func(r api.ChatResponse) error {
		ex.resps = append(ex.resps, r)
		return nil
	})
	ex.status, ex.lines = h.tee.last()
	return ex
}

// post sends a raw JSON body and returns the status and body.
func (h *harness) post(t *testing.T, path, body string) (int, string) {
	t.Helper()
	resp, err := h.ts.Client().Post(h.ts.URL+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(data)
}

// get sends a GET and returns the status, content type and body.
func (h *harness) get(t *testing.T, path string) (int, string, string) {
	t.Helper()
	resp, err := h.ts.Client().Get(h.ts.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(data)
}

// shape describes a JSON value's structure without its values: objects by
// their sorted keys and the shapes under them, arrays by their elements,
// scalars by their kind.
func shape(t *testing.T, raw string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		t.Fatalf("not JSON: %q: %v", raw, err)
	}
	return shapeOf(v)
}

func shapeOf(v any) string {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + ":" + shapeOf(v[k])
		}
		return "{" + strings.Join(parts, ",") + "}"
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = shapeOf(e)
		}
		return "[" + strings.Join(parts, ",") + "]"
	case string:
		return "s"
	case float64:
		return "n"
	case bool:
		return "b"
	default:
		return "null"
	}
}

// capture is one exchange recorded from a real Ollama 0.17.4.
type capture = Capture

func loadCaptures(t *testing.T) []capture {
	t.Helper()
	out, err := ReadCaptures()
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 100 {
		t.Fatalf("only %d captures", len(out))
	}
	return out
}

func loadTools(t testing.TB, file string) api.Tools {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(CapturesDir, file))
	if err != nil {
		t.Fatalf("the tool list of the captures is missing: %v", err)
	}
	var tools api.Tools
	if err := json.Unmarshal(data, &tools); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return tools
}

func ptr[T any](v T) *T { return &v }

func user(content string) []api.Message {
	return []api.Message{{Role: "user", Content: content}}
}

// argsJSON is a call's arguments as a canonical JSON object (keys sorted),
// for comparing calls without caring about key order.
func argsJSON(c api.ToolCall) string {
	data, _ := json.Marshal(c.Function.Arguments.ToMap())
	return string(data)
}

func describeCalls(calls []api.ToolCall) string {
	parts := make([]string, len(calls))
	for i, c := range calls {
		parts[i] = fmt.Sprintf("%d:%s%s", c.Function.Index, c.Function.Name, argsJSON(c))
	}
	return strings.Join(parts, " ")
}
