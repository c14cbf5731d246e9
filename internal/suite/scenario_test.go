package suite

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParseScenario(t *testing.T) {
	s, err := Parse([]byte(`
defaults:
  user_model: qwen3:8b
  setup: [{tool: fs.write_file, args: {path: notes.txt, content: ""}}]
  check: [{tool: fs.list_directory, args: {path: .}}]
cases:
  - id: note
    setup: [{tool: fs.create_directory, args: {path: old}}]
    turns:
      - ask: Write "buy milk" into notes.txt
        expect: {tool: write_file, args: {path: {contains: notes.txt}}}
      - ask: And what does it say now?
    check:
      - tool: fs.read_text_file
        args: {path: notes.txt}
        result: {contains: buy milk}
  - id: goal
    user: {goal: get the note written, persona: terse, first: hi}
    check: [{tool: fs.read_text_file, args: {path: notes.txt}, result: {regex: milk}}]
  - id: plain
    ask: hi
    expect: {no_tool: true}
`), "s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	note := s.Case("note")
	if !note.IsScenario() || !note.ExpectNone || len(note.Turns) != 2 || note.Turns[1].Expect != nil || note.Turns[0].Expect.Calls[0].Tool != "write_file" {
		t.Fatalf("note: %+v", note)
	}
	if len(note.Messages) != 1 || note.Messages[0].Content != `Write "buy milk" into notes.txt` {
		t.Errorf("note's first message %+v", note.Messages)
	}
	var tools []string
	for _, c := range append(append([]StateCall(nil), note.Setup...), note.Checks...) {
		tools = append(tools, c.Tool+" "+c.Field+" "+string(c.Args))
	}
	want := `fs.write_file defaults.setup[0] {"content":"","path":"notes.txt"}|fs.create_directory cases[0].setup[0] {"path":"old"}|` +
		`fs.read_text_file cases[0].check[0] {"path":"notes.txt"}|fs.list_directory defaults.check[0] {"path":"."}`
	if got := strings.Join(tools, "|"); got != want {
		t.Errorf("setup then checks:\n got %s\nwant %s", got, want)
	}
	goal := s.Case("goal")
	if u := goal.User; u == nil || u.Model != "qwen3:8b" || u.MaxTurns != DefaultMaxTurns || u.Persona != "terse" || goal.Messages[0].Content != "hi" {
		t.Errorf("goal's user %+v, messages %+v", goal.User, goal.Messages)
	}
	// The defaults' setup and checks make every case a scenario.
	if !s.Case("plain").IsScenario() || s.Case("plain").ExpectNone {
		t.Errorf("plain: %+v", s.Case("plain"))
	}
	// An edited turn, check or user changes the case's hash.
	before := s.CaseHash(note)
	note.Turns[1].Ask = "And now?"
	if s.CaseHash(note) == before {
		t.Error("a changed turn kept the case's hash")
	}
	var args map[string]any
	if err := json.Unmarshal(note.Setup[0].Args, &args); err != nil || args["content"] != "" {
		t.Errorf("setup args %s", note.Setup[0].Args)
	}
}

func TestParseScenarioErrors(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"ask and turns", `
cases:
  - id: a
    ask: hi
    turns: [{ask: hello}]
    expect: {no_tool: true}
`, `s.yaml:5:5: cases[0].turns: turns: gives the whole conversation, and so does ask: at line 4; keep one (a first fixed message goes in turns[0].ask or user.first)`},
		{"turns and user", `
cases:
  - id: a
    turns: [{ask: hello, expect: {no_tool: true}}]
    user: {goal: g, model: m}
`, `s.yaml:5:5: cases[0].user: a simulated user writes the turns itself; give turns: (fixed messages) or user: (a goal), not both`},
		{"nothing to judge", `
cases:
  - id: a
    turns: [{ask: hello}, {ask: again}]
`, `s.yaml:3:5: cases[0].expect: missing; a scenario needs something to judge it by: an expect (per turn or for the case) or check: [{tool: ..., result: ...}]`},
		{"turn ask list", `
cases:
  - id: a
    turns: [{ask: [{role: user, content: hi}]}]
    check: [{tool: t}]
`, `s.yaml:4:19: cases[0].turns[0].ask: a turn's ask is one message (a string); earlier turns are the conversation so far`},
		{"turn key typo", `
cases:
  - id: a
    turns: [{ask: hi, expct: {no_tool: true}}]
    check: [{tool: t}]
`, `s.yaml:4:23: cases[0].turns[0]: unknown key "expct" (did you mean "expect"?)`},
		{"turn max_rounds", `
cases:
  - id: a
    turns: [{ask: hi, expect: {no_tool: true, max_rounds: 2}}]
`, `s.yaml:4:59: cases[0].turns[0].expect.max_rounds: a round limit is the case's, for every turn: set max_rounds on the case`},
		{"setup result", `
cases:
  - id: a
    ask: hi
    setup: [{tool: t, result: {contains: x}}]
    check: [{tool: t}]
`, `s.yaml:5:23: cases[0].setup[0]: unknown key "result" (known keys: tool, args) (a setup call's result is not checked: a failing setup call fails the trial as infrastructure; put checks in check:)`},
		{"check judge", `
cases:
  - id: a
    ask: hi
    check: [{tool: t, result: {judge: says milk}}]
`, `s.yaml:5:32: cases[0].check[0].result: unknown key "judge" (known keys: contains, regex, one_of) (a state check is matched, not judged)`},
		{"check args not a mapping", `
cases:
  - id: a
    ask: hi
    check: [{tool: t, args: [notes.txt]}]
`, `s.yaml:5:29: cases[0].check[0].args: must be a mapping of the call's arguments, not a list`},
		{"check without tool", `
cases:
  - id: a
    ask: hi
    check: [{args: {path: x}}]
`, `s.yaml:5:13: cases[0].check[0].tool: missing; name the tool to call (plain, or server.tool)`},
		{"user without model", `
cases:
  - id: a
    user: {goal: g}
    check: [{tool: t}]
`, `s.yaml:4:11: cases[0].user.model: missing; name the user model here (model: qwen3:8b) or for every case in defaults.user_model`},
		{"user typo and turns", `
cases:
  - id: a
    user: {goal: g, model: m, max_turn: 3}
    check: [{tool: t}]
`, `s.yaml:4:31: cases[0].user: unknown key "max_turn" (did you mean "max_turns"?)`},
		{"user max_turns", `
cases:
  - id: a
    user: {goal: g, model: m, max_turns: 0}
    check: [{tool: t}]
`, `s.yaml:4:42: cases[0].user.max_turns: must be between 1 and 50, not 0`},
		{"scenario without execution", `
defaults: {execute: false}
cases:
  - id: a
    ask: hi
    check: [{tool: t}]
`, `s.yaml:4:5: cases[0].execute: a scenario runs its tools (its turns and checks rest on them); remove execute: false`},
		{"defaults setup typo", `
defaults:
  setup: [{tol: t}]
cases:
  - {id: a, ask: hi, expect: {no_tool: true}}
`, `s.yaml:3:12: defaults.setup[0]: unknown key "tol" (did you mean "tool"?)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.src), "s.yaml")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error:\n%v\nwant it to hold:\n%s", err, c.want)
			}
		})
	}
}

// TestCheckStateCalls: setup and check calls name tools of the catalog
// (with did you mean) and send arguments that fit them, each at its place.
func TestCheckStateCalls(t *testing.T) {
	s, err := Parse([]byte(`
defaults:
  check: [{tool: serch, args: {query: x}}]
cases:
  - id: a
    ask: hi
    setup: [{tool: search, args: {top_k: "ten"}}]
  - id: b
    ask: hi
    check: [{tool: search, args: {query: x}, result: {contains: y}}]
  - id: c
    ask: hi
    check: [{tool: search, result: {contains: y}}]
`), "s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	err = s.Check(newFakeCatalog(t))
	got := ""
	if err != nil {
		got = err.Error()
	}
	for _, want := range []string{
		`s.yaml:3:18: defaults.check[0].tool: unknown tool "serch" (did you mean "search"?`,
		`s.yaml:7:20: cases[0].setup[0].args.top_k: must be an integer, got the string "ten"`,
		`s.yaml:13:20: cases[2].check[0].args: the arguments {} leave out query, which the tool search requires`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("errors:\n%s\nwant one holding:\n%s", got, want)
		}
	}
	if strings.Contains(got, "strict_args") {
		t.Errorf("a setup or check call's arguments are sent, not expected, yet the error speaks of strict_args:\n%s", got)
	}
	if strings.Count(got, "serch") != 1 {
		t.Errorf("the defaults' check is reported once per case:\n%s", got)
	}
	if s.Cases[1].Checks[0].Exposed != "search" {
		t.Errorf("Exposed %q", s.Cases[1].Checks[0].Exposed)
	}
}
