package proxy_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/fakes/rig"
	"github.com/toolgrade/toolgrade/internal/llm"
	"github.com/toolgrade/toolgrade/internal/proxy"
)

// handlerTransport answers the loop's requests with a handler in the same
// process: the chats of a fuzz run need no socket.
type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(r *http.Request) (resp *http.Response, err error) {
	rec := httptest.NewRecorder()
	defer func() {
		if v := recover(); v != nil {
			resp, err = nil, fmt.Errorf("the handler panicked: %v", v)
		}
	}()
	t.h.ServeHTTP(rec, r)
	return rec.Result(), nil
}

// fuzzProxy is the proxy over the demo script's fake Ollama and the docs
// fake MCP server, with the chats sent to the fake in process and every
// other request (a chat without messages) to it on a loopback port.
func fuzzProxy(f *testing.F) *proxy.Server {
	script, err := fakeollama.DemoScript()
	if err != nil {
		f.Fatal(err)
	}
	fake := fakeollama.New(script, &fakeollama.Options{Seed: 1, DontRecord: true})
	up := httptest.NewServer(fake)
	f.Cleanup(up.Close)
	base, _ := url.Parse(up.URL)
	srv, err := proxy.New(proxy.Options{
		Upstream:  base,
		Chat:      &llm.StreamChatter{Base: base, HTTP: &http.Client{Transport: handlerTransport{fake}}},
		Tools:     rig.Catalog(f, nil, "docs"),
		MaxRounds: 3,
	})
	if err != nil {
		f.Fatal(err)
	}
	return srv
}

// addChatSeeds seeds f with the chat requests of the captures (the
// question, or the messages of a later round, to the same model) and
// requests at the edges of what /api/chat accepts.
func addChatSeeds(f *testing.F) {
	caps, err := fakeollama.ReadCaptures()
	if err != nil {
		f.Fatal(err)
	}
	for _, c := range caps {
		if c.Question == "" {
			continue
		}
		msgs := c.RequestMessages
		if len(msgs) == 0 {
			msgs = userMsg(c.Question)
		}
		body, err := json.Marshal(api.ChatRequest{Model: c.Model, Messages: msgs, Stream: c.Stream})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(body, "messages")
	}
	for _, s := range []string{
		"",
		"{}",
		"null",
		`{"model":"scripted-good","messages":[]}`,
		`{"model":"scripted-good","messages":[],"keep_alive":0}`,
		`{"model":"nope","messages":[{"role":"user","content":"hi"}]}`,
		`{"model":"scripted-good","messages":[{"role":"system","content":"s"},{"role":"user","content":"Can I bring my dog?"}],"tools":[{"type":"function","function":{"name":"search","parameters":{"type":"object"}}}],"stream":false}`,
		`{"model":"scripted-think","think":true,"format":"json","options":{"num_ctx":1},"messages":[{"role":"user","content":"Can I bring my dog?"}]}`,
		`{"model":"scripted-good","think":"high","messages":[{"role":"tool","content":"x"}]}`,
		`{"model":"scripted-good","messages":[{"role":"user","content":"Check the hours and the menu."}],"logprobs":true,"top_logprobs":99}`,
	} {
		f.Add([]byte(s), "")
	}
}

// FuzzChatRequest sends any body, with any X-Toolgrade-Include, to the
// proxy's /api/chat: it must answer without panicking, with 200 or an
// error status, an error as Ollama's {"error": "..."} body, and a 200
// stream with exactly one done line, its last, unless an {"error": ...}
// line cut it short.
func FuzzChatRequest(f *testing.F) {
	addChatSeeds(f)
	srv := fuzzProxy(f)
	f.Fuzz(func(t *testing.T, body []byte, include string) {
		r := httptest.NewRequest(http.MethodPost, "/api/chat", bytes.NewReader(body))
		r.Host = "127.0.0.1:11434" // the guard lets in only loopback names
		r.Header.Set("X-Toolgrade-Include", include)
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, r)
		out := w.Body.String()
		if w.Code != http.StatusOK {
			var e struct{ Error string }
			if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil || e.Error == "" || w.Code < 400 || w.Code > 599 {
				t.Fatalf("HTTP %d with %q, not an error status and {\"error\": \"...\"}", w.Code, out)
			}
			return
		}
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if w.Header().Get("Content-Type") != "application/x-ndjson" && len(lines) != 1 {
			t.Fatalf("a JSON answer of %d lines: %q", len(lines), out)
		}
		for i, line := range lines {
			var c struct {
				Done  bool
				Error string
			}
			if err := json.Unmarshal([]byte(line), &c); err != nil {
				t.Fatalf("line %d of %q is not JSON: %v", i+1, out, err)
			}
			last := i == len(lines)-1
			if c.Error != "" && !last || c.Error == "" && c.Done != last {
				t.Fatalf("answer %q does not end with its one done line", out)
			}
		}
	})
}
