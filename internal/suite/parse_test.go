package suite

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

// cmpRegexp compares compiled regexes by their source.
var cmpRegexp = cmp.Comparer(func(a, b *regexp.Regexp) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.String() == b.String()
})

func ptr[T any](v T) *T { return &v }

func TestLoadExample(t *testing.T) {
	path := filepath.Join("testdata", "example.yaml")
	s, err := Load(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	sum := sha256.Sum256(data)
	dir, _ := filepath.Abs("testdata")
	pos := func(line, col int) Pos { return Pos{File: path, Line: line, Col: col} }
	want := &Suite{
		Name:        "docs",
		Path:        path,
		Dir:         dir,
		Hash:        hex.EncodeToString(sum[:]),
		ServersPath: filepath.Join(dir, "servers.json"),
		Models:      []string{"qwen3:1.7b", "qwen3:8b"},
		ModelPos:    map[string]Pos{"qwen3:1.7b": {File: path, Line: 4, Col: 10}, "qwen3:8b": {File: path, Line: 4, Col: 22}},
		Defaults: Defaults{
			System:    "You answer questions about our restaurant.",
			MaxRounds: 5,
			Think:     "false",
			KeepAlive: ptr(10 * time.Minute),
			Options:   map[string]any{"temperature": 0.0, "seed": int64(42), "num_ctx": int64(8192)},
		},
		Cases: []Case{
			{
				ID:       "dog",
				Pos:      pos(14, 5),
				Messages: []Message{{Role: "user", Content: "Can I bring my dog?"}},
				Tags:     []string{"search"},
				Expect: Expect{
					Pos:       pos(18, 7),
					FirstOnly: true,
					Calls: []ExpectedCall{{
						Tool: "search",
						Pos:  pos(18, 13),
						Args: ArgMatchers{
							{Key: "query", Pos: pos(19, 21), KeyPos: pos(19, 14), Kind: MatchContains, Substring: "dog"},
							{Key: "top_k", Pos: pos(19, 45), KeyPos: pos(19, 38), Kind: MatchAny},
						},
					}},
					Answer: &TextMatcher{Pos: pos(20, 15), Kind: MatchContains, Substring: "terrace"},
				},
				MaxRounds: 5,
			},
			{
				ID:       "hours-and-menu",
				Pos:      pos(21, 5),
				Messages: []Message{{Role: "user", Content: "Check the hours and the menu."}},
				Expect: Expect{
					Pos: pos(24, 7),
					Calls: []ExpectedCall{
						{Tool: "get_document", Pos: pos(25, 18), Args: ArgMatchers{{Key: "name", Pos: pos(25, 45), KeyPos: pos(25, 39), Kind: MatchEquals, Value: "hours.txt"}}},
						{Tool: "get_document", Pos: pos(26, 18), Args: ArgMatchers{{Key: "name", Pos: pos(26, 45), KeyPos: pos(26, 39), Kind: MatchEquals, Value: "menu.txt"}}},
					},
					AnyOrder:   true,
					StrictArgs: ptr(true),
				},
				MaxRounds: 3,
			},
			{
				ID:        "off-topic",
				Pos:       pos(30, 5),
				Messages:  []Message{{Role: "user", Content: "What is the capital of France?"}},
				Expect:    Expect{Pos: pos(32, 13), NoTool: true},
				MaxRounds: 5,
			},
		},
	}
	if diff := cmp.Diff(want, s, cmpRegexp); diff != "" {
		t.Errorf("Load (-want +got):\n%s", diff)
	}
	conv := s.Conversation(&s.Cases[0])
	wantConv := []Message{{"system", "You answer questions about our restaurant."}, {"user", "Can I bring my dog?"}}
	if diff := cmp.Diff(wantConv, conv); diff != "" {
		t.Errorf("Conversation (-want +got):\n%s", diff)
	}
	if seed, ok := s.Defaults.Seed(); !ok || seed != 42 {
		t.Errorf("Seed() = %d, %v", seed, ok)
	}
	if n := s.Defaults.NumCtx(); n != 8192 {
		t.Errorf("NumCtx() = %d", n)
	}
	if c := s.Case("off-topic"); c == nil || !c.Expect.NoTool {
		t.Errorf("Case(off-topic) = %v", c)
	}
}

func TestLoadInline(t *testing.T) {
	path := filepath.Join("testdata", "inline.yaml")
	s, err := Load(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "inline" {
		t.Errorf("Name = %q, want the file's base name", s.Name)
	}
	if s.ServersPath != "" || s.ServersNode == nil {
		t.Fatalf("ServersPath = %q, ServersNode = %v; want the inline node", s.ServersPath, s.ServersNode)
	}
	if n := s.ServersNode; n.Kind != yaml.MappingNode || n.Line != 3 || n.Content[0].Value != "mcpServers" {
		t.Errorf("ServersNode: kind %v at line %d, first key %q", n.Kind, n.Line, n.Content[0].Value)
	}
	if s.Models != nil {
		t.Errorf("Models = %v, want nil", s.Models)
	}
	d := s.Defaults
	if d.Think != "high" || d.KeepAlive == nil || *d.KeepAlive != -time.Second || !d.NormalizeStrings {
		t.Errorf("Defaults = %+v", d)
	}
	wantOpts := map[string]any{"stop": []any{"\n", "END"}, "num_predict": int64(-1), "top_p": 0.9, "custom_thing": []any{int64(1), int64(2)}}
	if diff := cmp.Diff(wantOpts, d.Options); diff != "" {
		t.Errorf("Options (-want +got):\n%s", diff)
	}
	c := s.Cases[0]
	wantMsgs := []Message{
		{"system", "Be brief."}, {"user", "hi"}, {"assistant", "Hello! How can I help?"}, {"user", "Open the menu."},
	}
	if diff := cmp.Diff(wantMsgs, c.Messages); diff != "" {
		t.Errorf("Messages (-want +got):\n%s", diff)
	}
	// The case's own system message replaces the default one.
	if diff := cmp.Diff(wantMsgs, s.Conversation(&c)); diff != "" {
		t.Errorf("Conversation (-want +got):\n%s", diff)
	}
	if c.MaxRounds != 2 || c.Expect.StrictArgs != nil || fmt.Sprint(c.Tags) != "[multi docs]" {
		t.Errorf("MaxRounds %d, StrictArgs %v, Tags %v", c.MaxRounds, c.Expect.StrictArgs, c.Tags)
	}
	pos := func(line, col int) Pos { return Pos{File: path, Line: line, Col: col} }
	wantArgs := ArgMatchers{
		{Key: "name", Pos: pos(22, 15), KeyPos: pos(22, 9), Kind: MatchOneOf, OneOf: []any{"menu.txt", "menu"}},
		{Key: "filter", Pos: pos(23, 17), KeyPos: pos(23, 9), Kind: MatchEquals, Value: map[string]any{"contains": "x"}},
		{Key: "pages", Pos: pos(24, 16), KeyPos: pos(24, 9), Kind: MatchEquals, Value: []any{int64(1), 2.5, map[string]any{"from": int64(3)}}},
		{Key: "temp", Pos: pos(25, 15), KeyPos: pos(25, 9), Kind: MatchNumber, Number: 37.5, Tolerance: 0.5},
		{Key: "debug", Pos: pos(26, 16), KeyPos: pos(26, 9), Kind: MatchAbsent},
		{Key: "when", Pos: pos(27, 15), KeyPos: pos(27, 9), Kind: MatchEquals, Value: "2024-01-01"},
	}
	if diff := cmp.Diff(wantArgs, c.Expect.Calls[0].Args, cmpRegexp); diff != "" {
		t.Errorf("Args (-want +got):\n%s", diff)
	}
	if a := c.Expect.Answer; a == nil || a.Kind != MatchRegex || a.Regex.String() != "(?i)soup" {
		t.Errorf("Answer = %v", a)
	}
	joke := s.Cases[1]
	if !joke.Expect.NoTool || joke.Expect.Answer == nil || fmt.Sprint(joke.Expect.Answer.OneOf) != "[I do not know. No.]" || joke.MaxRounds != 0 {
		t.Errorf("joke = %+v", joke)
	}
}

func TestParseMergeKeys(t *testing.T) {
	src := `
cases:
  - id: a
    ask: hi
    expect: &exp
      tool: search
      args: &args {query: {contains: dog}, top_k: 5}
  - id: b
    ask: hi
    expect:
      <<: *exp
      args:
        <<: *args
        top_k: 3
`
	s, err := Parse([]byte(src), "m.yaml")
	if err != nil {
		t.Fatal(err)
	}
	args := s.Cases[1].Expect.Calls[0].Args
	if len(args) != 2 || args[0].Key != "top_k" || args[0].Value != int64(3) || args[1].Key != "query" {
		t.Errorf("merged args = %v", args)
	}
}

// errLines parses src and returns its error's lines.
func errLines(t *testing.T, src string) []string {
	t.Helper()
	_, err := Parse([]byte(src), "s.yaml")
	if err == nil {
		t.Fatalf("Parse succeeded; want errors")
	}
	var es Errors
	if !errors.As(err, &es) {
		t.Fatalf("error is %T, want Errors", err)
	}
	return strings.Split(err.Error(), "\n")
}

// A valid case to put beside the broken ones.
const okCase = `  - id: ok
    ask: hi
    expect: {no_tool: true}
`

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{
			name: "unknown keys with did you mean",
			src: `modles: [a]
defaults: {max_round: 3, wild: 1}
cases:
  - id: a
    aks: hi
    expect: {tool: x, arg: {}}
`,
			want: []string{
				`s.yaml:1:1: unknown key "modles" (did you mean "models"?)`,
				`s.yaml:2:12: defaults: unknown key "max_round" (did you mean "max_rounds"?)`,
				`s.yaml:2:26: defaults: unknown key "wild" (known keys: system, max_rounds, think, keep_alive, normalize_strings, strict_args, execute, allow_tools, deny_tools, options, schema_hints, judge, setup, check, user_model)`,
				`s.yaml:4:5: cases[0].ask: missing; give the question, a list of messages, turns: [{ask: ...}, ...] or a simulated user: {goal: ...}`,
				`s.yaml:5:5: cases[0]: unknown key "aks" (did you mean "ask"?)`,
				`s.yaml:6:23: cases[0].expect: unknown key "arg" (did you mean "args"?)`,
			},
		},
		{
			name: "wrong types",
			src: `name: 5
models: qwen3
defaults: {max_rounds: "3", strict_args: yes, normalize_strings: 1, system: [x]}
cases:
  - id: [a]
    ask: {q: hi}
    tags: search
    expect: {tool: 3, any_order: 1}
`,
			want: []string{
				`s.yaml:1:7: name: must be a string, not the number 5 (quote it)`,
				`s.yaml:2:9: models: must be a list of model names, not the string "qwen3"`,
				`s.yaml:3:24: defaults.max_rounds: must be an integer, not the string "3"`,
				`s.yaml:3:42: defaults.strict_args: must be true or false, not the string "yes"`,
				`s.yaml:3:66: defaults.normalize_strings: must be true or false, not the number 1`,
				`s.yaml:3:77: defaults.system: must be a string, not a list`,
				`s.yaml:5:9: cases[0].id: must be a string, not a list`,
				`s.yaml:6:10: cases[0].ask: must be a question or a list of messages, not a mapping`,
				`s.yaml:7:11: cases[0].tags: must be a list of tags, not the string "search"`,
				`s.yaml:8:20: cases[0].expect.tool: must be a string, not the number 3 (quote it)`,
				`s.yaml:8:34: cases[0].expect.any_order: must be true or false, not the number 1`,
			},
		},
		{
			name: "missing id ask expect",
			src: `cases:
  - tags: [x]
  - id: b
    ask: hi
` + okCase,
			want: []string{
				`s.yaml:2:5: cases[0].id: missing; every case needs an id`,
				`s.yaml:2:5: cases[0].ask: missing; give the question, a list of messages, turns: [{ask: ...}, ...] or a simulated user: {goal: ...}`,
				`s.yaml:2:5: cases[0].expect: missing; say what should happen: tool, calls or no_tool: true`,
				`s.yaml:3:5: cases[1].expect: missing; say what should happen: tool, calls or no_tool: true`,
			},
		},
		{
			name: "duplicate ids",
			src: `cases:
` + okCase + `  - id: b
    ask: hi
    expect: {no_tool: true}
  - id: ok
    ask: again
    expect: {no_tool: true}
`,
			want: []string{`s.yaml:8:9: cases[2].id: duplicate id "ok" (first at s.yaml:2:9)`},
		},
		{
			name: "bad ids",
			src: `cases:
  - {id: "", ask: a, expect: {no_tool: true}}
  - {id: "two words", ask: a, expect: {no_tool: true}}
`,
			want: []string{
				`s.yaml:2:10: cases[0].id: must not be empty`,
				`s.yaml:3:10: cases[1].id: "two words" contains whitespace; ids are used on command lines and in reports`,
			},
		},
		{
			name: "expect forms",
			src: `cases:
  - {id: a, ask: q, expect: {}}
  - {id: b, ask: q, expect: {tool: x, calls: [{tool: y}]}}
  - {id: c, ask: q, expect: {no_tool: true, tool: x}}
  - {id: d, ask: q, expect: {no_tool: true, calls: [{tool: y}]}}
  - {id: e, ask: q, expect: {answer: {contains: x}}}
  - {id: f, ask: q, expect: {no_tool: true, answer: {contains: x}}}
  - {id: g, ask: q, expect: {args: {a: 1}, no_tool: true}}
  - {id: h, ask: q, expect: {calls: [{tool: y}], args: {a: 1}}}
  - {id: i, ask: q, expect: {no_tool: false}}
  - {id: j, ask: q, expect: {no_tool: true, strict_args: true}}
  - {id: k, ask: q, expect: {calls: []}}
  - {id: l, ask: q, expect: {calls: [{args: {}}, {tool: z, too: 1}]}}
  - {id: m, ask: q, expect: [tool]}
`,
			want: []string{
				`s.yaml:2:29: cases[0].expect: needs one of tool, calls or no_tool: true`,
				`s.yaml:3:39: cases[1].expect.calls: give tool (the first call) or calls (the whole sequence), not both`,
				`s.yaml:4:30: cases[2].expect.no_tool: no_tool: true contradicts tool`,
				`s.yaml:5:30: cases[3].expect.no_tool: no_tool: true contradicts calls`,
				`s.yaml:6:29: cases[4].expect: needs one of tool, calls or no_tool: true`,
				`s.yaml:8:30: cases[6].expect.args: args needs tool`,
				`s.yaml:9:50: cases[7].expect.args: with calls, args go in each call: calls: [{tool: ..., args: ...}]`,
				`s.yaml:10:30: cases[8].expect.no_tool: no_tool: false expects nothing; give tool or calls`,
				`s.yaml:11:45: cases[9].expect.strict_args: strict_args has no meaning with no_tool`,
				`s.yaml:12:37: cases[10].expect.calls: must list at least one call (for no call, write no_tool: true)`,
				`s.yaml:13:38: cases[11].expect.calls[0].tool: missing; name the tool this call should use`,
				`s.yaml:13:60: cases[11].expect.calls[1]: unknown key "too" (did you mean "tool"?)`,
				`s.yaml:14:29: cases[12].expect: must be a mapping with tool, calls or no_tool, not a list`,
			},
		},
		{
			name: "bad regexes",
			src: `cases:
  - id: a
    ask: q
    expect:
      tool: search
      args: {query: {regex: "(dog"}, q2: {regex: "a**"}}
      answer: {regex: "[z-a]"}
`,
			want: []string{
				`s.yaml:6:29: cases[0].expect.args.query.regex: bad regex: missing closing ): (dog`,
				`s.yaml:6:50: cases[0].expect.args.q2.regex: bad regex: invalid nested repetition operator: **`,
				`s.yaml:7:23: cases[0].expect.answer.regex: bad regex: invalid character class range: z-a`,
			},
		},
		{
			name: "matcher objects",
			src: `cases:
  - id: a
    ask: q
    expect:
      tool: search
      args:
        a: {contains: dog, regex: x}
        b: {contians: dog, any: true}
        c: {tolerance: 1}
        d: {contains: x, tolerance: 1}
        e: {any: false}
        f: {absent: false}
        g: {contains: 5}
        h: {one_of: []}
        i: {number: "5"}
        j: {number: 5, tolerance: -1}
        k: {name: x, contains: y}
        l: {filter: {any: true}, x: 1}
        m: [{equals: 1}]
        n: {contains: ""}
        "": 1
`,
			want: []string{
				`s.yaml:7:28: cases[0].expect.args.a: a matcher takes exactly one of equals, contains, regex, one_of, number, any, absent; this one has contains and regex`,
				`s.yaml:8:13: cases[0].expect.args.b: unknown key "contians" (did you mean "contains"?); a literal object with a matcher key must be written {equals: {...}}`,
				`s.yaml:9:13: cases[0].expect.args.c.tolerance: tolerance needs number: {number: x, tolerance: t}`,
				`s.yaml:10:26: cases[0].expect.args.d.tolerance: tolerance goes with number only`,
				`s.yaml:11:18: cases[0].expect.args.e.any: any: false expects nothing; for a key that must not be there write {absent: true}, or leave the key out to let it be free`,
				`s.yaml:12:21: cases[0].expect.args.f.absent: absent: false expects nothing; write {any: true} for a key that must be there, or leave the key out`,
				`s.yaml:13:23: cases[0].expect.args.g.contains: must be a string, not the number 5 (quote it)`,
				`s.yaml:14:21: cases[0].expect.args.h.one_of: must be a non-empty list of values, not a list`,
				`s.yaml:15:21: cases[0].expect.args.i.number: must be a number, not the string "5"`,
				`s.yaml:16:35: cases[0].expect.args.j.tolerance: must not be negative`,
				`s.yaml:17:13: cases[0].expect.args.k: unknown key "name" (known keys: equals, contains, regex, one_of, number, tolerance, any, absent); a literal object with a matcher key must be written {equals: {...}}`,
				`s.yaml:18:22: cases[0].expect.args.l.filter.any: "any" inside a literal object: matchers apply to whole arguments only; if the object is meant literally, write the whole argument as {equals: ...}`,
				`s.yaml:19:14: cases[0].expect.args.m[0].equals: "equals" inside a literal object: matchers apply to whole arguments only; if the object is meant literally, write the whole argument as {equals: ...}`,
				`s.yaml:20:23: cases[0].expect.args.n.contains: must not be empty`,
				`s.yaml:21:9: cases[0].expect.args: argument names must not be empty`,
			},
		},
		{
			name: "answer matchers",
			src: `cases:
  - {id: a, ask: q, expect: {no_tool: true, answer: terrace}}
  - {id: b, ask: q, expect: {no_tool: true, answer: {contains: x, one_of: [y]}}}
  - {id: c, ask: q, expect: {no_tool: true, answer: {one_of: []}}}
  - {id: d, ask: q, expect: {no_tool: true, answer: {}}}
  - {id: e, ask: q, expect: {no_tool: true, answer: {equals: x}}}
`,
			want: []string{
				`s.yaml:2:53: cases[0].expect.answer: must be a matcher {contains: ...}, {regex: ...}, {one_of: [...]} or a rubric {judge: ...}, not the string "terrace"`,
				`s.yaml:3:67: cases[1].expect.answer: an answer matcher takes exactly one of contains, regex, one_of; this one has contains and one_of`,
				`s.yaml:4:62: cases[2].expect.answer.one_of: must list at least one answer`,
				`s.yaml:5:53: cases[3].expect.answer: needs one of contains, regex, one_of, or a rubric for a judge model: {judge: "..."}`,
				`s.yaml:6:54: cases[4].expect.answer: unknown key "equals" (known keys: contains, regex, one_of, judge)`,
			},
		},
		{
			name: "models",
			src: `models: []
cases:
` + okCase,
			want: []string{`s.yaml:1:9: models: must list at least one model (or leave models out)`},
		},
		{
			name: "duplicate model and tag",
			src: `models: [a, b, a]
cases:
  - {id: a, ask: q, tags: [x, x, ""], expect: {no_tool: true}}
`,
			want: []string{
				`s.yaml:1:16: models[2]: "a" is listed twice (first at line 1, column 10)`,
				`s.yaml:3:31: cases[0].tags[1]: "x" is listed twice (first at line 3, column 28)`,
				`s.yaml:3:34: cases[0].tags[2]: must not be empty`,
			},
		},
		{
			name: "think and max_rounds",
			src: `defaults: {think: maybe, max_rounds: 0}
cases:
  - {id: a, ask: q, max_rounds: 101, expect: {no_tool: true}}
  - {id: b, ask: q, expect: {no_tool: true, max_rounds: 2.5}}
  - {id: c, ask: q, max_rounds: 2, expect: {no_tool: true, max_rounds: 3}}
  - {id: d, ask: q, expect: {no_tool: true, max_rounds: x}}
`,
			want: []string{
				`s.yaml:1:19: defaults.think: must be true, false, low, medium or high, not the string "maybe"`,
				`s.yaml:1:38: defaults.max_rounds: must be between 1 and 100, not 0`,
				`s.yaml:3:33: cases[0].max_rounds: must be between 1 and 100, not 101`,
				`s.yaml:4:57: cases[1].expect.max_rounds: must be an integer, not the number 2.5`,
				`s.yaml:5:72: cases[2].expect.max_rounds: max_rounds is also set at line 5, column 21; set it once`,
				`s.yaml:6:57: cases[3].expect.max_rounds: must be an integer, not the string "x"`,
			},
		},
		{
			name: "think values",
			src: `defaults: {think: "High"}
cases:
` + okCase,
			want: []string{`s.yaml:1:19: defaults.think: must be true, false, low, medium or high, not the string "High"`},
		},
		{
			name: "servers",
			src: `servers: 5
cases:
` + okCase,
			want: []string{`s.yaml:1:10: servers: must be a string, not the number 5 (quote it)`},
		},
		{
			name: "servers list",
			src: `servers: [a.json]
cases:
` + okCase,
			want: []string{`s.yaml:1:10: servers: must be the path of an mcpServers file or an inline {mcpServers: {...}}, not a list`},
		},
		{
			name: "ask forms",
			src: `cases:
  - {id: a, ask: "  ", expect: {no_tool: true}}
  - {id: b, ask: [], expect: {no_tool: true}}
  - id: c
    ask:
      - {role: user, content: hi}
      - {role: system, content: late}
      - {role: usr, content: x}
      - {role: user}
      - {role: user, content: x, name: y}
      - hello
      - {content: x}
      - {role: assistant, content: bye}
    expect: {no_tool: true}
`,
			want: []string{
				`s.yaml:2:18: cases[0].ask: must not be empty`,
				`s.yaml:3:18: cases[1].ask: must list at least one message`,
				`s.yaml:7:16: cases[2].ask[1].role: a system message can only come first`,
				`s.yaml:8:16: cases[2].ask[2].role: must be system, user or assistant, not "usr" (did you mean "user"?)`,
				`s.yaml:9:9: cases[2].ask[3].content: missing`,
				`s.yaml:10:34: cases[2].ask[4]: unknown key "name" (known keys: role, content)`,
				`s.yaml:11:9: cases[2].ask[5]: must be a message {role: ..., content: ...}, not the string "hello"`,
				`s.yaml:12:9: cases[2].ask[6].role: missing; one of system, user, assistant`,
				`s.yaml:13:9: cases[2].ask[7]: the last message must be the user's: the model answers it`,
			},
		},
		{
			name: "duplicate keys",
			src: `cases:
  - id: a
    ask: q
    id: b
    expect: {tool: x, args: {q: 1, q: 2}}
`,
			want: []string{
				`s.yaml:4:5: cases[0].id: duplicate key (first at line 2, column 5)`,
				`s.yaml:5:36: cases[0].expect.args.q: duplicate key (first at line 5, column 30)`,
			},
		},
		{
			name: "options",
			src: `defaults:
  options:
    temprature: 0
    seed: 4.5
    num_ctx: 0
    temperature: -1
    stop: "\n"
    use_mmap: 1
    made_up_option: {a: 1}
cases:
` + okCase,
			want: []string{
				`s.yaml:3:5: defaults.options.temprature: unknown Ollama option "temprature" (did you mean "temperature"?)`,
				`s.yaml:4:11: defaults.options.seed: must be an integer, not the number 4.5`,
				`s.yaml:5:14: defaults.options.num_ctx: must be at least 1, not 0`,
				`s.yaml:6:18: defaults.options.temperature: must not be negative`,
				`s.yaml:7:11: defaults.options.stop: must be a list of strings, not the string "\n"`,
				`s.yaml:8:15: defaults.options.use_mmap: must be true or false, not the number 1`,
			},
		},
		{
			name: "keep_alive",
			src: `defaults: {keep_alive: "-1"}
cases:
` + okCase,
			want: []string{`s.yaml:1:24: defaults.keep_alive: must be a duration such as 10m or 1h30m, or a number of seconds (negative: keep the model loaded), not "-1"`},
		},
		{
			name: "literal values",
			src: `cases:
  - id: a
    ask: q
    expect:
      tool: x
      args: {a: .inf, b: !!int 99999999999999999999, c: !!binary aGk=, d: {equals: [.nan]}, e: 99999999999999999999}
`,
			want: []string{
				`s.yaml:6:17: cases[0].expect.args.a: .inf is not a JSON number`,
				`s.yaml:6:26: cases[0].expect.args.b: integer 99999999999999999999 does not fit in 64 bits`,
				`s.yaml:6:57: cases[0].expect.args.c: unsupported value !!binary "aGk="; use a string, number, boolean, null, list or mapping`,
				`s.yaml:6:85: cases[0].expect.args.d.equals[0]: .nan is not a JSON number`,
			},
		},
		{
			name: "no cases",
			src:  "name: x\n",
			want: []string{`s.yaml:1:1: cases: missing; a suite needs cases: [{id: ..., ask: ..., expect: ...}]`},
		},
		{
			name: "empty cases",
			src:  "cases: []\n",
			want: []string{`s.yaml:1:8: cases: must list at least one case`},
		},
		{
			name: "cases not a list",
			src:  "cases: {a: 1}\n",
			want: []string{`s.yaml:1:8: cases: must be a list of cases, not a mapping`},
		},
		{
			name: "case not a mapping",
			src:  "cases:\n  - dog\n",
			want: []string{`s.yaml:2:5: cases[0]: must be a case mapping {id: ..., ask: ..., expect: ...}, not the string "dog"`},
		},
		{
			name: "root not a mapping",
			src:  "- a\n- b\n",
			want: []string{`s.yaml:1:1: must be a mapping with cases: [...], not a list`},
		},
		{
			name: "non-string key",
			src:  "cases:\n  - {id: a, ask: q, expect: {no_tool: true}, [x]: 1}\n",
			want: []string{`s.yaml:2:46: cases[0]: keys must be strings, not a list`},
		},
		{name: "empty file", src: "", want: []string{`s.yaml:1:1: empty suite; expected a mapping with cases: [...]`}},
		{name: "only comments", src: "# nothing\n", want: []string{`s.yaml:1:1: empty suite; expected a mapping with cases: [...]`}},
		{name: "null document", src: "~\n", want: []string{`s.yaml:1:1: empty suite; expected a mapping with cases: [...]`}},
		{name: "yaml scanner error", src: "name: x\ncases: a: b\n", want: []string{`s.yaml:2:9: YAML: mapping values are not allowed in this context; quote a value that holds ": "`, "    2 | cases: a: b", "      |         ^"}},
		{name: "yaml parser error", src: "name: x\ncases:\n  - a\n - b\n", want: []string{`s.yaml:4:2: YAML: did not find expected key; this line is indented by 1 space, which lines up with no block above it`, "    4 |  - b", "      |  ^"}},
		{name: "yaml unclosed flow", src: "name: x\ncases: [a\n", want: []string{`s.yaml:2:8: YAML: did not find expected ',' or ']' (this [ is never closed)`, "    2 | cases: [a", "      |        ^"}},
		{name: "yaml error on line 1", src: "a: b: c\n", want: []string{`s.yaml:1:5: YAML: mapping values are not allowed in this context; quote a value that holds ": "`, "    1 | a: b: c", "      |     ^"}},
		{name: "yaml tab", src: "cases:\n\t- a\n", want: []string{`s.yaml:2:1: YAML: found character that cannot start any token; YAML indents with spaces, not tabs`, "    2 | \t- a", "      | ^"}},
		{name: "control character", src: "name: x\ncases: [a\x01]\n", want: []string{`s.yaml:2:10: YAML: control characters are not allowed`, "    2 | cases: [a\uFFFD]", "      |          ^"}},
		{name: "invalid utf-8", src: "name: x\nid: é\xff\n", want: []string{`s.yaml:2:6: YAML: invalid leading UTF-8 octet`, "    2 | id: é\uFFFD", "      |      ^"}},
		{name: "unknown anchor", src: "name: x\ncases: [*nope]\n", want: []string{`s.yaml:2:9: YAML: unknown anchor 'nope' referenced`, "    2 | cases: [*nope]", "      |         ^"}},
		{name: "second document", src: "cases: []\n---\nname: y\n", want: []string{`s.yaml:2:1: a second YAML document; a suite file holds one`}},
		{name: "alias cycle", src: "cases: &a [*a]\n", want: []string{`s.yaml:1:12: YAML: an alias refers to the node that contains it`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := errLines(t, tt.src)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 10; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [*a%d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d]\n", i, i, i-1)
	}
	b.WriteString("cases: *a9\n")
	got := errLines(t, b.String())
	want := fmt.Sprintf("s.yaml:1:1: YAML: its aliases expand the document by more than %d nodes", maxNodes)
	if len(got) != 1 || got[0] != want {
		t.Errorf("errors = %q, want %q", got, want)
	}
}

// The bound is on what aliases add: a suite written out at more than
// maxNodes nodes (an imported one of thousands of cases) loads.
func TestParseLargeWithoutAliases(t *testing.T) {
	var b strings.Builder
	b.WriteString("cases:\n")
	n := maxNodes/10 + 1 // each case is more than ten nodes
	for i := range n {
		fmt.Fprintf(&b, "  - {id: c%d, ask: q, expect: {tool: t, args: {a: 1}}}\n", i)
	}
	s, err := Parse([]byte(b.String()), "s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Cases) != n {
		t.Errorf("%d cases, want %d", len(s.Cases), n)
	}
}

func TestParseTooManyErrors(t *testing.T) {
	var b strings.Builder
	b.WriteString("cases:\n")
	for i := range 30 {
		fmt.Fprintf(&b, "  - {id: c%d, ask: q, expect: {}}\n", i)
	}
	_, err := Parse([]byte(b.String()), "s.yaml")
	var es Errors
	if !errors.As(err, &es) || len(es) != 30 {
		t.Fatalf("err = %v; want 30 Errors", err)
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != MaxErrors+1 {
		t.Fatalf("%d lines, want %d", len(lines), MaxErrors+1)
	}
	if want := "s.yaml:22:31: too many errors (10 more not shown)"; lines[MaxErrors] != want {
		t.Errorf("last line = %q, want %q", lines[MaxErrors], want)
	}
}

func TestParseNoPath(t *testing.T) {
	s, err := Parse([]byte("cases:\n"+okCase), "")
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "suite" || s.Path != "" {
		t.Errorf("Name %q, Path %q", s.Name, s.Path)
	}
	_, err = Parse([]byte("cases: 1\n"), "")
	if err == nil || !strings.HasPrefix(err.Error(), "<input>:1:8: ") {
		t.Errorf("err = %v, want it to name <input>", err)
	}
}

func TestParseNumberOptionsAndKeepAlive(t *testing.T) {
	s, err := Parse([]byte("defaults: {keep_alive: 300, options: {temperature: 1, seed: -7}}\ncases:\n"+okCase), "x.yml")
	if err != nil {
		t.Fatal(err)
	}
	if *s.Defaults.KeepAlive != 5*time.Minute {
		t.Errorf("KeepAlive = %v", *s.Defaults.KeepAlive)
	}
	if s.Defaults.Options["temperature"] != 1.0 || s.Defaults.Options["seed"] != int64(-7) {
		t.Errorf("Options = %#v", s.Defaults.Options)
	}
	if s.Name != "x" {
		t.Errorf("Name = %q", s.Name)
	}
}

// TestLoadRefusesAnOversizedSuite: a suite past the size given is refused
// before it is parsed, with the way to read it anyway; the same file loads
// with a larger size.
func TestLoadRefusesAnOversizedSuite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "big.yaml")
	src := "models: [m]\ncases:\n" + strings.Repeat("  - {id: c, ask: \"x\", expect: {no_tool: true}}\n", 1)
	src += "# " + strings.Repeat("padding ", 200) + "\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path, 1024)
	want := path + ": the suite is larger than 1.0 KiB, the most toolgrade reads (it takes about 40 times its size in memory to parse): split it into several suites, or give run --max-suite-size with a larger size"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
	if _, err := Load(path, 4096); err != nil {
		t.Errorf("within the size: %v", err)
	}
}
