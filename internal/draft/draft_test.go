package draft

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/suite"
)

// TestDraftOneSkips: the conversations no case can be drafted from, each
// with the reason a reviewer reads.
func TestDraftOneSkips(t *testing.T) {
	dog := call("search", `{"query":"dog"}`)
	for _, c := range []struct {
		name string
		edit func(*record.Transcript)
		want string
	}{
		{"Ollama down before any response", func(t *record.Transcript) {
			t.Rounds = nil
			t.Failure = &record.Failure{Kind: record.FailureOllama, Message: "connection refused"}
		}, `infrastructure failure before the first response: ollama: "connection refused"`},
		{"the first response broke", func(t *record.Transcript) {
			t.Rounds = t.Rounds[:1]
			t.Rounds[0].Response = record.Response{Failure: &record.Failure{Kind: record.FailureStream, Message: "no done line"}}
			t.Failure = t.Rounds[0].Response.Failure
		}, `infrastructure failure before the first response: stream: "no done line"`},
		{"no rounds at all", func(t *record.Transcript) { t.Rounds = nil }, "no response was recorded"},
		{"no tools offered", func(t *record.Transcript) { t.Rounds[0].Request.ToolsSent = false }, "the first request offered no tools"},
		{"a client's own tool", func(t *record.Transcript) {
			t.Rounds = t.Rounds[:1]
			t.Rounds[0].Executions = nil
		}, "the model called tools of the client's own (search), which a suite cannot expect"},
		{"a tool no server has", func(t *record.Transcript) {
			t.Rounds[0].Executions[0].IsError = true
			t.Rounds[0].Executions[0].ErrorKind = record.ExecUnknownTool
		}, `the model called "search", which no server has`},
		{"opens with tool results", func(t *record.Transcript) {
			t.Messages = append(t.Messages[:1], record.Message{Role: "assistant", ToolCalls: []record.ToolCall{dog}},
				record.Message{Role: "tool", Content: "x"}, record.Message{Role: "user", Content: "and?"})
		}, "it opens with tool calls or results of an earlier exchange, which a case cannot hold"},
		{"the assistant speaks last", func(t *record.Transcript) {
			t.Messages = append(t.Messages, record.Message{Role: "assistant", Content: "Sure:"})
		}, "the last opening message is not the user's"},
		{"an empty turn", func(t *record.Transcript) { t.Messages[1].Content = "  " }, "message 2 (user) has no text"},
		{"a second system message", func(t *record.Transcript) {
			t.Messages = append(t.Messages, record.Message{Role: "system", Content: "x"}, record.Message{Role: "user", Content: "y"})
		}, "message 3 is a system message after the first, which a case cannot hold"},
		{"arguments not an object", func(t *record.Transcript) {
			t.Rounds[0].Response.ToolCalls[0].Arguments = json.RawMessage(`"dog"`)
		}, `the arguments of search are not a JSON object: "\"dog\""`},
		{"an argument without a name", func(t *record.Transcript) {
			t.Rounds[0].Response.ToolCalls[0].Arguments = json.RawMessage(`{"":1}`)
		}, "the arguments of search cannot be written as a case's: an argument has an empty name"},
		{"a number past 64 bits", func(t *record.Transcript) {
			t.Rounds[0].Response.ToolCalls[0].Arguments = json.RawMessage(`{"n":1e999}`)
		}, "the arguments of search cannot be written as a case's: number 1e999 does not fit in 64 bits"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cv := conv(1, "m", "Can I bring my dog?", dog)
			c.edit(cv.Transcript)
			d, why := draftOne(cv)
			if d != nil || why != c.want {
				t.Errorf("draftOne = %v, %q; want nil, %q", d, why, c.want)
			}
		})
	}
}

// TestDraftOneKeeps: conversations that went wrong after the first
// response are drafted, with a note saying what went wrong.
func TestDraftOneKeeps(t *testing.T) {
	dog := call("search", `{"q":"dog"}`)
	for _, c := range []struct {
		name   string
		edit   func(*record.Transcript)
		expect string
		notes  []string
	}{
		{"a failed call", func(t *record.Transcript) {
			ex := &t.Rounds[0].Executions[0]
			ex.IsError, ex.ErrorKind, ex.Error = true, record.ExecInvalidArgs, `unexpected additional properties ["q"]`
		}, `search({"q":"dog"})`, []string{`its call search failed (invalid_args: "unexpected additional properties [\"q\"]"): check the expected arguments`}},
		{"the round limit", func(t *record.Transcript) { t.RoundLimitHit = true }, `search({"q":"dog"})`, []string{"it hit the round limit (4)"}},
		{"Ollama gone after the first response", func(t *record.Transcript) {
			t.Rounds[1].Response = record.Response{Failure: &record.Failure{Kind: record.FailureOllama, Message: "EOF"}}
			t.Failure = t.Rounds[1].Response.Failure
		}, `search({"q":"dog"})`, []string{`it ended in an infrastructure failure after the first response: ollama: "EOF"`}},
		{"not executed", func(t *record.Transcript) {
			t.NotExecuted = true
			t.Rounds = t.Rounds[:1]
			t.Rounds[0].Executions = nil
		}, `search({"q":"dog"})`, nil},
		{"no arguments", func(t *record.Transcript) { t.Rounds[0].Response.ToolCalls[0].Arguments = nil }, `search({})`, nil},
		{"a call written as text", func(t *record.Transcript) {
			t.Rounds = t.Rounds[:1]
			t.Rounds[0].Executions = nil
			t.Rounds[0].Response = record.Response{Content: `{"name": "search", "arguments": {"query": "wifi"}}`}
		}, "no tool", []string{"its answer holds a tool call written as text, which no_tool: true fails: expect the call it meant, unless no tool fits the question"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cv := conv(1, "m", "Can I bring my dog?", dog)
			c.edit(cv.Transcript)
			d, why := draftOne(cv)
			if d == nil {
				t.Fatalf("skipped: %s", why)
			}
			if d.expect.String() != c.expect || d.expect.FirstOnly != (d.expect.Calls != nil) || !cmp.Equal(d.notes, c.notes) {
				t.Errorf("expect %s (first only %v), notes %q; want %s, %q", d.expect, d.expect.FirstOnly, d.notes, c.expect, c.notes)
			}
		})
	}
}

// TestDraftOneForms: one call is the tool: form; several in the first
// response the calls: form with every call of the conversation, in any
// order only when all came at once.
func TestDraftOneForms(t *testing.T) {
	hours, menu := call("get_document", `{"name":"hours.txt"}`), call("get_document", `{"name":"menu.txt"}`)
	parallel := conv(1, "m", "Hours and menu", hours, menu)
	d, _ := draftOne(parallel)
	if d.expect.FirstOnly || !d.expect.AnyOrder || len(d.expect.Calls) != 2 {
		t.Errorf("parallel calls: %+v", d.expect)
	}
	chained := conv(1, "m", "Hours and menu, then search", hours, menu)
	chained.Transcript.Rounds[1].Response.ToolCalls = []record.ToolCall{call("search", `{"query":"x"}`)}
	chained.Transcript.Rounds[1].Executions = []record.Execution{{Name: "search", Result: "ok"}}
	d, _ = draftOne(chained)
	if d.expect.FirstOnly || d.expect.AnyOrder || d.expect.String() != `get_document({"name":"hours.txt"}), get_document({"name":"menu.txt"}), search({"query":"x"})` {
		t.Errorf("parallel then chained: %+v %s", d.expect, d.expect)
	}
	one := conv(1, "m", "Hours", hours)
	one.Transcript.Rounds[1].Response.ToolCalls = []record.ToolCall{menu}
	d, _ = draftOne(one)
	if !d.expect.FirstOnly || d.expect.String() != `get_document({"name":"hours.txt"})` {
		t.Errorf("one call first, another later: %+v", d.expect)
	}
}

// TestArgsRoundTrip: whatever a model sends, the literal written reads
// back, through suite.Parse, as the same JSON value.
func TestArgsRoundTrip(t *testing.T) {
	for _, args := range []string{
		`{"query":"dog","top_k":5}`,
		`{"s":"true","n":"5","z":"null","y":"yes","colon":"a: b","hash":"# x","dash":"- x","brace":"{x}","empty":""}`,
		`{"f":1.5,"g":1.0,"e":1e3,"neg":-0.25,"big":12345678901234567890,"null":null,"b":false}`,
		`{"nested":{"contains":"dog"}}`,
		`{"list":[{"regex":"x"},1]}`,
		`{"deep":{"a":[{"b":{"one_of":[1]}}]}}`,
		`{"equals":1,"contains":"x"}`,
		`{"near":{"regexp":"x"}}`,
		`{"multi":"line one\nline two\n","tab":"a\tb","unicode":"café ☕"}`,
		`{"dup":1,"dup":2}`,
		`{"long":"` + strings.Repeat("word ", 30) + `","list":[1,2,3],"obj":{"k":"v"}}`,
		`{"true":1,"1":2,"null":3}`,
	} {
		t.Run(args, func(t *testing.T) {
			d := Build([]Conversation{conv(1, "m", "Q?", call("search", args))}, nil)
			s, text := parsed(t, d)
			got := s.Cases[0].Expect.Calls[0].Args
			want := map[string]any{}
			if err := json.Unmarshal([]byte(args), &want); err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("%d arguments, want %d:\n%s", len(got), len(want), text)
			}
			for _, m := range got {
				if m.Kind != suite.MatchEquals {
					t.Fatalf("argument %s reads as a %s matcher:\n%s", m.Key, m.Kind, text)
				}
				a, _ := json.Marshal(m.Value)
				b, _ := json.Marshal(want[m.Key])
				if string(a) != string(b) {
					t.Errorf("argument %s = %s, want %s:\n%s", m.Key, a, b, text)
				}
			}
		})
	}
}

func TestArgsKeepTheModelsOrder(t *testing.T) {
	n, err := argsNode(json.RawMessage(`{"z":1,"a":2,"m":3}`))
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for i := 0; i < len(n.Content); i += 2 {
		keys = append(keys, n.Content[i].Value)
	}
	if !cmp.Equal(keys, []string{"z", "a", "m"}) {
		t.Errorf("keys %v, want the order sent", keys)
	}
}

func TestLiftSystem(t *testing.T) {
	a, b := conv(1, "m", "A?"), conv(2, "m", "B?")
	d := Build([]Conversation{a, b}, nil)
	if d.System != "You help." || len(d.Cases[0].Messages) != 1 {
		t.Errorf("a shared system prompt: System %q, messages %+v", d.System, d.Cases[0].Messages)
	}
	b.Transcript.Messages[0].Content = "Other."
	d = Build([]Conversation{a, b}, nil)
	if d.System != "" || len(d.Cases[0].Messages) != 2 || len(d.Cases[1].Messages) != 2 {
		t.Errorf("two system prompts: System %q, messages %+v", d.System, d.Cases)
	}
	s, _ := parsed(t, d)
	if got := s.Conversation(&s.Cases[1]); got[0].Content != "Other." || got[1].Content != "B?" {
		t.Errorf("the second case opens with %+v", got)
	}
}

func TestMultiTurnAsk(t *testing.T) {
	c := conv(1, "m", "I'm visiting with my dog.", call("search", `{"query":"dog"}`))
	c.Transcript.Messages = append(c.Transcript.Messages,
		record.Message{Role: "assistant", Content: "Lovely!"}, record.Message{Role: "user", Content: "Where can the dog sit?"})
	s, _ := parsed(t, Build([]Conversation{c}, nil))
	got := s.Conversation(&s.Cases[0])
	want := []suite.Message{{Role: "system", Content: "You help."}, {Role: "user", Content: "I'm visiting with my dog."},
		{Role: "assistant", Content: "Lovely!"}, {Role: "user", Content: "Where can the dog sit?"}}
	if !cmp.Equal(got, want) || s.Cases[0].ID != "where-can-the-dog-sit" {
		t.Errorf("id %s, conversation %+v", s.Cases[0].ID, got)
	}
}

// TestCommentsStayComments: what models and servers wrote (newlines, control
// characters) lands in comments without breaking out of them.
func TestCommentsStayComments(t *testing.T) {
	c := conv(1, "evil\nname: x\x1b[2J", "Q?", call("search", `{"query":"dog"}`))
	ex := &c.Transcript.Rounds[0].Executions[0]
	ex.IsError, ex.ErrorKind, ex.Error = true, record.ExecToolError, "bad\ncases: []\x1b[2J"
	c.Source.File = "dir\nwith: newline"
	s, text := parsed(t, Build([]Conversation{c}, nil))
	if s.Name != "draft" || len(s.Cases) != 1 || !strings.Contains(text, `"bad\ncases: []\x1b[2J"`) ||
		!strings.Contains(text, `# 1 conversation (evil\x0aname: x\x1b[2J): dir\x0awith: newline:1`) {
		t.Errorf("the comments leaked:\n%s", text)
	}
	if strings.ContainsFunc(text, func(r rune) bool { return r < 0x20 && r != '\n' }) {
		t.Errorf("a control character reached the file:\n%q", text)
	}
}

func TestTrialIDs(t *testing.T) {
	a, b := conv(0, "m", "Can I bring my dog?"), conv(0, "m", "Other")
	a.Source = Source{File: "run/trials.jsonl", Trial: &record.TrialKey{Model: "m", CaseID: "dog"}}
	b.Source = Source{File: "run/trials.jsonl", Trial: &record.TrialKey{Model: "m", CaseID: "dog", Variant: "terse", Repeat: 1}}
	d := Build([]Conversation{a, b}, nil)
	if d.Cases[0].ID != "dog" || d.Cases[1].ID != "dog-2" {
		t.Errorf("ids %s, %s; want the trials' case ids, unique", d.Cases[0].ID, d.Cases[1].ID)
	}
	if got := sources(append(d.Cases[0].Sources, d.Cases[1].Sources...)); got != "run/trials.jsonl: m dog#0, m dog@terse#1" {
		t.Errorf("sources %q", got)
	}
}

// TestLiftSettings: the think and options every first request agreed on
// become the suite's defaults; seeds, which repeats vary, never do.
func TestLiftSettings(t *testing.T) {
	with := func(c Conversation, think string, opts map[string]any) Conversation {
		c.Transcript.Rounds[0].Request.Think = think
		c.Transcript.Rounds[0].Request.Options = opts
		return c
	}
	agree := []Conversation{
		with(conv(1, "m", "A?"), "false", map[string]any{"num_ctx": 8192, "temperature": 0.5, "seed": 42}),
		with(conv(2, "m", "B?"), "false", map[string]any{"num_ctx": 8192.0, "temperature": 0.5, "seed": 43}),
	}
	s, text := parsed(t, Build(agree, nil))
	if s.Defaults.Think != "false" || s.Defaults.NumCtx() != 8192 || s.Defaults.Options["temperature"] != 0.5 {
		t.Errorf("think %q, options %v:\n%s", s.Defaults.Think, s.Defaults.Options, text)
	}
	if _, ok := s.Defaults.Seed(); ok {
		t.Errorf("a seed was lifted:\n%s", text)
	}
	differ := []Conversation{
		with(conv(1, "m", "A?"), "high", map[string]any{"num_ctx": 8192, "temperature": 0}),
		with(conv(2, "m", "B?"), "low", map[string]any{"num_ctx": 4096, "temperature": 0}),
	}
	s, text = parsed(t, Build(differ, nil))
	if s.Defaults.Think != "" || s.Defaults.NumCtx() != 0 || s.Defaults.Options["temperature"] != 0.0 {
		t.Errorf("think %q, options %v:\n%s", s.Defaults.Think, s.Defaults.Options, text)
	}
	s, _ = parsed(t, Build([]Conversation{with(conv(1, "m", "A?"), "medium", nil)}, nil))
	if s.Defaults.Think != "medium" || s.Defaults.Options != nil {
		t.Errorf("think %q, options %v", s.Defaults.Think, s.Defaults.Options)
	}
}

// TestAskRoundTrip: questions read back exactly as the model saw them,
// whatever YAML would make of them unquoted.
func TestAskRoundTrip(t *testing.T) {
	for _, q := range []string{"123", "yes", "null", "- a list?", "# not a comment", "  leading spaces", "trailing spaces  ",
		"two\nlines", "ends with a newline\n", "key: value", "{braces}", "tab\there", "'quoted'", `"double"`, "café ☕"} {
		s, text := parsed(t, Build([]Conversation{conv(1, "m", q)}, nil))
		if got := s.Cases[0].Messages; len(got) != 1 || got[0].Content != q {
			t.Errorf("%q reads back as %+v:\n%s", q, got, text)
		}
	}
}

// TestUnknownToolLaterInASequence: with the calls: form every call is
// expected, so a later call to a tool no server has rules the draft out.
func TestUnknownToolLaterInASequence(t *testing.T) {
	c := conv(1, "m", "Both", call("a", `{}`), call("b", `{}`))
	c.Transcript.Rounds[1].Response.ToolCalls = []record.ToolCall{call("nope", `{}`)}
	c.Transcript.Rounds[1].Executions = []record.Execution{{Name: "nope", IsError: true, ErrorKind: record.ExecUnknownTool}}
	if d, why := draftOne(c); d != nil || why != `the model called "nope", which no server has` {
		t.Errorf("draftOne = %v, %q", d, why)
	}
}
