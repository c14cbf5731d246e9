package toolbox

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgrade/toolgrade/internal/mcpclient"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/score"
	"github.com/toolgrade/toolgrade/internal/serversfile"
	"github.com/toolgrade/toolgrade/internal/suite"
	"github.com/toolgrade/toolgrade/internal/toolschema"
)

// shipped is the decoy set of cases/decoys.
func shipped(t *testing.T) *Pool {
	t.Helper()
	tools, err := LoadDecoys(filepath.Join("..", "..", "cases", "decoys"), "")
	if err != nil {
		t.Fatal(err)
	}
	return NewPool(tools)
}

// docs connects a server with the docs server's tool names whose every
// tools/call is counted, so a test can tell that a decoy never reached it.
func docs(t *testing.T) (*mcpclient.Catalog, *atomic.Int32) {
	t.Helper()
	calls := &atomic.Int32{}
	srv := mcp.NewServer(&mcp.Implementation{Name: "docs", Version: "v0"}, nil)
	type args struct {
		Query string `json:"query"`
	}
	for _, name := range []string{"search", "list_documents", "get_document"} {
		mcp.AddTool(srv, &mcp.Tool{Name: name, Description: name + "."}, func(context.Context, *mcp.CallToolRequest, args) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
		})
	}
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/call" {
				calls.Add(1)
			}
			return next(ctx, method, req)
		}
	})
	cfg := &serversfile.Config{Path: "test", Dir: t.TempDir(), Servers: []serversfile.Server{{
		Name: "docs",
		Dial: func(ctx context.Context) (mcp.Transport, error) {
			st, ct := mcp.NewInMemoryTransports()
			ss, err := srv.Connect(context.WithoutCancel(ctx), st, nil)
			if err != nil {
				return nil, err
			}
			t.Cleanup(func() { ss.Close() })
			return ct, nil
		},
	}}}
	cat, err := mcpclient.Connect(t.Context(), cfg, &mcpclient.Options{RequireAll: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	return cat, calls
}

func catalogJSON(t *testing.T, tb *Decoyed) []byte {
	t.Helper()
	b, err := json.Marshal(tb.OllamaTools())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func offered(tb *Decoyed) []string {
	var out []string
	for _, x := range tb.OllamaTools() {
		out = append(out, x.Function.Name)
	}
	return out
}

func TestShippedSet(t *testing.T) {
	p := shipped(t)
	if p.Len() < 70 {
		t.Errorf("the shipped set has %d tools, want at least 70", p.Len())
	}
	if w := p.Warnings(); len(w) > 0 {
		t.Errorf("the shipped set has duplicate names: %v", w)
	}
	var all []string
	for _, x := range p.tools {
		all = append(all, x.Ollama.Function.Name)
	}
	for _, close := range []string{"search_web", "get_file", "list_files"} {
		if !slices.Contains(all, close) {
			t.Errorf("the shipped set lacks %s, a near name of a docs tool", close)
		}
	}
}

func TestDrawIsDeterministic(t *testing.T) {
	cat, _ := docs(t)
	pool := shipped(t)
	a, err := AddDecoys(cat, nil, pool, 30, 42)
	if err != nil {
		t.Fatal(err)
	}
	b, err := AddDecoys(cat, nil, shipped(t), 30, 42)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(catalogJSON(t, a), catalogJSON(t, b)) {
		t.Error("two draws with the same seed differ")
	}
	if n := len(a.OllamaTools()); n != 33 {
		t.Errorf("%d tools offered, want 3 real + 30 decoys", n)
	}
	if got := a.Decoys(); len(got) != 30 {
		t.Errorf("Decoys() = %d names", len(got))
	}

	// The real tools keep their order among the decoys.
	var real []string
	for _, n := range offered(a) {
		if !a.Decoy(n) {
			real = append(real, n)
		}
	}
	if want := cat.Names(); !slices.Equal(real, want) {
		t.Errorf("real tools in order %v, want %v", real, want)
	}

	// A smaller draw is the larger one less its later decoys: same tools,
	// same places.
	for _, n := range []int{0, 10, 29} {
		small, err := AddDecoys(cat, nil, pool, n, 42)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(small.Decoys(), filter(a.Decoys(), small.Decoy)) {
			t.Errorf("%d decoys are not among the 30's", n)
		}
		want := slices.DeleteFunc(offered(a), func(name string) bool { return a.Decoy(name) && !small.Decoy(name) })
		if got := offered(small); !slices.Equal(got, want) {
			t.Errorf("%d decoys: catalog %v, want the 30's less the rest: %v", n, got, want)
		}
	}
	firstTen, _ := AddDecoys(cat, nil, pool, 10, 42)
	for _, name := range firstTen.Decoys() {
		if !a.Decoy(name) {
			t.Errorf("decoy %s of 10 is not one of the 30", name)
		}
	}

	other, err := AddDecoys(cat, nil, pool, 30, 43)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(offered(other), offered(a)) {
		t.Error("another seed drew the same catalog")
	}
}

func filter(l []string, keep func(string) bool) []string {
	var out []string
	for _, s := range l {
		if keep(s) {
			out = append(out, s)
		}
	}
	return out
}

func TestDecoyIsNeverCalled(t *testing.T) {
	cat, calls := docs(t)
	pool := shipped(t)
	tb, err := AddDecoys(cat, nil, pool, pool.Len(), 1) // the whole pool: search_web is offered
	if err != nil {
		t.Fatal(err)
	}
	x := tb.Call(t.Context(), "search_web", json.RawMessage(`{"query":"dog"}`), "c1")
	if x.ErrorKind != record.ExecDecoy || !x.IsError || x.Result != "tool search_web is not available" {
		t.Errorf("decoy call = %+v", x)
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("the server saw %d calls for a decoy", n)
	}
	if x := tb.Call(t.Context(), "search", json.RawMessage(`{"query":"dog"}`), "c2"); x.IsError {
		t.Errorf("real call = %+v", x)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("the server saw %d calls, want the real one", n)
	}

	// Scored against the expectation of search, the decoy is named.
	e := &suite.Expect{Calls: []suite.ExpectedCall{{Tool: "search", Exposed: "search"}}, FirstOnly: true}
	tr := &record.Transcript{Rounds: []record.Round{{
		Response:   record.Response{ToolCalls: []record.ToolCall{{ID: "c1", Name: "search_web", Arguments: json.RawMessage(`{"query":"dog"}`)}}},
		Executions: []record.Execution{x0(tb)},
	}}, Answer: "I could not look it up."}
	s := score.Score(tr, e, score.Options{Tools: tb})
	if s.Outcome != record.OutcomeWrongTool || !strings.HasPrefix(s.Detail, "called decoy search_web") {
		t.Errorf("score = %s %q, want wrong_tool naming the decoy", s.Outcome, s.Detail)
	}
	// A trial that ran nothing is judged by the catalog alike.
	tr.NotExecuted, tr.Rounds[0].Executions = true, nil
	s = score.Score(tr, e, score.Options{Tools: tb})
	if s.Outcome != record.OutcomeWrongTool || !strings.HasPrefix(s.Detail, "called decoy search_web") {
		t.Errorf("score without execution = %s %q", s.Outcome, s.Detail)
	}
	if r, ok := tb.Resolve("search_web"); !ok || r != "search_web" {
		t.Errorf("Resolve(search_web) = %q, %v", r, ok)
	}
	if err := tb.ValidateArgs("search_web", json.RawMessage(`{}`)); err == nil {
		t.Error("a decoy's schema is not checked: its query is required")
	}
}

func x0(tb *Decoyed) record.Execution {
	return tb.Call(context.Background(), "search_web", json.RawMessage(`{"query":"dog"}`), "c1")
}

func TestCollisionsAreLeftOut(t *testing.T) {
	cat, _ := docs(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "d.json")
	if err := os.WriteFile(file, []byte(`{"tools": [
  {"name": "search", "description": "Search the web.", "inputSchema": {"type": "object"}},
  {"name": "get_file", "description": "Get a file.", "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}}}
]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	tools, err := LoadDecoys(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	tb, err := AddDecoys(cat, nil, NewPool(tools), 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := tb.Decoys(); !slices.Equal(got, []string{"get_file"}) {
		t.Errorf("decoys = %v", got)
	}
	if w := tb.Warnings(); len(w) != 1 || !strings.Contains(w[0], "search has the name of a real tool") {
		t.Errorf("warnings = %v", w)
	}
	if _, err := AddDecoys(cat, nil, NewPool(tools), 2, 0); err == nil || !strings.HasSuffix(err.Error(), "the pool has 1 usable tool") {
		t.Errorf("too many decoys: %v", err)
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct{ name, text, want string }{
		{"syntax.json", "{\"tools\": [\n  {\"name\": \"a\",}\n]}", "syntax.json:2:"},
		{"shape.json", `{"servers": {}}`, `shape.json:1:1: not a decoy file: expected {"tools": [...]}`},
		{"noname.json", "[\n  {\"description\": \"x\", \"inputSchema\": {}}\n]", `noname.json:2:3: tools[0]: a tool needs a name`},
		{"twice.json", "[\n  {\"name\": \"a\", \"inputSchema\": {}},\n  {\"name\": \"a\", \"inputSchema\": {}}\n]", `twice.json:3:12: tools[1].name: tool "a" is listed twice`},
		{"noschema.json", "[\n  {\"name\": \"a\"}\n]", `noschema.json:2:3: tools[0].inputSchema: tool "a" needs an inputSchema object`},
	} {
		path := filepath.Join(dir, tt.name)
		if err := os.WriteFile(path, []byte(tt.text), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := loadDecoyFile(path, "")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
	}
}

// TestDecoysAreConverted checks that decoys go through the servers'
// conversion: a oneOf is rewritten as for a server's tool.
func TestDecoysAreConverted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.json")
	if err := os.WriteFile(path, []byte(`[{"name": "pick", "inputSchema": {"type": "object", "properties": {
  "z": {"type": "string"}, "a": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}}}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	tools, err := loadDecoyFile(path, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(tools[0].Rewrites) != 1 || tools[0].Rewrites[0].From != "oneOf" {
		t.Errorf("rewrites = %+v", tools[0].Rewrites)
	}
	b, _ := json.Marshal(tools[0].Ollama)
	if i, j := bytes.Index(b, []byte(`"z"`)), bytes.Index(b, []byte(`"a"`)); i < 0 || j < i {
		t.Errorf("properties not in the file's order: %s", b)
	}
}

// Schema hints reach decoys too: their hidden constraints are the decoy's
// own, a real tool's the inner catalog's.
func TestHiddenOfCoversDecoys(t *testing.T) {
	cat, _ := docs(t)
	pool := shipped(t)
	tb, err := AddDecoys(cat, nil, pool, pool.Len(), 0)
	if err != nil {
		t.Fatal(err)
	}
	asked := ""
	hidden := tb.HiddenOf(func(name string) []toolschema.Hidden { asked = name; return nil })
	if h := hidden("create_event"); len(h) == 0 {
		t.Error("create_event's formats are not hidden constraints")
	}
	if hidden("search"); asked != "search" {
		t.Errorf("a real tool's constraints were not asked of the inner catalog (%q)", asked)
	}
}
