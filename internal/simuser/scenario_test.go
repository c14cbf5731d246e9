package simuser

import (
	"context"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
	"github.com/toolgrade/toolgrade/fakes/rig"
	"github.com/toolgrade/toolgrade/internal/llm"
	"github.com/toolgrade/toolgrade/internal/mcpclient"
)

// turn runs one user turn as the runner does, on the notes server: the
// model calls tools until it answers; it returns the conversation grown by
// the turn and the calls made, as name(arguments).
func turn(t *testing.T, chat Chatter, cat *mcpclient.Catalog, model string, convo []api.Message, ask string) ([]api.Message, []string) {
	t.Helper()
	convo = append(convo, api.Message{Role: "user", Content: ask})
	var calls []string
	for range 4 {
		var msg api.Message
		err := chat.Chat(t.Context(), &api.ChatRequest{Model: model, Messages: convo, Tools: cat.OllamaTools()}, func(r api.ChatResponse) error {
			msg.Content += r.Message.Content
			msg.ToolCalls = append(msg.ToolCalls, r.Message.ToolCalls...)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		msg.Role = "assistant"
		convo = append(convo, msg)
		if len(msg.ToolCalls) == 0 {
			return convo, calls
		}
		for _, c := range msg.ToolCalls {
			args := c.Function.Arguments.String()
			calls = append(calls, c.Function.Name+args)
			ex := cat.Call(t.Context(), c.Function.Name, []byte(args), c.ID)
			convo = append(convo, api.Message{Role: "tool", Content: ex.Result, ToolName: c.Function.Name})
		}
	}
	t.Fatalf("%s still calls tools after 4 rounds", model)
	return nil, nil
}

// stateOf reads a note as a scenario's state check does.
func stateOf(t *testing.T, cat *mcpclient.Catalog, title string) string {
	t.Helper()
	return cat.Call(context.Background(), "read_note", []byte(`{"title":"`+title+`"}`), "check").Result
}

// TestDemoScenarios plays cases/scenarios.yaml's two scenarios with the
// demo script and the notes server, as a run does: each model in a notes
// store of its own. scripted-good saves the note and reads it back; the
// state check passes. scripted-weak saves the wrong text; the check fails.
// In the second, scripted-user writes the user's lines from its goal and
// ends the conversation.
func TestDemoScenarios(t *testing.T) {
	_, base := rig.Ollama(t, nil, nil)
	chat := &llm.StreamChatter{Base: base}
	for _, tc := range []struct {
		model, groceries, packing string
		said                      string
	}{
		{"scripted-good", "milk, eggs, bread", "passport, charger",
			"Please save a note called packing: passport, charger. | Great. What does it say now? | Perfect, thanks. (done)"},
		{"scripted-weak", "milk", "passport",
			"Please save a note called packing: passport, charger. | Great. What does it say now? | That is not what I asked for. Never mind. (done)"},
	} {
		cat := rig.Catalog(t, nil, "notes")
		var convo []api.Message
		convo, calls := turn(t, chat, cat, tc.model, convo, "Save a note titled groceries that says: milk, eggs, bread.")
		convo, more := turn(t, chat, cat, tc.model, convo, "What does my groceries note say?")
		calls = append(calls, more...)
		if got := strings.Join(calls, " "); !strings.HasPrefix(got, "add_note{") || !strings.HasSuffix(got, ` read_note{"title":"groceries"}`) {
			t.Errorf("%s: calls %s", tc.model, got)
		}
		if got := stateOf(t, cat, "groceries"); got != tc.groceries {
			t.Errorf("%s: the groceries note holds %q, want %q", tc.model, got, tc.groceries)
		}
		if len(convo) != 8 {
			t.Errorf("%s: %d messages after two turns, want 8", tc.model, len(convo))
		}

		cat = rig.Catalog(t, nil, "notes")
		u := &User{Chat: chat, Model: "scripted-user", Goal: "Have a note called packing list passport and charger, and hear it read back."}
		var said []string
		convo = nil
		for range 5 {
			msg, done, err := u.Next(t.Context(), convo)
			if err != nil {
				t.Fatal(err)
			}
			if done {
				said = append(said, msg+" (done)")
				break
			}
			said = append(said, msg)
			convo, _ = turn(t, chat, cat, tc.model, convo, msg)
		}
		if got := strings.Join(said, " | "); got != tc.said {
			t.Errorf("%s: the simulated user said %s\nwant %s", tc.model, got, tc.said)
		}
		if got := stateOf(t, cat, "packing"); got != tc.packing {
			t.Errorf("%s: the packing note holds %q, want %q", tc.model, got, tc.packing)
		}
	}
}
