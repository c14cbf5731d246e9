package fakeollama

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
)

// These tests replay the requests of testdata/ollama-v0.17.4/captures-v0.17.4.jsonl
// against the demo script through the real api.Client and compare the
// answers' shape with what the real Ollama 0.17.4 sent.

var callIDRE = regexp.MustCompile(`^call_[a-z0-9]{8}$`)

// summary is what must agree between a captured answer and the fake's.
type summary struct {
	Done       []bool // the done flag of each line
	CallChunks int    // lines that carry tool calls
	Calls      string // index:name{arguments} of every call, in order
	Content    string
	Thinking   string
	DoneReason string
}

// summarize reads the lines of one answer; it also checks the invariants
// every answer of Ollama 0.17.4 keeps.
func summarize(t *testing.T, who string, lines []string) summary {
	t.Helper()
	var s summary
	var calls []api.ToolCall
	for i, l := range lines {
		var r api.ChatResponse
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("%s: line %d is not a chat response: %v", who, i, err)
		}
		s.Done = append(s.Done, r.Done)
		s.Content += r.Message.Content
		s.Thinking += r.Message.Thinking
		if len(r.Message.ToolCalls) > 0 {
			s.CallChunks++
			if r.Done && len(lines) > 1 {
				t.Errorf("%s: the done line of a stream carries tool calls: %s", who, l)
			}
			if len(lines) > 1 && len(r.Message.ToolCalls) != 1 {
				t.Errorf("%s: a streamed chunk carries %d tool calls, want 1: %s", who, len(r.Message.ToolCalls), l)
			}
			if r.Message.Content != "" {
				t.Errorf("%s: a tool-call chunk has content %q", who, r.Message.Content)
			}
		}
		for _, c := range r.Message.ToolCalls {
			if !callIDRE.MatchString(c.ID) {
				t.Errorf("%s: call id %q does not look like call_xxxxxxxx", who, c.ID)
			}
			calls = append(calls, c)
		}
		if r.Done {
			s.DoneReason = r.DoneReason
			if i != len(lines)-1 {
				t.Errorf("%s: done line %d is not the last", who, i)
			}
			if r.EvalCount == 0 || r.PromptEvalCount == 0 || r.TotalDuration == 0 || r.LoadDuration == 0 {
				t.Errorf("%s: done line lacks metrics: %s", who, l)
			}
		}
	}
	s.Calls = describeCalls(calls)
	return s
}

// checkAnswer compares the fake's answer to a captured one.
func checkAnswer(t *testing.T, ex exchange, wantStatus int, want []string) {
	t.Helper()
	if ex.status != wantStatus {
		t.Fatalf("HTTP status %d, want %d (error %v, body %q)", ex.status, wantStatus, ex.err, ex.lines)
	}
	if wantStatus >= 400 {
		var se api.StatusError
		if !errors.As(ex.err, &se) || se.StatusCode != wantStatus {
			t.Fatalf("api.Client returned %#v, want a StatusError %d", ex.err, wantStatus)
		}
		var body struct{ Error string }
		if err := json.Unmarshal([]byte(want[0]), &body); err != nil {
			t.Fatal(err)
		}
		if se.ErrorMessage != body.Error {
			t.Errorf("error %q, want %q", se.ErrorMessage, body.Error)
		}
		if len(ex.lines) != 1 || ex.lines[0] != want[0] {
			t.Errorf("body %q, want %q", ex.lines, want[0])
		}
		return
	}
	if ex.err != nil {
		t.Fatalf("api.Client: %v", ex.err)
	}
	if len(ex.lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n got %s\nwant %s", len(ex.lines), len(want), strings.Join(ex.lines, "\n     "), strings.Join(want, "\n     "))
	}
	if len(ex.resps) != len(ex.lines) {
		t.Errorf("the client saw %d responses for %d lines", len(ex.resps), len(ex.lines))
	}
	for i := range want {
		if g, w := shape(t, ex.lines[i]), shape(t, want[i]); g != w {
			t.Errorf("line %d has another shape:\n got %s\nwant %s\n(got %s\nwant %s)", i, g, w, ex.lines[i], want[i])
		}
	}
	if g, w := summarize(t, "fake", ex.lines), summarize(t, "capture", want); !equalSummary(g, w) {
		t.Errorf("answers differ:\n got %+v\nwant %+v", g, w)
	}
}

func equalSummary(a, b summary) bool {
	return slices.Equal(a.Done, b.Done) && a.CallChunks == b.CallChunks && a.Calls == b.Calls &&
		a.Content == b.Content && a.Thinking == b.Thinking && a.DoneReason == b.DoneReason
}

func isFSQuestion(q string) bool {
	return strings.Contains(q, "service.conf") || strings.Contains(q, "allowed directory")
}

func roundKey(c capture) string {
	return fmt.Sprintf("%s|%d|%s", c.Model, c.Round, c.Question)
}

func TestConformanceChatCaptures(t *testing.T) {
	caps := loadCaptures(t)
	docTools, fsTools := loadTools(t, "tools.json"), loadTools(t, "fs-tools.json")
	// The messages of a later round are recorded on the stream=false
	// capture; the stream=true one sent the same.
	sent := map[string][]api.Message{}
	for _, c := range caps {
		if c.Model != "" && c.RequestMessages != nil {
			sent[roundKey(c)] = c.RequestMessages
		}
	}
	h := demoHarness(t, nil)
	replayed := 0
	for _, c := range caps {
		if c.Stream == nil || !slices.Contains([]string{"scripted-good", "scripted-weak", "scripted-think"}, c.Model) {
			continue
		}
		replayed++
		t.Run(c.Name, func(t *testing.T) {
			req := &api.ChatRequest{Model: c.Model, Stream: c.Stream, Tools: docTools}
			if isFSQuestion(c.Question) {
				req.Tools = fsTools
			}
			if c.Round == 1 {
				req.Messages = user(c.Question)
			} else if req.Messages = sent[roundKey(c)]; req.Messages == nil {
				t.Fatalf("no request messages recorded for round %d", c.Round)
			}
			checkAnswer(t, h.chat(t, req), c.HTTPStatus, c.ResponseLines)
		})
	}
	if replayed < 60 {
		t.Fatalf("only %d chat captures replayed", replayed)
	}
}

// part is one request of a capture that recorded several, and the lines of
// its answer.
type part struct {
	req   *api.ChatRequest
	at, n int
}

func TestConformanceSpecialCaptures(t *testing.T) {
	caps := loadCaptures(t)
	byName := map[string]capture{}
	for _, c := range caps {
		byName[c.Name] = c
	}
	docTools, fsTools := loadTools(t, "tools.json"), loadTools(t, "fs-tools.json")
	var weather api.Tool
	if err := json.Unmarshal([]byte(`{"type":"function","function":{"name":"get_weather","description":"Get the weather","parameters":{"type":"object","required":["city"],"properties":{"city":{"type":"string"}}}}}`), &weather); err != nil {
		t.Fatal(err)
	}
	fsNoReadFile := slices.DeleteFunc(slices.Clone(fsTools), func(t api.Tool) bool { return t.Function.Name == "read_file" })
	var getDocument api.Tools
	for _, tool := range docTools {
		if tool.Function.Name == "get_document" {
			getDocument = append(getDocument, tool)
		}
	}
	msgsOf := func(name string) []api.Message {
		c, ok := byName[name]
		if !ok || c.RequestMessages == nil {
			t.Fatalf("capture %q has no request messages", name)
		}
		return slices.Clone(c.RequestMessages)
	}
	hoursMenu := msgsOf("scripted-good | round 2 | stream=false | Check the hours and the menu.")
	policy3 := msgsOf("scripted-good | round 3 | stream=false | Find the dog policy, then open that document.")
	fourth := append(policy3, api.Message{Role: "assistant", ToolCalls: []api.ToolCall{{Function: api.ToolCallFunction{
		Name: "get_document", Arguments: Args{{Key: "name", Value: "hours.txt"}}.toAPI()}}}},
		api.Message{Role: "tool", ToolName: "get_document", Content: "hours.txt: Mon-Fri 9:00-17:00"})

	const (
		good, notools, think, weak = "scripted-good", "scripted-notools", "scripted-think", "scripted-weak"
		dog                        = "Can I bring my dog?"
	)
	chat := func(model string, msgs []api.Message, tools api.Tools, stream bool, thinkValue any) *api.ChatRequest {
		r := &api.ChatRequest{Model: model, Messages: msgs, Tools: tools, Stream: ptr(stream)}
		if thinkValue != nil {
			r.Think = &api.ThinkValue{Value: thinkValue}
		}
		return r
	}
	cases := map[string][]part{
		"no tools offered: Can I bring my dog? (stream=false, then stream=true)": {
			{req: chat(good, user(dog), nil, false, nil), at: 0, n: 1},
			{req: chat(good, user(dog), nil, true, nil), at: 1, n: 5},
		},
		"no tools offered: Give broken arguments. (stream=false, then stream=true)": {
			{req: chat(good, user("Give broken arguments."), nil, false, nil), at: 0, n: 1},
			{req: chat(good, user("Give broken arguments."), nil, true, nil), at: 1, n: 3},
		},
		"think:true on a model without the thinking capability": {
			{req: chat(good, user(dog), docTools, false, true), at: 0, n: 1},
			{req: chat(good, user(dog), docTools, true, true), at: 0, n: 1},
		},
		"/api/chat WITH tools (stream=false, then stream=true)": {
			{req: chat(notools, user(dog), docTools, false, nil), at: 0, n: 1},
			{req: chat(notools, user(dog), docTools, true, nil), at: 1, n: 1},
		},
		"/api/chat with an EMPTY tools list": {
			{req: chat(notools, user(dog), api.Tools{}, false, nil), at: 0, n: 1},
		},
		"/api/chat without tools (row 1 answers in plain text on this model; row 4 as usual)": {
			{req: chat(notools, user(dog), nil, false, nil), at: 0, n: 1},
			{req: chat(notools, user(dog), nil, true, nil), at: 1, n: 4},
			{req: chat(notools, user("What is the capital of France?"), nil, false, nil), at: 5, n: 1},
		},
		"think=true: row 1 (stream=false, then stream=true)": {
			{req: chat(think, user(dog), docTools, false, true), at: 0, n: 1},
			{req: chat(think, user(dog), docTools, true, true), at: 1, n: 4},
		},
		"think=null: row 1 (stream=false, then stream=true)": {
			{req: chat(think, user(dog), docTools, false, nil), at: 0, n: 1},
			{req: chat(think, user(dog), docTools, true, nil), at: 1, n: 4},
		},
		"think=false: row 1 (stream=false, then stream=true)": {
			{req: chat(think, user(dog), docTools, false, false), at: 0, n: 1},
			{req: chat(think, user(dog), docTools, true, false), at: 1, n: 2},
		},
		`think=true, "What is the capital of France?": no thinking`: {
			{req: chat(think, user("What is the capital of France?"), docTools, false, true), at: 0, n: 1},
		},
		"think=true, no tools offered: thinking is still split off, the call stays raw content": {
			{req: chat(think, user(dog), nil, false, true), at: 0, n: 1},
		},
		`think="high" (a string)`: {
			{req: chat(think, user(dog), docTools, false, "high"), at: 0, n: 1},
			{req: chat(think, user(dog), docTools, true, "high"), at: 0, n: 1},
		},
		"row 5 with get_weather also offered": {
			{req: chat(good, user("Use the weather tool."), append(slices.Clone(docTools), weather), false, nil), at: 0, n: 1},
		},
		"weak row D when read_file is NOT offered (only read_text_file, list_directory): the call is swallowed": {
			{req: chat(weak, user("Read service.conf in the allowed directory and report the database port."), fsNoReadFile, false, nil), at: 0, n: 1},
		},
		`two consecutive user messages are merged ("hi\n\n...")`: {
			{req: chat(good, append(user("hi"), user("Tell me a joke.")...), nil, false, nil), at: 0, n: 1},
		},
		"rows D and E with both tool sets offered (round 1)": {
			{req: chat(good, user("Read service.conf in the allowed directory and report the database port."), append(slices.Clone(docTools), fsTools...), false, nil), at: 0, n: 1},
			{req: chat(good, user("List the allowed directory."), append(slices.Clone(docTools), fsTools...), false, nil), at: 1, n: 1},
		},
		"row A with only get_document offered (shorter prompt, the same two calls)": {
			{req: chat(good, user("Check the hours and the menu."), getDocument, false, nil), at: 0, n: 1},
		},
		"row A round 2 with only ONE tool message (the menu result missing): same answer": {
			{req: chat(good, hoursMenu[:len(hoursMenu)-1], docTools, false, nil), at: 0, n: 1},
		},
		"row B round 3 with a 4th round forced (a 3rd tool result): still the answer (2 or more tool rounds)": {
			{req: chat(good, fourth, docTools, false, nil), at: 0, n: 1},
		},
		"row B round 2 sent without the assistant message (user, tool): one tool round, so get_document": {
			{req: chat(good, []api.Message{policy3[0], policy3[2]}, docTools, false, nil), at: 0, n: 1},
		},
		"row C, no tools offered": {
			{req: chat(good, user("Answer in JSON."), nil, false, nil), at: 0, n: 1},
		},
	}
	h := demoHarness(t, nil)
	for name, parts := range cases {
		c, ok := byName[name]
		if !ok {
			t.Errorf("no capture named %q", name)
			continue
		}
		t.Run(name, func(t *testing.T) {
			for i, p := range parts {
				t.Run(fmt.Sprint(i), func(t *testing.T) {
					checkAnswer(t, h.chat(t, p.req), c.HTTPStatus, c.ResponseLines[p.at:p.at+p.n])
				})
			}
		})
	}
}

// TestConformanceEmptyToolsList sends "tools": [] on the wire (api.Client
// omits an empty list): a model without tools accepts it.
func TestConformanceEmptyToolsList(t *testing.T) {
	h := demoHarness(t, nil)
	status, body := h.post(t, "/api/chat", `{"model":"scripted-notools","stream":false,"tools":[],"messages":[{"role":"user","content":"Can I bring my dog?"}]}`)
	if status != 200 || !strings.Contains(body, `"content":"Yes. Dogs are welcome on the terrace."`) {
		t.Fatalf("status %d, body %s", status, body)
	}
	status, body = h.post(t, "/api/chat", `{"model":"scripted-notools","stream":false,"tools":[{"type":"function","function":{"name":"search","parameters":{"type":"object","properties":{}}}}],"messages":[{"role":"user","content":"Can I bring my dog?"}]}`)
	if status != 400 || body != `{"error":"registry.ollama.ai/library/scripted-notools:latest does not support tools"}` {
		t.Fatalf("status %d, body %s", status, body)
	}
}

func TestConformanceModelEndpoints(t *testing.T) {
	caps := loadCaptures(t)
	byName := map[string]capture{}
	for _, c := range caps {
		byName[c.Name] = c
	}
	h := demoHarness(t, &Options{Version: "0.0.0"})

	t.Run("version", func(t *testing.T) {
		_, ct, body := h.get(t, "/api/version")
		if want := byName["GET /api/version"].ResponseLines[0]; body != want {
			t.Errorf("body %s, want %s", body, want)
		}
		if !strings.HasPrefix(ct, "application/json") {
			t.Errorf("content type %q", ct)
		}
	})

	t.Run("tags", func(t *testing.T) {
		_, _, body := h.get(t, "/api/tags")
		want := byName["GET /api/tags"].ResponseLines[0]
		var got, exp api.ListResponse
		if err := json.Unmarshal([]byte(body), &got); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(want), &exp); err != nil {
			t.Fatal(err)
		}
		if len(got.Models) != len(exp.Models) {
			t.Fatalf("%d models, want %d", len(got.Models), len(exp.Models))
		}
		if g, w := shape(t, body), shapeOfModels(t, want, len(got.Models)); g != w {
			t.Errorf("shape\n got %s\nwant %s", g, w)
		}
		names := func(l api.ListResponse) []string {
			var out []string
			for _, m := range l.Models {
				out = append(out, m.Name+" "+m.Model+" "+m.Details.Family+" "+m.Details.ParameterSize+" "+m.Details.QuantizationLevel+" "+m.Details.Format)
				if len(m.Digest) != 64 || m.Size == 0 || m.ModifiedAt.IsZero() {
					t.Errorf("model %s: digest %q, size %d, modified %v", m.Name, m.Digest, m.Size, m.ModifiedAt)
				}
			}
			slices.Sort(out)
			return out
		}
		if g, w := names(got), names(exp); !slices.Equal(g, w) {
			t.Errorf("models\n got %q\nwant %q", g, w)
		}
	})

	for _, model := range []string{"scripted-good", "scripted-weak", "scripted-notools", "scripted-think"} {
		t.Run("show "+model, func(t *testing.T) {
			want := byName["POST /api/show "+model+" (capabilities, details, parameters)"].ResponseLines[0]
			status, body := h.post(t, "/api/show", `{"model":"`+model+`"}`)
			if status != 200 {
				t.Fatalf("status %d: %s", status, body)
			}
			var got, exp map[string]json.RawMessage
			json.Unmarshal([]byte(body), &got)
			json.Unmarshal([]byte(want), &exp)
			for k := range exp {
				if _, ok := got[k]; !ok {
					t.Errorf("key %q missing", k)
				}
			}
			for _, k := range []string{"capabilities", "parameters"} {
				if string(got[k]) != string(exp[k]) {
					t.Errorf("%s = %s, want %s", k, got[k], exp[k])
				}
			}
			if g, w := shape(t, string(got["details"])), shape(t, string(exp["details"])); g != w {
				t.Errorf("details shape %s, want %s", g, w)
			}
			var gi, ei map[string]any
			json.Unmarshal(got["model_info"], &gi)
			json.Unmarshal(exp["model_info"], &ei)
			if gi["general.architecture"] != ei["general.architecture"] {
				t.Errorf("general.architecture %v, want %v", gi["general.architecture"], ei["general.architecture"])
			}
		})
	}

	t.Run("ps", func(t *testing.T) {
		h.chat(t, &api.ChatRequest{Model: "scripted-good", Messages: user("Tell me a joke.")})
		_, _, body := h.get(t, "/api/ps")
		want := byName["GET /api/ps"].ResponseLines[0]
		if g, w := shape(t, body), shape(t, want); g != w {
			t.Errorf("shape\n got %s\nwant %s", g, w)
		}
	})
}

// shapeOfModels is the shape of a captured /api/tags body cut to n models.
func shapeOfModels(t *testing.T, raw string, n int) string {
	t.Helper()
	var v struct{ Models []any }
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		t.Fatal(err)
	}
	return shapeOf(map[string]any{"models": v.Models[:min(n, len(v.Models))]})
}
