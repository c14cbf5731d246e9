package proxy_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/internal/llm"
	"github.com/toolgrade/toolgrade/internal/proxy"
)

type envWriter struct{ e *env }

func (w envWriter) Write(b []byte) (int, error) {
	w.e.mu.Lock()
	defer w.e.mu.Unlock()
	return w.e.logs.Write(b)
}

func newLogger(e *env) *slog.Logger { return slog.New(slog.NewJSONHandler(envWriter{e}, nil)) }

func content(chunks []api.ChatResponse) (content, thinking string) {
	for _, c := range chunks {
		content += c.Message.Content
		thinking += c.Message.Thinking
	}
	return
}

// doneLines checks that exactly the last chunk is done, and returns it.
func doneLine(t *testing.T, chunks []api.ChatResponse) api.ChatResponse {
	t.Helper()
	for i, c := range chunks {
		if c.Done != (i == len(chunks)-1) {
			t.Fatalf("chunk %d of %d: done %v", i+1, len(chunks), c.Done)
		}
	}
	return chunks[len(chunks)-1]
}

func TestChatStreamsEveryRoundAndOneDoneLine(t *testing.T) {
	e := newEnv(t, nil)
	chunks, err := e.chat(t, &api.ChatRequest{Model: "scripted-good", Messages: userMsg("Can I bring my dog?")})
	if err != nil {
		t.Fatal(err)
	}
	done := doneLine(t, chunks)
	if c, _ := content(chunks); c != "Yes. Dogs are welcome on the terrace." {
		t.Errorf("content %q", c)
	}
	for _, c := range chunks {
		if len(c.Message.ToolCalls) != 0 {
			t.Errorf("an MCP call reached the client: %+v", c.Message.ToolCalls)
		}
	}
	if e.tools.calls.Load() != 1 {
		t.Errorf("%d tool calls ran", e.tools.calls.Load())
	}
	// The done line's metrics are sums over both rounds.
	var sumEval, sumPrompt int
	for _, r := range e.rec()[0].Rounds {
		sumEval += r.Metrics.EvalCount
		sumPrompt += r.Metrics.PromptEvalCount
	}
	if len(e.rec()[0].Rounds) != 2 || done.EvalCount != sumEval || done.PromptEvalCount != sumPrompt || done.DoneReason != "stop" {
		t.Errorf("done %+v; rounds %+v", done, e.rec()[0].Rounds)
	}
	// The log line says what happened.
	var logLine map[string]any
	if err := json.Unmarshal([]byte(strings.TrimSpace(e.logs.String())), &logLine); err != nil {
		t.Fatalf("log %q: %v", e.logs.String(), err)
	}
	if logLine["method"] != "POST" || logLine["path"] != "/api/chat" || logLine["status"] != 200.0 || logLine["rounds"] != 2.0 || logLine["tool_calls"] != 1.0 {
		t.Errorf("log line %v", logLine)
	}
}

func TestChatWithoutStreamingIsOneObject(t *testing.T) {
	e := newEnv(t, nil)
	chunks, err := e.chat(t, &api.ChatRequest{Model: "scripted-think", Stream: boolPtr(false), Messages: userMsg("Can I bring my dog?")})
	if err != nil {
		t.Fatal(err)
	}
	if len(chunks) != 1 || !chunks[0].Done {
		t.Fatalf("%d responses: %+v", len(chunks), chunks)
	}
	m := chunks[0].Message
	if m.Content != "Yes. Dogs are welcome on the terrace." || m.Thinking != "The user asks about dogs." || len(m.ToolCalls) != 0 || m.Role != "assistant" {
		t.Errorf("message %+v", m)
	}
	resp, body := post(t, e.url, "/api/chat", `{"model":"scripted-good","stream":false,"messages":[{"role":"user","content":"Can I bring my dog?"}]}`)
	if resp.Header.Get("Content-Type") != "application/json; charset=utf-8" || resp.Header.Get("X-Toolgrade-Rounds") != "2" || resp.Header.Get("X-Toolgrade-Tool-Calls") != "1" {
		t.Errorf("headers %v", resp.Header)
	}
	if n := strings.Count(string(body), "\n"); n != 0 {
		t.Errorf("body of %d lines: %s", n+1, body)
	}
}

func TestThinkingStreamsThrough(t *testing.T) {
	e := newEnv(t, nil)
	chunks, err := e.chat(t, &api.ChatRequest{Model: "scripted-think", Messages: userMsg("Can I bring my dog?")})
	if err != nil {
		t.Fatal(err)
	}
	doneLine(t, chunks)
	c, th := content(chunks)
	if th != "The user asks about dogs." || c != "Yes. Dogs are welcome on the terrace." {
		t.Errorf("thinking %q, content %q", th, c)
	}
	// Thinking comes first, as it came.
	if chunks[0].Message.Thinking == "" {
		t.Errorf("first chunk %+v", chunks[0])
	}
	// think:false is passed on: no thinking at all.
	chunks, err = e.chat(t, &api.ChatRequest{Model: "scripted-think", Think: &api.ThinkValue{Value: false}, Messages: userMsg("Can I bring my dog?")})
	if _, th := content(chunks); err != nil || th != "" {
		t.Errorf("think:false: %q, %v", th, err)
	}
}

func TestAClientToolIsReturnedUnexecuted(t *testing.T) {
	e := newEnv(t, nil)
	clock := api.Tool{Type: "function", Function: api.ToolFunction{Name: "clock", Description: "the time"}}
	for _, stream := range []bool{true, false} {
		chunks, err := e.chat(t, &api.ChatRequest{Model: "scripted-good", Stream: &stream, Tools: api.Tools{clock}, Messages: userMsg("what time is it?")})
		if err != nil {
			t.Fatal(err)
		}
		done := doneLine(t, chunks)
		var calls []api.ToolCall
		for _, c := range chunks {
			calls = append(calls, c.Message.ToolCalls...)
		}
		if len(calls) != 1 || calls[0].Function.Name != "clock" || calls[0].ID == "" || done.DoneReason != "stop" {
			t.Errorf("stream %v: calls %+v, done %+v", stream, calls, done)
		}
	}
	if e.tools.calls.Load() != 0 {
		t.Errorf("%d tool calls ran", e.tools.calls.Load())
	}
	reqs := e.fake.Requests()
	if n := len(reqs[0].Chat.Tools); n != 10 || reqs[0].Chat.Tools[n-1].Function.Name != "clock" {
		t.Errorf("offered %d tools", n)
	}
}

func TestTheRoundLimitEndsWithARequestWithoutTools(t *testing.T) {
	e := newEnv(t, nil)
	chunks, err := e.chat(t, &api.ChatRequest{Model: "scripted-weak", Messages: userMsg("Can I pay by card?")})
	if err != nil {
		t.Fatal(err)
	}
	doneLine(t, chunks)
	tr := e.rec()[0]
	if !tr.RoundLimitHit || len(tr.Rounds) != 4 || e.tools.calls.Load() != 3 {
		t.Fatalf("limit hit %v, %d rounds, %d calls", tr.RoundLimitHit, len(tr.Rounds), e.tools.calls.Load())
	}
	reqs := e.fake.Requests()
	if last := reqs[len(reqs)-1].Chat; len(last.Tools) != 0 {
		t.Errorf("the last request offered %d tools", len(last.Tools))
	}
}

func TestAFailingToolIsAResultTheModelSees(t *testing.T) {
	e := newEnv(t, nil)
	chunks, err := e.chat(t, &api.ChatRequest{Model: "scripted-good", Messages: userMsg("please fail")})
	if err != nil {
		t.Fatal(err)
	}
	doneLine(t, chunks)
	if c, _ := content(chunks); c != "The tool failed, sorry." {
		t.Errorf("content %q", c)
	}
	ex := e.rec()[0].Executions()
	if len(ex) != 1 || !ex[0].IsError || !strings.Contains(ex[0].Result, "boom") {
		t.Errorf("executions %+v", ex)
	}
}

func TestOptInToolRoundMessages(t *testing.T) {
	e := newEnv(t, nil)
	req, _ := http.NewRequest("POST", e.url.JoinPath("/api/chat").String(),
		strings.NewReader(`{"model":"scripted-good","messages":[{"role":"user","content":"Can I bring my dog?"}]}`))
	req.Header.Set("X-Toolgrade-Include", "messages")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var body strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		body.WriteString(string(buf[:n]))
		if err != nil {
			break
		}
	}
	resp.Body.Close()
	ls := lines([]byte(body.String()))
	var last struct {
		Done      bool
		Toolgrade proxy.Extra
	}
	if err := json.Unmarshal([]byte(ls[len(ls)-1]), &last); err != nil {
		t.Fatal(err)
	}
	x := last.Toolgrade
	if !last.Done || x.Rounds != 2 || x.ToolCalls != 1 || len(x.Messages) != 2 || x.Messages[0].Role != "assistant" ||
		x.Messages[0].ToolCalls[0].Function.Name != "search" || x.Messages[1].Role != "tool" || x.Messages[1].ToolCallID != x.Messages[0].ToolCalls[0].ID {
		t.Errorf("extra %+v", x)
	}
	// The counts also come as trailers.
	if resp.Trailer.Get("X-Toolgrade-Rounds") != "2" || resp.Trailer.Get("X-Toolgrade-Tool-Calls") != "1" {
		t.Errorf("trailers %v", resp.Trailer)
	}
	// Without the header the final line has no such field.
	_, plain := post(t, e.url, "/api/chat", `{"model":"scripted-good","messages":[{"role":"user","content":"Can I bring my dog?"}]}`)
	if strings.Contains(string(plain), "toolgrade") {
		t.Errorf("unasked extra: %s", plain)
	}
}

func TestErrorStatusesPassThroughUnchanged(t *testing.T) {
	e := newEnv(t, nil)
	for _, tc := range []struct{ name, body string }{
		{"unknown model", `{"model":"nope","messages":[{"role":"user","content":"hi"}]}`},
		{"model without tools", `{"model":"scripted-notools","messages":[{"role":"user","content":"hi"}]}`},
		{"think on a model that cannot", `{"model":"scripted-good","think":true,"messages":[{"role":"user","content":"hi"}]}`},
	} {
		// Ollama is asked what the proxy asks it: the request with the tools added.
		got, gotBody := post(t, e.url, "/api/chat", tc.body)
		direct := directWithTools(t, e, tc.body)
		if got.StatusCode != direct.status || string(gotBody) != direct.body || got.Header.Get("Content-Type") != direct.contentType {
			t.Errorf("%s: proxy %d %q %q; Ollama %d %q %q", tc.name, got.StatusCode, gotBody, got.Header.Get("Content-Type"), direct.status, direct.body, direct.contentType)
		}
		_, err := e.chat(t, &api.ChatRequest{Model: "nope", Messages: userMsg("hi")})
		var se api.StatusError
		if !errors.As(err, &se) || se.StatusCode != 404 {
			t.Errorf("client error %v", err)
		}
	}
}

type directAnswer struct {
	status            int
	body, contentType string
}

// directWithTools sends body to the fake with the proxy's tools added, as
// the proxy forwards it.
func directWithTools(t *testing.T, e *env, body string) directAnswer {
	var req map[string]any
	json.Unmarshal([]byte(body), &req)
	req["tools"] = e.tools.OllamaTools()
	b, _ := json.Marshal(req)
	resp, rb := post(t, e.upstream, "/api/chat", string(b))
	return directAnswer{resp.StatusCode, string(rb), resp.Header.Get("Content-Type")}
}

func TestAnErrorMidStreamIsAnErrorLine(t *testing.T) {
	e := newEnv(t, nil)
	chunks, err := e.chat(t, &api.ChatRequest{Model: "scripted-think", Messages: userMsg("break mid-stream")})
	if err == nil || !strings.Contains(err.Error(), "llama runner process has terminated") {
		t.Fatalf("err %v", err)
	}
	for _, c := range chunks {
		if c.Done {
			t.Errorf("a done line before the error: %+v", c)
		}
	}
	if e.rec()[0].Failure == nil {
		t.Error("the transcript has no failure")
	}
}

// TestWireShapesMatchTheCaptures: apart from the tool round, a client sees
// the lines, fields and order the real Ollama sent for the answer round.
func TestWireShapesMatchTheCaptures(t *testing.T) {
	caps, err := fakeollama.ReadCaptures()
	if err != nil {
		t.Fatal(err)
	}
	capture := func(name string) []string {
		for _, c := range caps {
			if c.Name == name {
				return c.ResponseLines
			}
		}
		t.Fatalf("no capture %q", name)
		return nil
	}
	e := newEnv(t, nil)
	for _, stream := range []bool{true, false} {
		want := capture("scripted-good | round 2 | stream=" + map[bool]string{true: "true", false: "false"}[stream] + " | Can I bring my dog?")
		resp, body := post(t, e.url, "/api/chat", `{"model":"scripted-good","stream":`+map[bool]string{true: "true", false: "false"}[stream]+
			`,"messages":[{"role":"user","content":"Can I bring my dog?"}]}`)
		got := lines(body)
		var gc, wc string
		for i := range got {
			var g, w api.ChatResponse
			json.Unmarshal([]byte(got[i]), &g)
			if i < len(want) {
				json.Unmarshal([]byte(want[i]), &w)
			}
			gc, wc = gc+g.Message.Content, wc+w.Message.Content
		}
		if gc != wc {
			t.Errorf("stream %v: content %q, captured %q", stream, gc, wc)
		}
		if len(got) != len(want) {
			t.Fatalf("stream %v: %d lines, the capture has %d:\n%s", stream, len(got), len(want), body)
		}
		for i := range want {
			if g, w := keys(t, got[i]), keys(t, want[i]); !slices.Equal(g, w) {
				t.Errorf("stream %v line %d: keys %v, captured %v", stream, i+1, g, w)
			}
			var g, w api.ChatResponse
			json.Unmarshal([]byte(got[i]), &g)
			json.Unmarshal([]byte(want[i]), &w)
			// The demo script splits the answer at other words than the captured model.
			if g.Done != w.Done || g.Model != w.Model || g.Message.Role != w.Message.Role {
				t.Errorf("stream %v line %d: %s, captured %s", stream, i+1, got[i], want[i])
			}
		}
		wantType := map[bool]string{true: "application/x-ndjson", false: "application/json; charset=utf-8"}[stream]
		if resp.Header.Get("Content-Type") != wantType {
			t.Errorf("stream %v: Content-Type %q", stream, resp.Header.Get("Content-Type"))
		}
	}
}

// settle waits for cond, polling: a deadlock guard, not a timing assertion.
func settle(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("%s never settled", what)
}

func TestAClientThatLeavesStopsEverything(t *testing.T) {
	for _, tc := range []struct{ name, question string }{
		{"mid-stream", "stall now"},
		{"during a tool call", "hang forever"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, nil)
			// Warm the connections up, so the baseline counts their goroutines.
			e.chat(t, &api.ChatRequest{Model: "scripted-good", Messages: userMsg("Can I bring my dog?")})
			http.DefaultClient.CloseIdleConnections()
			base := runtime.NumGoroutine()
			ctx, cancel := context.WithCancel(context.Background())
			got := make(chan struct{}, 1)
			errc := make(chan error, 1)
			go func() {
				errc <- e.client.Chat(ctx, &api.ChatRequest{Model: "scripted-good", Messages: userMsg(tc.question)}, func(api.ChatResponse) error {
					select {
					case got <- struct{}{}:
					default:
					}
					return nil
				})
			}()
			if tc.question == "stall now" {
				<-got // the first chunk came through; Ollama stalls after it
			} else {
				settle(t, "the tool call starting", func() bool { return e.tools.running.Load() == 1 })
			}
			cancel()
			// Ollama's client ignores read errors: a cut stream may end without one.
			if err := <-errc; err != nil && !errors.Is(err, context.Canceled) {
				t.Errorf("client: %v", err)
			}
			settle(t, "the fake's requests", func() bool { return e.inflight.Load() == 0 })
			settle(t, "the tool calls", func() bool { return e.tools.running.Load() == 0 })
			settle(t, "the goroutines", func() bool {
				http.DefaultClient.CloseIdleConnections()
				return runtime.NumGoroutine() <= base
			})
			settle(t, "the recorded transcript", func() bool {
				e.mu.Lock()
				defer e.mu.Unlock()
				return len(e.recorded) == 2
			})
			if f := e.rec()[1].Failure; f == nil || f.Kind != "canceled" {
				t.Errorf("failure %+v", f)
			}
		})
	}
}

func TestConcurrentChatsShareTheSessions(t *testing.T) {
	e := newEnv(t, nil)
	questions := map[string]string{
		"Can I bring my dog?":           "Yes. Dogs are welcome on the terrace.",
		"Is there parking?":             "Yes: free parking for 20 cars behind the restaurant.",
		"Do you have wifi?":             "Yes, free wifi; the password is on your receipt.",
		"Can I pay by card?":            "Yes, we take credit and debit cards, and cash.",
		"Check the hours and the menu.": "Open Mon-Fri 9:00-17:00; the soup of the day is tomato and basil.",
	}
	errc := make(chan error, 4*len(questions))
	for range 4 {
		for q, want := range questions {
			go func() {
				var got string
				err := e.client.Chat(context.Background(), &api.ChatRequest{Model: "scripted-good", Messages: userMsg(q)}, func(r api.ChatResponse) error {
					got += r.Message.Content
					return nil
				})
				if err == nil && got != want {
					err = errors.New(q + ": " + got)
				}
				errc <- err
			}()
		}
	}
	for range 4 * len(questions) {
		if err := <-errc; err != nil {
			t.Error(err)
		}
	}
	if n := len(e.rec()); n != 4*len(questions) {
		t.Errorf("%d transcripts", n)
	}
}

func TestTheSystemPromptGoesFirstUnlessTheClientHasOne(t *testing.T) {
	e := newEnv(t, nil)
	srv, _ := proxy.New(proxy.Options{Upstream: e.upstream, Chat: &llm.StreamChatter{Base: e.upstream}, Tools: e.tools, System: "Be brief."})
	for _, msgs := range [][]api.Message{
		userMsg("hello"),
		{{Role: "system", Content: "Mine."}, {Role: "user", Content: "hello"}},
	} {
		body, _ := json.Marshal(api.ChatRequest{Model: "scripted-good", Messages: msgs})
		rec := newRecorder()
		req, _ := http.NewRequest("POST", "/api/chat", strings.NewReader(string(body)))
		srv.ServeHTTP(rec, req)
		reqs := e.fake.Requests()
		sent := reqs[len(reqs)-1].Chat.Messages
		if rec.Code != 200 || sent[0].Role != "system" || len(sent) != 2 || (msgs[0].Role == "user") != (sent[0].Content == "Be brief.") {
			t.Errorf("%d: sent %+v", rec.Code, sent)
		}
	}
}

// TestAResponseCallingBothKindsGoesToTheClient: the client gets its own
// calls and must answer them, so nothing of that response runs; the MCP
// call is not shown, since the client could not run it.
func TestAResponseCallingBothKindsGoesToTheClient(t *testing.T) {
	e := newEnv(t, nil)
	clock := api.Tool{Type: "function", Function: api.ToolFunction{Name: "clock", Description: "the time"}}
	for _, stream := range []bool{true, false} {
		chunks, err := e.chat(t, &api.ChatRequest{Model: "scripted-good", Stream: &stream, Tools: api.Tools{clock}, Messages: userMsg("the time and the dog policy")})
		if err != nil {
			t.Fatal(err)
		}
		doneLine(t, chunks)
		var calls []string
		for _, c := range chunks {
			for _, tc := range c.Message.ToolCalls {
				calls = append(calls, tc.Function.Name)
			}
		}
		if !slices.Equal(calls, []string{"clock"}) {
			t.Errorf("stream %v: calls %v", stream, calls)
		}
	}
	if n := e.tools.calls.Load(); n != 0 {
		t.Errorf("%d tool calls ran", n)
	}
}
