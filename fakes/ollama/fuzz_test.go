package fakeollama

import (
	"bytes"
	"encoding/json"
	"errors"
	"go/ast"
	goparser "go/parser"
	"go/token"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
)

// addScriptSeeds seeds f with the scripts of the captures, of the docs and
// of this package's tests (every string literal that holds models:).
func addScriptSeeds(f *testing.F) {
	data, err := os.ReadFile("testdata/captures.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data, "Can I bring my dog?")
	doc, err := os.ReadFile("../../docs/fake-ollama.md")
	if err != nil {
		f.Fatal(err)
	}
	for _, m := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllSubmatch(doc, -1) {
		f.Add(m[1], "is my dog welcome? it is broken")
	}
	fset := token.NewFileSet()
	file, err := goparser.ParseFile(fset, "script_test.go", nil, 0)
	if err != nil {
		f.Fatal(err)
	}
	ast.Inspect(file, func(n ast.Node) bool {
		if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING && strings.Contains(lit.Value, "models:") {
			if s, err := strconv.Unquote(lit.Value); err == nil {
				f.Add([]byte(s), "can I bring my dog")
			}
		}
		return true
	})
}

// FuzzParseScript checks that no script makes ParseScript panic, that its
// errors name the file, and that the server New makes of a script it
// accepts answers a chat to each of its models, streamed and not, as
// Ollama does: a stream of chunks with at most one done line, last; one
// done object; or an {"error": ...} body with an error status. Only the
// faults a script asks for may break those shapes.
func FuzzParseScript(f *testing.F) {
	addScriptSeeds(f)
	tools := loadTools(f, "tools.json")
	f.Fuzz(func(t *testing.T, data []byte, question string) {
		s, err := ParseScript(data, "fuzz.yaml")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.yaml:") {
				t.Fatalf("error does not name fuzz.yaml: %v", err)
			}
			return
		}
		faults := map[Fault]bool{}
		for i := range s.Rules {
			faults[s.Rules[i].Fault] = true
			if s.Rules[i].Fault == FaultStall {
				// A stall waits for the client to give up, which a
				// recorder never does.
				s.Rules[i].Fault = FaultNone
			}
		}
		srv := New(s, nil)
		call := api.ToolCall{Function: api.ToolCallFunction{Name: "search"}}
		round2 := []api.Message{{Role: "user", Content: question}, {Role: "assistant", ToolCalls: []api.ToolCall{call}}, {Role: "tool", Content: question}}
		for i, m := range s.Models[:min(len(s.Models), 3)] {
			stream := i%2 == 0
			for _, msgs := range [][]api.Message{user(question), round2} {
				req := &api.ChatRequest{Model: m.Name, Messages: msgs, Tools: tools, Stream: &stream}
				checkFuzzAnswer(t, srv, req, faults)
				stream = !stream
			}
		}
	})
}

// checkFuzzAnswer sends req to srv and checks the shape of its answer.
func checkFuzzAnswer(t *testing.T, srv *Server, req *api.ChatRequest, faults map[Fault]bool) {
	t.Helper()
	body, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	if dropped := serve(srv, rec, httptest.NewRequest(http.MethodPost, "/api/chat", bytes.NewReader(body))); dropped {
		if !faults[FaultDrop] {
			t.Fatal("the connection was dropped, yet no rule has fault drop")
		}
		return
	}
	out := rec.Body.String()
	if rec.Code != http.StatusOK {
		var e struct{ Error string }
		if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Error == "" || rec.Code < 400 {
			t.Fatalf("HTTP %d with %q, not an error status and {\"error\": ...}", rec.Code, out)
		}
		return
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	for i, line := range lines {
		var c struct {
			Done  bool
			Error string
		}
		err := json.Unmarshal([]byte(line), &c)
		last := i == len(lines)-1
		switch {
		case err != nil && !(last && faults[FaultInvalidJSON]):
			t.Fatalf("line %d of %q is not JSON: %v", i+1, out, err)
		case c.Error != "" && !(last && faults[FaultErrorMidStream]):
			t.Fatalf("line %d of %q is an error", i+1, out)
		case c.Done != last && err == nil && c.Error == "":
			t.Fatalf("answer %q does not end with its one done line", out)
		}
	}
	if !*req.Stream && len(lines) != 1 {
		t.Fatalf("stream:false answered %d lines: %q", len(lines), out)
	}
}

// serve runs one request through srv as net/http would, reporting whether
// the handler cut the connection (http.ErrAbortHandler, which net/http
// recovers).
func serve(srv *Server, w http.ResponseWriter, r *http.Request) (dropped bool) {
	defer func() {
		if v := recover(); v != nil {
			if err, ok := v.(error); !ok || !errors.Is(err, http.ErrAbortHandler) {
				panic(v)
			}
			dropped = true
		}
	}()
	srv.ServeHTTP(w, r)
	return false
}
