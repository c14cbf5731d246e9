package simuser

import (
	"context"
	"errors"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/fakes/rig"
	"github.com/toolgrade/toolgrade/internal/llm"
)

// userScript plays a user model "u" that asks to save a note, then to read
// it back, and ends once the assistant has said what it holds; "raw" says
// its lines in the ways the lenient reader accepts.
const userScript = `
models:
  - {name: u, capabilities: [completion]}
  - {name: raw, capabilities: [completion]}
rules:
  - {model: u, user: {contains: milk}, reply: {user_reply: {message: Thanks., done: true}}}
  - {model: u, user: {contains: saved}, reply: {user_reply: {message: "And what does it say?"}, chunks: 2}}
  - {model: u, turn: 1, reply: {user_reply: {message: Please note milk under groceries.}}}
  - {model: raw, user: {contains: fence}, reply: {content: "Sure:\n` + "```json\\n{\\\"message\\\": \\\"from a fence\\\", \\\"done\\\": false}\\n```" + `"}}
  - {model: raw, user: {contains: stop}, reply: {content: "<think>the goal is met</think>###STOP###"}}
  - {model: raw, user: {contains: empty}, reply: {content: "  "}}
  - {model: raw, user: {contains: crash}, fault: http_500}
  - {model: raw, reply: {content: "\"Just plain words.\""}}
`

// fake serves userScript and returns a User of model over it, with a clock
// that moves 250ms a reading, and the turns it was told of.
func fake(t testing.TB, model string) (*User, *fakeollama.Server, *[]Turn) {
	t.Helper()
	s, err := fakeollama.ParseScript([]byte(userScript), "users.yaml")
	if err != nil {
		t.Fatal(err)
	}
	srv, base := rig.Ollama(t, s, nil)
	var turns []Turn
	clock := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	u := &User{
		Chat:    &llm.StreamChatter{Base: base},
		Model:   model,
		Goal:    "Have the assistant save a note titled groceries saying milk, then read it back.",
		Persona: "A busy parent who types tersely.",
		Options: map[string]any{"seed": int64(7), "temperature": 0.7},
		OnTurn:  func(tr Turn) { turns = append(turns, tr) },
		Now:     func() time.Time { clock = clock.Add(250 * time.Millisecond); return clock },
	}
	return u, srv, &turns
}

// TestConversation: the user model writes the user's lines turn by turn
// and ends when the goal is met; each request has the goal and persona in
// its system prompt, the greeting, the roles swapped, no tools, the format
// and the options; each turn's cost is told.
func TestConversation(t *testing.T) {
	u, srv, turns := fake(t, "u")
	var convo []api.Message
	var said []string
	for range 5 {
		msg, done, err := u.Next(t.Context(), convo)
		if err != nil {
			t.Fatal(err)
		}
		said = append(said, msg)
		if done {
			break
		}
		answer := map[int]string{0: "Saved.", 1: "It says milk."}[len(said)-1]
		convo = append(convo, api.Message{Role: "user", Content: msg},
			api.Message{Role: "assistant", ToolCalls: []api.ToolCall{{Function: api.ToolCallFunction{Name: "add_note"}}}},
			api.Message{Role: "tool", Content: "Saved note"},
			api.Message{Role: "assistant", Content: answer})
	}
	if got := strings.Join(said, " | "); got != "Please note milk under groceries. | And what does it say? | Thanks." {
		t.Fatalf("the user said: %s", got)
	}

	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	last := reqs[2].Chat
	var roles []string
	for _, m := range last.Messages {
		roles = append(roles, m.Role+":"+m.Content)
	}
	want := []string{"user:" + Greeting, "assistant:Please note milk under groceries.", "user:Saved.", "assistant:And what does it say?", "user:It says milk."}
	if got := strings.Join(roles[1:], "\n"); got != strings.Join(want, "\n") {
		t.Errorf("the user model's conversation:\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}
	sys := last.Messages[0]
	if sys.Role != "system" || !strings.Contains(sys.Content, "Your goal: Have the assistant save a note") || !strings.Contains(sys.Content, "Who you are: A busy parent") {
		t.Errorf("system prompt:\n%s", sys.Content)
	}
	if len(last.Tools) != 0 || string(last.Format) != Format || last.Options["seed"] != float64(7) || last.Options["temperature"] != 0.7 {
		t.Errorf("request: tools %v, format %s, options %v", last.Tools, last.Format, last.Options)
	}

	if len(*turns) != 3 {
		t.Fatalf("%d turns told, want 3", len(*turns))
	}
	for i, tr := range *turns {
		if tr.Model != "u" || tr.PromptTokens <= 0 || tr.EvalTokens <= 0 || tr.Latency != 250*time.Millisecond || tr.Error != "" || tr.Read != "" {
			t.Errorf("turn %d: %+v", i+1, tr)
		}
	}
	if tr := (*turns)[2]; !tr.Done || tr.Raw != `{"message": "Thanks.", "done": true}` {
		t.Errorf("last turn %+v", tr)
	}
}

// TestFirst: a fixed first message is the user's first line without a
// request; the model writes the rest.
func TestFirst(t *testing.T) {
	u, srv, turns := fake(t, "u")
	u.First = "Note milk under groceries, please."
	msg, done, err := u.Next(t.Context(), nil)
	if msg != u.First || done || err != nil || len(srv.Requests()) != 0 || len(*turns) != 0 {
		t.Fatalf("first: %q %v %v, %d requests", msg, done, err, len(srv.Requests()))
	}
	msg, _, err = u.Next(t.Context(), []api.Message{{Role: "user", Content: msg}, {Role: "assistant", Content: "Saved."}})
	if msg != "And what does it say?" || err != nil {
		t.Fatalf("second: %q %v", msg, err)
	}
}

// TestLenientReplies: a user model that ignores the format still speaks:
// a fenced object, a stop word after thinking, plain words.
func TestLenientReplies(t *testing.T) {
	u, _, turns := fake(t, "raw")
	for _, tc := range []struct {
		said, msg string
		done      bool
		how       string
	}{
		{"put it in a fence", "from a fence", false, ReadFence},
		{"you may stop", "", true, ReadStop},
		{"anything", "Just plain words.", false, ReadText},
	} {
		msg, done, err := u.Next(t.Context(), []api.Message{{Role: "user", Content: "hi"}, {Role: "assistant", Content: tc.said}})
		if err != nil || msg != tc.msg || done != tc.done {
			t.Errorf("after %q: %q, done %v, %v; want %q, done %v", tc.said, msg, done, err, tc.msg, tc.done)
		}
		if tr := (*turns)[len(*turns)-1]; tr.Read != tc.how {
			t.Errorf("after %q: read as %q, want %q", tc.said, tr.Read, tc.how)
		}
	}
}

// TestErrors: each failure says what happened and what to do, in Ollama's
// own words, and still unwraps to its cause; the turn records it.
func TestErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := &url.URL{Scheme: "http", Host: ln.Addr().String()}
	ln.Close()

	missing, _, _ := fake(t, "nope")
	crash, _, _ := fake(t, "raw")
	empty, _, turns := fake(t, "raw")
	down, _, _ := fake(t, "u")
	down.Chat = &llm.StreamChatter{Base: closed}
	for _, tc := range []struct {
		name  string
		u     *User
		said  string
		want  []string
		cause func(error) bool
	}{
		{"not pulled", missing, "hi", []string{`the simulated user's model "nope" is not on Ollama (model 'nope' not found)`, "run: ollama pull nope", "defaults.user_model"},
			func(err error) bool { var se api.StatusError; return errors.As(err, &se) && se.StatusCode == 404 }},
		{"crashed", crash, "crash", []string{`the simulated user's model "raw" failed on Ollama: llama runner process has terminated: exit status 2`},
			func(err error) bool { var se api.StatusError; return errors.As(err, &se) && se.StatusCode == 500 }},
		{"no message", empty, "empty", []string{`the simulated user's model "raw": the user model's reply has no message`},
			func(err error) bool { var nm *NoMessageError; return errors.As(err, &nm) }},
		{"unreachable", down, "hi", []string{`cannot reach Ollama for the simulated user's model "u": dial tcp ` + closed.Host, "ollama serve"},
			func(err error) bool { var ue *url.Error; return errors.As(err, &ue) }},
	} {
		msg, done, err := tc.u.Next(t.Context(), []api.Message{{Role: "user", Content: "x"}, {Role: "assistant", Content: tc.said}})
		if err == nil || msg != "" || done {
			t.Errorf("%s: %q, %v, %v; want an error", tc.name, msg, done, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", tc.name, err, w)
			}
		}
		if !tc.cause(err) {
			t.Errorf("%s: error %v does not unwrap to its cause", tc.name, err)
		}
	}
	if tr := (*turns)[0]; !strings.Contains(tr.Error, "has no message") || tr.Raw != "  " {
		t.Errorf("the failed turn: %+v", tr)
	}
}

// TestCancelled: a cancelled context is the error, not a message.
func TestCancelled(t *testing.T) {
	u, _, _ := fake(t, "u")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, _, err := u.Next(ctx, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
}

// TestMessagesHideTheTools: the user model never sees a system prompt,
// a tool call or a tool result of the assistant's.
func TestMessagesHideTheTools(t *testing.T) {
	msgs := Messages("g", "", []api.Message{
		{Role: "system", Content: "be brief"},
		{Role: "user", Content: "q"},
		{Role: "assistant", ToolCalls: []api.ToolCall{{Function: api.ToolCallFunction{Name: "secret_tool"}}}},
		{Role: "tool", Content: "secret result"},
		{Role: "assistant", Content: "a"},
	})
	var b strings.Builder
	for _, m := range msgs[1:] {
		b.WriteString(m.Role + ":" + m.Content + "\n")
	}
	if got := b.String(); got != "user:"+Greeting+"\nassistant:q\nuser:a\n" {
		t.Errorf("messages:\n%s", got)
	}
	if strings.Contains(msgs[0].Content, "Who you are") {
		t.Error("an empty persona is in the prompt")
	}
}

// TestTrialSeed: one trial, one seed, on every run; repeats and cases
// differ; never negative.
func TestTrialSeed(t *testing.T) {
	a := TrialSeed(42, "notes", 0)
	if a != TrialSeed(42, "notes", 0) || a < 0 {
		t.Fatalf("TrialSeed is %d, then %d", a, TrialSeed(42, "notes", 0))
	}
	seen := map[int64]bool{a: true}
	for _, s := range []int64{TrialSeed(42, "notes", 1), TrialSeed(42, "notes2", 0), TrialSeed(43, "notes", 0)} {
		if seen[s] || s < 0 {
			t.Errorf("seed %d repeats or is negative", s)
		}
		seen[s] = true
	}
}
