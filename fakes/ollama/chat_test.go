package fakeollama

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
)

// searchTool is a tool definition for requests that offer tools.
// described is searchTool with a description the tools: matcher looks for.
var described = api.Tool{Type: "function", Function: api.ToolFunction{
	Name: "search", Description: "Open documents; never search.",
	Parameters: api.ToolFunctionParameters{Type: "object", Properties: api.NewToolPropertiesMap()},
}}

var searchTool = api.Tool{Type: "function", Function: api.ToolFunction{
	Name:       "search",
	Parameters: api.ToolFunctionParameters{Type: "object", Properties: api.NewToolPropertiesMap()},
}}

func oneRuleScript(r Rule, models ...Model) *Script {
	if len(models) == 0 {
		models = []Model{{Name: "m"}}
	}
	return &Script{Models: models, Rules: []Rule{r}}
}

func TestFaults(t *testing.T) {
	reply := Reply{Content: "one two three", Chunks: 3}
	for _, stream := range []bool{true, false} {
		t.Run(fmt.Sprint("stream=", stream), func(t *testing.T) {
			run := func(t *testing.T, f Fault, errText string) exchange {
				h := newHarness(t, oneRuleScript(Rule{Fault: f, Error: errText, Reply: reply}), nil)
				return h.chat(t, &api.ChatRequest{Model: "m", Messages: user("hi"), Stream: ptr(stream), Tools: api.Tools{searchTool}})
			}
			sawDone := func(ex exchange) bool {
				for _, r := range ex.resps {
					if r.Done {
						return true
					}
				}
				return false
			}

			t.Run("http_500", func(t *testing.T) {
				ex := run(t, FaultHTTP500, "")
				var se api.StatusError
				if !errors.As(ex.err, &se) || se.StatusCode != 500 || se.ErrorMessage != defaultError || len(ex.resps) != 0 {
					t.Fatalf("err %v, responses %d", ex.err, len(ex.resps))
				}
			})
			t.Run("no_tools", func(t *testing.T) {
				ex := run(t, FaultNoTools, "")
				var se api.StatusError
				if !errors.As(ex.err, &se) || se.StatusCode != 400 || se.ErrorMessage != "registry.ollama.ai/library/m:latest does not support tools" {
					t.Fatalf("err %v", ex.err)
				}
			})
			t.Run("error_mid_stream", func(t *testing.T) {
				ex := run(t, FaultErrorMidStream, "CUDA error: out of memory")
				if sawDone(ex) {
					t.Fatal("saw a done line")
				}
				if stream {
					// After a 200 the client returns the error line as a plain error.
					var se api.StatusError
					if ex.err == nil || ex.err.Error() != "CUDA error: out of memory" || errors.As(ex.err, &se) || len(ex.resps) != 1 || ex.resps[0].Message.Content != "one" {
						t.Fatalf("err %#v, responses %+v", ex.err, ex.resps)
					}
					if ex.status != 200 || len(ex.lines) != 2 || ex.lines[1] != `{"error":"CUDA error: out of memory"}` {
						t.Fatalf("status %d, lines %q", ex.status, ex.lines)
					}
				} else {
					var se api.StatusError
					if !errors.As(ex.err, &se) || se.StatusCode != 500 || se.ErrorMessage != "CUDA error: out of memory" {
						t.Fatalf("err %v", ex.err)
					}
				}
			})
			t.Run("drop", func(t *testing.T) {
				ex := run(t, FaultDrop, "")
				if sawDone(ex) {
					t.Fatal("saw a done line")
				}
				if stream {
					// api.Client v0.17.4 ignores the scanner's error: a cut
					// stream returns nil, with no done line.
					if ex.err != nil || len(ex.resps) != 1 {
						t.Fatalf("err %v, responses %+v", ex.err, ex.resps)
					}
				} else if ex.err == nil || len(ex.resps) != 0 {
					t.Fatalf("err %v, responses %+v", ex.err, ex.resps)
				}
			})
			t.Run("invalid_json", func(t *testing.T) {
				ex := run(t, FaultInvalidJSON, "")
				if ex.err == nil || !strings.HasPrefix(ex.err.Error(), `{"model":"m"`) || sawDone(ex) {
					t.Fatalf("err %v, responses %+v", ex.err, ex.resps)
				}
				want := 0
				if stream {
					want = 1
				}
				if len(ex.resps) != want {
					t.Fatalf("%d responses, want %d", len(ex.resps), want)
				}
			})
			t.Run("empty", func(t *testing.T) {
				ex := run(t, FaultEmpty, "")
				if ex.err != nil || len(ex.resps) != 1 {
					t.Fatalf("err %v, responses %+v", ex.err, ex.resps)
				}
				r := ex.resps[0]
				if !r.Done || r.DoneReason != "stop" || r.Message.Content != "" || len(r.Message.ToolCalls) != 0 || ex.status != 200 {
					t.Fatalf("response %+v", r)
				}
			})
		})
	}
}

func TestUnofferedToolGivesEmptyAnswer(t *testing.T) {
	h := newHarness(t, oneRuleScript(Rule{Reply: Reply{Content: "text", ToolCalls: []ToolCall{Call("get_weather", "city", "Paris")}}}), nil)
	for _, stream := range []bool{true, false} {
		ex := h.chat(t, &api.ChatRequest{Model: "m", Messages: user("weather?"), Stream: ptr(stream), Tools: api.Tools{searchTool}})
		if ex.err != nil || len(ex.lines) != 1 {
			t.Fatalf("stream=%v: err %v, lines %q", stream, ex.err, ex.lines)
		}
		r := ex.resps[0]
		if !r.Done || r.DoneReason != "stop" || r.Message.Content != "" || len(r.Message.ToolCalls) != 0 {
			t.Fatalf("stream=%v: %+v", stream, r)
		}
	}
}

func TestStreamOrderAndArguments(t *testing.T) {
	s := &Script{
		Models: []Model{{Name: "t", Capabilities: []string{"completion", "tools", "thinking"}}},
		Rules: []Rule{{Reply: Reply{
			Thinking:  "think hard now",
			Content:   "here you go",
			Chunks:    2,
			ToolCalls: []ToolCall{Call("search", "zeta", 1, "alpha", "x"), Call("search", "q", "two")},
		}}},
	}
	h := newHarness(t, s, nil)
	ex := h.chat(t, &api.ChatRequest{Model: "t", Messages: user("go"), Tools: api.Tools{searchTool}})
	if ex.err != nil {
		t.Fatal(ex.err)
	}
	var kinds []string
	for _, r := range ex.resps {
		switch {
		case r.Done:
			kinds = append(kinds, "done")
			if len(r.Message.ToolCalls) != 0 || r.Message.Content != "" {
				t.Errorf("done line %+v", r)
			}
		case len(r.Message.ToolCalls) == 1:
			kinds = append(kinds, fmt.Sprint("call", r.Message.ToolCalls[0].Function.Index))
		case r.Message.Thinking != "":
			kinds = append(kinds, "think")
		case r.Message.Content != "":
			kinds = append(kinds, "content")
		}
	}
	if got := strings.Join(kinds, " "); got != "think think call0 call1 content content done" {
		t.Fatalf("chunks: %s", got)
	}
	// The arguments keep the script's order on the wire.
	if !strings.Contains(ex.lines[2], `"arguments":{"zeta":1,"alpha":"x"}`) {
		t.Errorf("arguments reordered: %s", ex.lines[2])
	}
	done := ex.resps[len(ex.resps)-1]
	// 2 thinking pieces + 2 think tags + 2 calls of 4 + 2 content pieces + end of sequence
	if done.EvalCount != 15 {
		t.Errorf("eval_count %d, want 15", done.EvalCount)
	}
}

// TestNoToolsOfferedGivesRawCall: the calls come back as the text a model
// writes, json.dumps's spacing and floats (5.0), its own characters
// unescaped.
func TestNoToolsOfferedGivesRawCall(t *testing.T) {
	h := newHarness(t, oneRuleScript(Rule{Reply: Reply{ToolCalls: []ToolCall{Call("search", "query", "<x> & café", "n", 2.5, "k", 5.0, "tags", []any{"a", "b"}, "opt", map[string]any{"b": true, "a": nil})}}}), nil)
	ex := h.chat(t, &api.ChatRequest{Model: "m", Messages: user("go"), Stream: ptr(false)})
	want := `<tool_call>{"name": "search", "arguments": {"query": "<x> & café", "n": 2.5, "k": 5.0, "tags": ["a", "b"], "opt": {"a": null, "b": true}}}</tool_call>`
	if ex.err != nil || ex.resps[0].Message.Content != want || len(ex.resps[0].Message.ToolCalls) != 0 {
		t.Fatalf("err %v, got %q\nwant %q", ex.err, ex.resps[0].Message.Content, want)
	}
}

func TestThinking(t *testing.T) {
	s := &Script{
		Models: []Model{
			{Name: "thinker", Capabilities: []string{"completion", "tools", "thinking"}},
			{Name: "leveled", Capabilities: []string{"completion", "thinking"}, ThinkLevels: []string{"high", "low"}},
			{Name: "plain"},
		},
		Rules: []Rule{{Reply: Reply{Thinking: "let me see", Content: "ok"}}},
	}
	h := newHarness(t, s, nil)
	cases := []struct {
		model    string
		think    any // nil: no think field
		status   int
		err      string
		thinking string
	}{
		{"thinker", nil, 200, "", "let me see"},
		{"thinker", true, 200, "", "let me see"},
		{"thinker", false, 200, "", ""},
		{"thinker", "high", 400, `think value "high" is not supported for this model`, ""},
		{"leveled", "high", 200, "", "let me see"},
		{"leveled", "medium", 400, `think value "medium" is not supported for this model`, ""},
		{"plain", nil, 200, "", ""},
		{"plain", false, 200, "", ""},
		{"plain", true, 400, `"plain" does not support thinking`, ""},
		{"plain", "low", 400, `"plain" does not support thinking`, ""},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/%v", c.model, c.think), func(t *testing.T) {
			req := &api.ChatRequest{Model: c.model, Messages: user("q"), Stream: ptr(false)}
			if c.think != nil {
				req.Think = &api.ThinkValue{Value: c.think}
			}
			ex := h.chat(t, req)
			if ex.status != c.status {
				t.Fatalf("status %d, want %d (%v)", ex.status, c.status, ex.err)
			}
			if c.status != 200 {
				var se api.StatusError
				if !errors.As(ex.err, &se) || se.ErrorMessage != c.err {
					t.Fatalf("err %v, want %q", ex.err, c.err)
				}
				return
			}
			if got := ex.resps[0].Message.Thinking; got != c.thinking {
				t.Fatalf("thinking %q, want %q", got, c.thinking)
			}
		})
	}
}

func TestModelErrors(t *testing.T) {
	h := newHarness(t, &Script{Models: []Model{{Name: "m"}, {Name: "vec", Capabilities: []string{"embedding"}}, {Name: "lib/tagged:7b"}}}, nil)
	cases := []struct {
		model, want string
		status      int
	}{
		{"nope", "model 'nope' not found", 404},
		{"m:7b", "model 'm:7b' not found", 404},
		{"vec", `"vec" does not support chat`, 400},
		{"", "model is required", 400},
	}
	for _, c := range cases {
		ex := h.chat(t, &api.ChatRequest{Model: c.model, Messages: user("q")})
		var se api.StatusError
		if !errors.As(ex.err, &se) || se.StatusCode != c.status || se.ErrorMessage != c.want {
			t.Errorf("model %q: err %v, want %d %q", c.model, ex.err, c.status, c.want)
		}
	}
	for _, name := range []string{"m", "m:latest", "M:Latest", "registry.ollama.ai/library/m:latest", "lib/tagged:7b"} {
		ex := h.chat(t, &api.ChatRequest{Model: name, Messages: user("q"), Stream: ptr(false)})
		if ex.err != nil || ex.resps[0].Model != name {
			t.Errorf("model %q: err %v, responses %+v", name, ex.err, ex.resps)
		}
	}
	if _, err := h.client.Show(context.Background(), &api.ShowRequest{Model: "nope"}); err == nil || err.Error() != "model 'nope' not found" {
		t.Errorf("show: %v", err)
	}
	status, body := h.post(t, "/api/chat", "")
	if status != 400 || body != `{"error":"missing request body"}` {
		t.Errorf("empty body: %d %s", status, body)
	}
	status, body = h.post(t, "/api/chat", `{"model":"m","think":"extreme"}`)
	if status != 400 || !strings.Contains(body, `invalid think value: \"extreme\"`) {
		t.Errorf("bad think: %d %s", status, body)
	}
}

func TestMatching(t *testing.T) {
	s := &Script{
		Models: []Model{{Name: "a"}, {Name: "b"}},
		Rules: []Rule{
			{Model: "b", Reply: Reply{Content: "model b"}},
			{User: &Matcher{Equals: "hi\n\nthere"}, Reply: Reply{Content: "merged"}},
			{Round: 2, ToolResult: &Matcher{Regex: `^\d+ hits$`}, Reply: Reply{Content: "hits"}},
			{Round: 2, Reply: Reply{Content: "round two"}},
			{User: &Matcher{Contains: "describe"}, Tools: &Matcher{Contains: "never search"}, Reply: Reply{Content: "described"}},
			{User: &Matcher{Contains: "count"}, ToolsCount: &Count{Min: ptr(2)}, Reply: Reply{Content: "many tools"}},
			{User: &Matcher{Contains: "count"}, ToolsCount: &Count{Max: ptr(0)}, Reply: Reply{Content: "no tools"}},
			{User: &Matcher{Contains: "TOOLS"}, ToolsOffered: ptr(true), Reply: Reply{Content: "with tools"}},
			{User: &Matcher{Contains: "tools"}, ToolsOffered: ptr(false), Reply: Reply{Content: "without tools"}},
		},
		Fallback: &Reply{Content: "fallback"},
	}
	h := newHarness(t, s, nil)
	asst := api.Message{Role: "assistant", Content: "x"}
	tool := func(c string) api.Message { return api.Message{Role: "tool", Content: c} }
	cases := []struct {
		model string
		msgs  []api.Message
		tools api.Tools
		want  string
	}{
		{"b", user("anything"), nil, "model b"},
		{"a", []api.Message{{Role: "user", Content: "hi"}, {Role: "user", Content: "there"}}, nil, "merged"},
		{"a", []api.Message{{Role: "user", Content: "q"}, asst, tool("12 hits")}, nil, "hits"},
		{"a", []api.Message{{Role: "user", Content: "q"}, asst, tool("nothing")}, nil, "round two"},
		// two consecutive assistant messages are one: still round 2
		{"a", []api.Message{{Role: "user", Content: "q"}, asst, asst, tool("nothing")}, nil, "round two"},
		{"a", []api.Message{{Role: "user", Content: "q"}, asst, tool("t"), asst, tool("u")}, nil, "fallback"},
		{"a", user("use the Tools"), api.Tools{searchTool}, "with tools"},
		// tools_count: the number of offered tools, bounded either way
		{"a", user("count TOOLS"), api.Tools{searchTool, described}, "many tools"},
		{"a", user("count TOOLS"), api.Tools{searchTool}, "with tools"},
		{"a", user("count"), nil, "no tools"},
		// tools: matches the offered tools' JSON, descriptions included
		{"a", user("describe the tools"), api.Tools{described}, "described"},
		{"a", user("describe the Tools"), api.Tools{searchTool}, "with tools"},
		{"a", user("describe the tools"), nil, "without tools"},
		{"a", user("use the Tools"), nil, "without tools"},
		{"a", user("other"), nil, "fallback"},
	}
	for i, c := range cases {
		ex := h.chat(t, &api.ChatRequest{Model: c.model, Messages: c.msgs, Tools: c.tools, Stream: ptr(false)})
		if ex.err != nil || ex.resps[0].Message.Content != c.want {
			t.Errorf("case %d: err %v, responses %+v, want %q", i, ex.err, ex.resps, c.want)
		}
	}
}

func TestDoneReasonLength(t *testing.T) {
	h := newHarness(t, oneRuleScript(Rule{Reply: Reply{DoneReason: "length"}}), nil)
	for _, stream := range []bool{true, false} {
		ex := h.chat(t, &api.ChatRequest{Model: "m", Messages: user("q"), Stream: ptr(stream), Tools: api.Tools{searchTool}})
		last := ex.resps[len(ex.resps)-1]
		if ex.err != nil || !last.Done || last.DoneReason != "length" {
			t.Fatalf("err %v, %+v", ex.err, last)
		}
	}
}

func TestMetricsAndRequests(t *testing.T) {
	clock := time.Date(2026, 12, 1, 7, 41, 59, 0, time.FixedZone("CET", 3600))
	h := newHarness(t, oneRuleScript(Rule{Reply: Reply{Content: "answer"}}), &Options{Clock: func() time.Time { return clock }})
	ask := func(msgs []api.Message, tools api.Tools) api.ChatResponse {
		ex := h.chat(t, &api.ChatRequest{Model: "m", Messages: msgs, Tools: tools})
		if ex.err != nil {
			t.Fatal(ex.err)
		}
		for _, r := range ex.resps {
			if !r.CreatedAt.Equal(clock) || r.CreatedAt.Location() != time.UTC {
				t.Errorf("created_at %v, want %v in UTC", r.CreatedAt, clock)
			}
		}
		return ex.resps[len(ex.resps)-1]
	}
	first := ask(user("q"), api.Tools{searchTool})
	second := ask([]api.Message{{Role: "user", Content: "q"}, {Role: "assistant", Content: "answer"}, {Role: "user", Content: "and more?"}}, nil)
	if first.LoadDuration != coldLoad || second.LoadDuration != warmLoad {
		t.Errorf("load durations %v, %v", first.LoadDuration, second.LoadDuration)
	}
	if first.EvalCount != 2 || first.PromptEvalDuration == 0 || first.EvalDuration == 0 ||
		first.TotalDuration < first.LoadDuration+first.PromptEvalDuration+first.EvalDuration {
		t.Errorf("metrics %+v", first.Metrics)
	}
	third := ask([]api.Message{{Role: "user", Content: "q"}, {Role: "assistant", Content: "answer"}, {Role: "user", Content: "and more, with a much longer question this time?"}}, nil)
	if third.PromptEvalCount <= second.PromptEvalCount {
		t.Errorf("prompt_eval_count did not grow: %d then %d", second.PromptEvalCount, third.PromptEvalCount)
	}

	reqs := h.srv.Requests()
	if len(reqs) != 3 || reqs[0].Method != "POST" || reqs[0].Path != "/api/chat" || reqs[0].Chat == nil {
		t.Fatalf("requests %+v", reqs)
	}
	if len(reqs[0].Chat.Tools) != 1 || len(reqs[2].Chat.Tools) != 0 || reqs[2].Chat.Messages[2].Content != "and more, with a much longer question this time?" {
		t.Errorf("recorded chats %+v / %+v", reqs[0].Chat, reqs[2].Chat)
	}
	h.srv.Reset()
	if n := len(h.srv.Requests()); n != 0 {
		t.Errorf("%d requests after Reset", n)
	}
	if again := ask(user("q"), nil); again.LoadDuration != coldLoad {
		t.Errorf("load after Reset %v, want %v", again.LoadDuration, coldLoad)
	}
}

func TestCallIDs(t *testing.T) {
	s := oneRuleScript(Rule{Reply: Reply{ToolCalls: []ToolCall{Call("search"), Call("search")}}})
	ids := func(h *harness, n int) []string {
		var out []string
		for range n {
			ex := h.chat(t, &api.ChatRequest{Model: "m", Messages: user("q"), Tools: api.Tools{searchTool}, Stream: ptr(false)})
			if ex.err != nil {
				t.Fatal(ex.err)
			}
			for i, c := range ex.resps[0].Message.ToolCalls {
				if c.Function.Index != i || !callIDRE.MatchString(c.ID) {
					t.Errorf("call %d: %+v", i, c)
				}
				out = append(out, c.ID)
			}
		}
		return out
	}
	a := ids(newHarness(t, s, &Options{Seed: 7}), 3)
	seen := map[string]bool{}
	for _, id := range a {
		if seen[id] {
			t.Errorf("id %s repeated in %v", id, a)
		}
		seen[id] = true
	}
	if b := ids(newHarness(t, s, &Options{Seed: 7}), 3); strings.Join(a, " ") != strings.Join(b, " ") {
		t.Errorf("same seed, other ids: %v vs %v", a, b)
	}
	if c := ids(newHarness(t, s, &Options{Seed: 8}), 3); strings.Join(a, " ") == strings.Join(c, " ") {
		t.Errorf("other seed, same ids: %v", c)
	}
	h := newHarness(t, s, &Options{Seed: 7})
	ids(h, 2)
	h.srv.Reset()
	if d := ids(h, 3); strings.Join(a, " ") != strings.Join(d, " ") {
		t.Errorf("Reset did not restart the ids: %v vs %v", a, d)
	}
}

// gatedHarness runs the server behind a handler that reports when a request
// arrives and when the server is done with it.
func gatedHarness(t *testing.T, s *Script, o *Options) (*harness, <-chan struct{}, <-chan struct{}) {
	t.Helper()
	srv := New(s, o)
	started, finished := make(chan struct{}, 1), make(chan struct{}, 1)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		started <- struct{}{}
		defer func() { finished <- struct{}{} }()
		srv.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	base, _ := url.Parse(ts.URL)
	tee := &teeTransport{next: ts.Client().Transport}
	return &harness{srv: srv, ts: ts, client: api.NewClient(base, &http.Client{Transport: tee}), tee: tee}, started, finished
}

func TestLatencyHonoursCancellation(t *testing.T) {
	hour := time.Hour
	cases := map[string]struct {
		s *Script
		o *Options
	}{
		"option":      {oneRuleScript(Rule{}), &Options{Latency: time.Hour}},
		"rule":        {oneRuleScript(Rule{Latency: &hour}), &Options{Latency: -1}},
		"script wide": {&Script{Models: []Model{{Name: "m"}}, Latency: time.Hour}, &Options{Latency: -1}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			h, started, finished := gatedHarness(t, c.s, c.o)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			errc := make(chan error, 1)
			go func() {
				errc <- h.client.Chat(ctx, &api.ChatRequest{Model: "m", Messages: user("q")}, func(api.ChatResponse) error { return nil })
			}()
			<-started
			cancel()
			select {
			case <-finished:
			case <-time.After(10 * time.Second):
				t.Fatal("the handler kept waiting after the request was cancelled")
			}
			if err := <-errc; !errors.Is(err, context.Canceled) {
				t.Errorf("Chat: %v", err)
			}
		})
	}
}

func TestLatency(t *testing.T) {
	d := 30 * time.Millisecond
	hour := time.Hour
	h := newHarness(t, oneRuleScript(Rule{Latency: &d}), &Options{Latency: -1})
	start := time.Now()
	if ex := h.chat(t, &api.ChatRequest{Model: "m", Messages: user("q")}); ex.err != nil {
		t.Fatal(ex.err)
	}
	if el := time.Since(start); el < d {
		t.Errorf("answered after %v, before the latency of %v", el, d)
	}
	// Options.Latency zero replaces the script's latencies.
	fast := newHarness(t, oneRuleScript(Rule{Latency: &hour}), nil)
	if ex := fast.chat(t, &api.ChatRequest{Model: "m", Messages: user("q")}); ex.err != nil {
		t.Fatal(ex.err)
	}
}

func TestConcurrentChats(t *testing.T) {
	h := demoHarness(t, &Options{Seed: 3})
	tools := loadTools(t, "tools.json")
	const n = 32
	var wg sync.WaitGroup
	var mu sync.Mutex
	ids := map[string]bool{}
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			models := []string{"scripted-good", "scripted-think", "scripted-weak"}
			var calls []api.ToolCall
			var done bool
			err := h.client.Chat(context.Background(), &api.ChatRequest{Model: models[i%3], Messages: user("Check the hours and the menu."), Tools: tools}, func(r api.ChatResponse) error {
				calls = append(calls, r.Message.ToolCalls...)
				done = done || r.Done
				return nil
			})
			if err == nil && (!done || len(calls) == 0) {
				err = fmt.Errorf("request %d: done %v, %d calls", i, done, len(calls))
			}
			mu.Lock()
			for _, c := range calls {
				if ids[c.ID] {
					err = fmt.Errorf("id %s given twice", c.ID)
				}
				ids[c.ID] = true
			}
			mu.Unlock()
			h.srv.Requests()
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if got := len(h.srv.Requests()); got != n {
		t.Errorf("%d requests recorded, want %d", got, n)
	}
}

func TestLoadUnloadAndHeaders(t *testing.T) {
	h := newHarness(t, oneRuleScript(Rule{}), nil)
	status, body := h.post(t, "/api/chat", `{"model":"m"}`)
	var r api.ChatResponse
	if json.Unmarshal([]byte(body), &r); status != 200 || !r.Done || r.DoneReason != "load" {
		t.Fatalf("load: %d %s", status, body)
	}
	if ps, _ := h.client.ListRunning(context.Background()); ps == nil || len(ps.Models) != 1 {
		t.Fatalf("ps after load: %+v", ps)
	}
	status, body = h.post(t, "/api/chat", `{"model":"m","keep_alive":0}`)
	if json.Unmarshal([]byte(body), &r); status != 200 || r.DoneReason != "unload" {
		t.Fatalf("unload: %d %s", status, body)
	}
	if ps, _ := h.client.ListRunning(context.Background()); ps == nil || len(ps.Models) != 0 {
		t.Fatalf("ps after unload: %+v", ps)
	}

	for _, c := range []struct {
		body, ct string
	}{
		{`{"model":"m","messages":[{"role":"user","content":"q"}]}`, "application/x-ndjson"},
		{`{"model":"m","stream":false,"messages":[{"role":"user","content":"q"}]}`, "application/json; charset=utf-8"},
		{`{"model":"nope","messages":[{"role":"user","content":"q"}]}`, "application/json; charset=utf-8"},
	} {
		resp, err := h.ts.Client().Post(h.ts.URL+"/api/chat", "application/json", strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("Content-Type"); got != c.ct {
			t.Errorf("%s: content type %q, want %q", c.body, got, c.ct)
		}
	}
}

func TestStallSendsTheFirstChunkThenNothing(t *testing.T) {
	h := newHarness(t, oneRuleScript(Rule{Fault: FaultStall, Reply: Reply{Content: "one two three", Chunks: 3}}), nil)
	for _, stream := range []bool{true, false} {
		// The stall lasts until the client leaves: here, when ctx ends.
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		var resps []api.ChatResponse
		err := h.client.Chat(ctx, &api.ChatRequest{Model: "m", Messages: user("hi"), Stream: ptr(stream)},
			func(r api.ChatResponse) error { resps = append(resps, r); return nil })
		cancel()
		want := 0
		if stream {
			want = 1
		}
		if len(resps) != want || (want == 1 && (resps[0].Done || resps[0].Message.Content == "")) {
			t.Errorf("stream=%v: responses %+v (err %v)", stream, resps, err)
		}
		if !stream && err == nil {
			t.Error("stream=false: no error from a request that never got an answer")
		}
	}
}
