package bfclfake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/ollama/ollama/api"
	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/internal/bfcl"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/score"
)

// TestThroughTheFakeOllama asks the fake Ollama (a real HTTP server
// encoding with Ollama's api types) every fixture question with its tools as
// BFCL's handlers send them, and scores the calls that come back: the wire
// keeps what BFCL's rules need (10.0 arrives as 10, which a float
// parameter accepts).
func TestThroughTheFakeOllama(t *testing.T) {
	im, s := fixtures(t)
	script, err := Script(im)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(fakeollama.New(script, nil))
	defer srv.Close()
	opts := score.OptionsFor(&s.Defaults)
	for _, q := range im.Questions {
		lang := bfcl.Language(bfcl.CategoryOf(q.ID))
		var tools []map[string]any
		for _, f := range q.Functions {
			params, err := bfcl.Schema(f, lang)
			if err != nil {
				t.Fatal(err)
			}
			tools = append(tools, map[string]any{"type": "function", "function": map[string]any{
				"name": bfcl.ToolName(f.Name), "description": f.Description + bfcl.Hint(lang), "parameters": params}})
		}
		var msgs []map[string]string
		for _, m := range q.Messages {
			msgs = append(msgs, map[string]string{"role": m.Role, "content": m.Content})
		}
		body, _ := json.Marshal(map[string]any{"model": Good, "messages": msgs, "tools": tools, "stream": false})
		resp, err := http.Post(srv.URL+"/api/chat", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		var cr api.ChatResponse
		err = json.NewDecoder(resp.Body).Decode(&cr)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: HTTP %d, %v", q.ID, resp.StatusCode, err)
		}
		r := record.Response{Content: cr.Message.Content}
		for i, c := range cr.Message.ToolCalls {
			args, _ := json.Marshal(c.Function.Arguments)
			r.ToolCalls = append(r.ToolCalls, record.ToolCall{ID: fmt.Sprint(i), Index: i, Name: c.Function.Name, Arguments: args})
		}
		tr := &record.Transcript{NotExecuted: true, MaxRounds: 1, Answer: r.Content, Rounds: []record.Round{{Index: 1, Response: r}}}
		c := s.Case(q.ID)
		if sc := score.Score(tr, &c.Expect, opts); sc.Outcome != record.OutcomePass {
			t.Errorf("%s: %s (%s)", q.ID, sc.Outcome, sc.Detail)
		}
	}
}
