package fakeollama

import (
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
)

// conversationScript plays a two-turn conversation by the keys turn and
// turn_result, and a user model by user_reply.
const conversationScript = `
models:
  - {name: m}
  - {name: u, capabilities: [completion]}
rules:
  - {model: m, turn: 2, turn_result: {regex: .}, reply: {content: "It says milk."}}
  - {model: m, turn: 2, reply: {tool_calls: [{name: read_note, arguments: {title: groceries}}]}}
  - {model: m, turn: 1, turn_result: {regex: .}, reply: {content: Saved.}}
  - {model: m, turn: 1, reply: {tool_calls: [{name: add_note, arguments: {title: groceries, text: milk}}]}}
  - {model: u, user: {contains: says milk}, reply: {user_reply: {done: true}}}
  - {model: u, turn: 1, reply: {user_reply: {message: "Note «milk» under groceries."}, chunks: 3}}
  - {model: u, reply: {user_reply: {message: "And what does it say?"}}}
`

var noteTools = api.Tools{tool("add_note"), tool("read_note")}

func tool(name string) api.Tool {
	t := api.Tool{Type: "function"}
	t.Function.Name = name
	return t
}

// TestTurns: turn counts the user messages and turn_result sees only the
// tool messages after the last one, so the second question is answered by
// its own call, not by the first turn's result.
func TestTurns(t *testing.T) {
	s, err := ParseScript([]byte(conversationScript), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, s, nil)
	call := api.Message{Role: "assistant", ToolCalls: []api.ToolCall{{Function: api.ToolCallFunction{Name: "add_note"}}}}
	steps := []struct {
		msgs []api.Message
		want string
	}{
		{user("Note milk under groceries."), "call add_note"},
		{append(user("Note milk under groceries."), call, api.Message{Role: "tool", Content: "added"}), "Saved."},
		{append(user("Note milk under groceries."), call, api.Message{Role: "tool", Content: "added"},
			api.Message{Role: "assistant", Content: "Saved."}, api.Message{Role: "user", Content: "What does it say?"}), "call read_note"},
		{append(user("Note milk under groceries."), call, api.Message{Role: "tool", Content: "added"},
			api.Message{Role: "assistant", Content: "Saved."}, api.Message{Role: "user", Content: "What does it say?"},
			api.Message{Role: "assistant", ToolCalls: []api.ToolCall{{Function: api.ToolCallFunction{Name: "read_note"}}}},
			api.Message{Role: "tool", Content: "milk"}), "It says milk."},
	}
	for i, st := range steps {
		ex := h.chat(t, &api.ChatRequest{Model: "m", Messages: st.msgs, Tools: noteTools, Stream: ptr(false)})
		got := ex.resps[0].Message.Content
		if calls := ex.resps[0].Message.ToolCalls; len(calls) > 0 {
			got = "call " + calls[0].Function.Name
		}
		if ex.err != nil || got != st.want {
			t.Errorf("step %d: %q (%v), want %q", i+1, got, ex.err, st.want)
		}
	}
}

// TestUserReply: a user model answers the structured object, as a model
// writes JSON (its own characters unescaped), streamed like any content;
// its rules match the assistant's words, which come as user messages.
func TestUserReply(t *testing.T) {
	s, err := ParseScript([]byte(conversationScript), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, s, nil)
	greeting := user("Hi! How can I help you today?")
	for _, tc := range []struct {
		msgs []api.Message
		want string
	}{
		{greeting, `{"message": "Note «milk» under groceries.", "done": false}`},
		{append(greeting, api.Message{Role: "assistant", Content: "Note milk."}, api.Message{Role: "user", Content: "Saved."}),
			`{"message": "And what does it say?", "done": false}`},
		{append(greeting, api.Message{Role: "assistant", Content: "Note milk."}, api.Message{Role: "user", Content: "It says milk."}),
			`{"message": "", "done": true}`},
	} {
		ex := h.chat(t, &api.ChatRequest{Model: "u", Messages: tc.msgs, Format: []byte(`{"type":"object"}`)})
		var b strings.Builder
		for _, r := range ex.resps {
			b.WriteString(r.Message.Content)
		}
		if ex.err != nil || b.String() != tc.want {
			t.Errorf("user model said %s (%v), want %s", b.String(), ex.err, tc.want)
		}
	}
}

// TestConversationKeyErrors: the new keys' mistakes at file:line:col.
func TestConversationKeyErrors(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{"models: [{name: m}]\nrules:\n  - turn: -1\n", "t.yaml:3:11: rules[0].turn: must not be negative (0 means any turn)"},
		{"models: [{name: m}]\nrules:\n  - turn_result: {}\n", "t.yaml:3:18: rules[0].turn_result: give contains, regex or equals"},
		{"models: [{name: m}]\nrules:\n  - reply: {user_reply: {}}\n", "t.yaml:3:25: rules[0].reply.user_reply: give a message, or done: true to end the conversation"},
		{"models: [{name: m}]\nrules:\n  - reply: {content: x, user_reply: {done: true}}\n", "t.yaml:3:37: rules[0].reply.user_reply: give user_reply or content and tool_calls, not both"},
		{"models: [{name: m}]\nrules:\n  - reply: {user_reply: {mesage: hi}}\n", `t.yaml:3:26: rules[0].reply.user_reply: unknown field "mesage" (did you mean "message"?)`},
		{"models: [{name: m}]\nrules:\n  - turn_reslt: {regex: .}\n", `t.yaml:3:5: rules[0]: unknown field "turn_reslt" (did you mean "turn_result"?)`},
	} {
		_, err := ParseScript([]byte(c.yaml), "t.yaml")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.yaml, err, c.want)
		}
	}
}
