package runner_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ollama/ollama/api"
	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/runner"
	"github.com/toolgrade/toolgrade/internal/suite"
)

// notesBox is a stateful toolbox of two tools, add_note and list_notes,
// for scenarios without a server: every trial of a test shares it.
type notesBox struct {
	mu    sync.Mutex
	notes []string
}

func (b *notesBox) OllamaTools() api.Tools {
	var tools api.Tools
	for _, name := range []string{"add_note", "list_notes"} {
		var tool api.Tool
		tool.Type = "function"
		tool.Function.Name = name
		tool.Function.Description = name
		tool.Function.Parameters.Type = "object"
		tools = append(tools, tool)
	}
	return tools
}

func (b *notesBox) Call(_ context.Context, name string, args json.RawMessage, id string) record.Execution {
	b.mu.Lock()
	defer b.mu.Unlock()
	ex := record.Execution{CallID: id, Name: name, Tool: name, Server: "notes", Arguments: record.Args(args)}
	switch name {
	case "add_note":
		var a struct{ Text string }
		json.Unmarshal(args, &a)
		b.notes = append(b.notes, a.Text)
		ex.Result = "added"
	case "list_notes":
		ex.Result = strings.Join(b.notes, "\n")
	default:
		ex.IsError, ex.ErrorKind, ex.Result = true, record.ExecUnknownTool, "no such tool"
	}
	return ex
}

func (b *notesBox) Resolve(name string) (string, bool) {
	name = strings.TrimPrefix(name, "notes.")
	return name, name == "add_note" || name == "list_notes"
}
func (b *notesBox) Names() []string                               { return []string{"add_note", "list_notes"} }
func (b *notesBox) ValidateArgs(string, json.RawMessage) error    { return nil }
func (b *notesBox) ValidatePartial(string, json.RawMessage) error { return nil }

// scriptedUser is a UserModel that says its lines in order, then that it
// is done, and keeps every conversation it was shown.
type scriptedUser struct {
	mu    sync.Mutex
	lines []string
	seen  [][]api.Message
	fail  error
}

func (u *scriptedUser) Next(_ context.Context, convo []api.Message) (string, bool, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.seen = append(u.seen, slices.Clone(convo))
	if u.fail != nil {
		return "", false, u.fail
	}
	i := len(u.seen) - 1
	if i >= len(u.lines) {
		return "", true, nil
	}
	return u.lines[i], false, nil
}

// notesScript: the model adds a note when asked to remember, lists the
// notes when asked what it remembers, and answers with the last tool
// result.
func notesScript() *fakeollama.Script {
	return &fakeollama.Script{
		Models: []fakeollama.Model{{Name: "scripted-good"}},
		Rules: []fakeollama.Rule{
			{User: &fakeollama.Matcher{Contains: "remember:"}, ToolResult: &fakeollama.Matcher{Regex: "^added$"}, Reply: fakeollama.Reply{Content: "Noted."}},
			{User: &fakeollama.Matcher{Contains: "remember:"}, Reply: fakeollama.Reply{ToolCalls: []fakeollama.ToolCall{fakeollama.Call("add_note", "text", "call mom")}}},
			{User: &fakeollama.Matcher{Contains: "what did"}, ToolResult: &fakeollama.Matcher{Contains: "call mom"}, Reply: fakeollama.Reply{Content: "You asked me to remember: call mom."}},
			{User: &fakeollama.Matcher{Contains: "what did"}, Reply: fakeollama.Reply{ToolCalls: []fakeollama.ToolCall{fakeollama.Call("list_notes")}}},
		},
		Fallback: &fakeollama.Reply{Content: "Hello."},
	}
}

func scenarioRig(t *testing.T) (*testRig, *notesBox) {
	t.Helper()
	r := newRig(t, notesScript(), nil, nil, "docs")
	box := &notesBox{}
	r.runner.Tools, r.runner.Catalog = box, box
	return r, box
}

// TestSimulatedUserTurns: a case with user: runs the turns a scripted
// UserModel writes, each with the whole conversation so far; the user
// model sees the user's and the assistant's words only; setup and checks
// run on the same tools; the turns are recorded, written by the user
// model, and the trial passes by its end state.
func TestSimulatedUserTurns(t *testing.T) {
	r, box := scenarioRig(t)
	s := parseWith(t, `
defaults: {system: "You keep notes."}
cases:
  - id: remember
    user: {goal: have the assistant remember to call mom, model: user-model}
    setup: [{tool: notes.add_note, args: {text: seed}}]
    check: [{tool: list_notes, result: {contains: call mom}}]
`, nil2(box))
	u := &scriptedUser{lines: []string{"Please remember: call mom", "And what did I ask you to remember?"}}
	var asked []*suite.Case
	cfg := runner.Config{Suite: s, Models: models(t, r, "scripted-good"),
		Users: func(c *suite.Case, _ *record.Trial) runner.UserModel { asked = append(asked, c); return u }}
	if _, err := r.runner.Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	trials := r.trials(t)
	if len(trials) != 1 {
		t.Fatalf("%d trials", len(trials))
	}
	tr := trials[0]
	x := tr.Transcript
	if tr.Score.Outcome != record.OutcomePass || tr.Score.State == nil || !*tr.Score.State {
		t.Fatalf("score %+v (%s)", tr.Score, tr.Score.Detail)
	}
	if len(x.Turns) != 2 || x.Turns[0].From != record.FromUserModel || x.Turns[1].User != "And what did I ask you to remember?" ||
		x.Turns[1].FirstRound != 2 || x.Turns[1].Answer != "You asked me to remember: call mom." || x.Answer != x.Turns[1].Answer {
		t.Fatalf("turns %+v", x.Turns)
	}
	if len(x.Setup) != 1 || x.Setup[0].Result != "added" || len(x.Checks) != 1 || !x.Checks[0].OK {
		t.Errorf("setup %+v, checks %+v", x.Setup, x.Checks)
	}
	if !slices.Equal(box.notes, []string{"seed", "call mom"}) {
		t.Errorf("notes %q", box.notes)
	}
	if len(asked) != 1 || asked[0].ID != "remember" {
		t.Errorf("Users asked for %v", asked)
	}
	// First message: nothing seen; second: the user's words and the
	// answer, no system prompt, no tool call or result; then done.
	if len(u.seen) != 3 || len(u.seen[0]) != 0 || len(u.seen[1]) != 2 || u.seen[1][1].Content != "Noted." || len(u.seen[2]) != 4 {
		t.Errorf("the user model saw %+v", u.seen)
	}
	// The second turn's first request carries the whole conversation:
	// system, user, the call, its result, the answer, the next user line.
	var sizes []int
	for _, req := range r.fake.Requests() {
		if req.Chat != nil && len(req.Chat.Tools) > 0 {
			sizes = append(sizes, len(req.Chat.Messages))
		}
	}
	if !slices.Equal(sizes, []int{2, 4, 6, 8}) {
		t.Errorf("messages per request %v, want [2 4 6 8]", sizes)
	}
}

// TestSimulatedUserEnds: the conversation ends at the user's turn limit
// when it never says it is done, and a user model that fails makes the
// trial an infrastructure error, never the model's.
func TestSimulatedUserEnds(t *testing.T) {
	r, _ := scenarioRig(t)
	s := parseWith(t, `
cases:
  - id: chatty
    user: {goal: chat, model: u, max_turns: 2, first: hi}
    check: [{tool: list_notes}]
  - id: broken
    user: {goal: chat, model: u}
    check: [{tool: list_notes}]
`, nil2(&notesBox{}))
	chatty := &scriptedUser{lines: []string{"hello again", "and again", "and again"}}
	broken := &scriptedUser{fail: errors.New("user model down")}
	cfg := runner.Config{Suite: s, Models: models(t, r, "scripted-good"), Retries: -1,
		Users: func(c *suite.Case, _ *record.Trial) runner.UserModel {
			if c.ID == "broken" {
				return broken
			}
			return chatty
		}}
	if _, err := r.runner.Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	for _, tr := range r.trials(t) {
		switch tr.CaseID {
		case "chatty":
			if n := len(tr.Transcript.Turns); n != 2 || tr.Transcript.Turns[0].From != record.FromCase || tr.Transcript.Turns[1].From != record.FromUserModel {
				t.Errorf("chatty: %d turns %+v", n, tr.Transcript.Turns)
			}
		case "broken":
			f := tr.Transcript.Failure
			if tr.Score.Outcome != record.OutcomeInfraError || f == nil || f.Kind != record.FailureUserModel || !strings.Contains(f.Message, "user model down") {
				t.Errorf("broken: %+v, failure %+v", tr.Score, f)
			}
		}
	}
}

// TestScenarioSetupFailureIsInfra: a setup call that fails stops the trial
// before the model is asked anything, as an infrastructure error.
func TestScenarioSetupFailureIsInfra(t *testing.T) {
	r, _ := scenarioRig(t)
	s := parseWith(t, `
cases:
  - id: s
    ask: "Please remember: call mom"
    setup: [{tool: add_note}, {tool: list_notes}]
    check: [{tool: list_notes}]
`, nil2(&notesBox{}))
	// The toolbox of setup and checks fails every call.
	r.runner.State = failingBox{}
	if _, err := r.runner.Run(context.Background(), runner.Config{Suite: s, Models: models(t, r, "scripted-good"), Retries: -1}); err != nil {
		t.Fatal(err)
	}
	tr := r.trials(t)[0]
	if f := tr.Transcript.Failure; tr.Score.Outcome != record.OutcomeInfraError || f == nil || f.Kind != record.FailureSetup ||
		f.Message != "setup call 1 (add_note) failed: boom" || len(tr.Transcript.Rounds) != 0 || len(tr.Transcript.Setup) != 1 {
		t.Errorf("score %+v, transcript %+v", tr.Score, tr.Transcript)
	}
}

type failingBox struct{}

func (failingBox) OllamaTools() api.Tools { return nil }
func (failingBox) Call(_ context.Context, name string, args json.RawMessage, id string) record.Execution {
	return record.Execution{Name: name, Arguments: args, IsError: true, ErrorKind: record.ExecToolError, Result: "boom"}
}

// TestNoUserModel: a simulated-user case with no Users is refused before
// any model loads.
func TestNoUserModel(t *testing.T) {
	r, _ := scenarioRig(t)
	s := parseWith(t, "cases:\n  - id: u\n    user: {goal: g, model: m}\n    check: [{tool: list_notes}]\n", nil2(&notesBox{}))
	_, err := r.runner.Run(context.Background(), runner.Config{Suite: s, Models: models(t, r, "scripted-good")})
	if err == nil || !strings.Contains(err.Error(), "inline.yaml:3:11: cases[0].user: no user model") {
		t.Fatalf("err = %v", err)
	}
	if n := len(r.fake.Requests()); n != 2 { // the models' check only
		t.Errorf("%d requests reached Ollama", n)
	}
}

// nil2 is b as the catalog a suite is checked against.
func nil2(b *notesBox) suite.Catalog { return b }

// parseWith parses yaml as inline.yaml and checks it against cat.
func parseWith(t *testing.T, yaml string, cat suite.Catalog) *suite.Suite {
	t.Helper()
	s, err := suite.Parse([]byte(yaml), "inline.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Check(cat); err != nil {
		t.Fatal(err)
	}
	return s
}
