package suite

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
)

// caseBuilder is a fakeTools that builds the cases' own catalogs the way
// the run does: the inline definitions, then the named tools of the base.
type caseBuilder struct {
	listTools
	built int
}

func newCaseBuilder(t *testing.T) *caseBuilder { return &caseBuilder{listTools: newListCatalog(t)} }

// ownTools is a built case catalog: it validates partial arguments and
// lists its tools.
type ownTools struct {
	partialTools
	list api.Tools
}

func (c ownTools) OllamaTools() api.Tools { return c.list }

func (b *caseBuilder) CaseCatalog(c *Case) (Catalog, error) {
	b.built++
	cc := ownTools{partialTools: partialTools{&fakeTools{tools: map[string]fakeTool{}}}}
	for _, t := range c.Tools {
		if !t.Inline {
			cc.tools[t.Exposed] = b.fakeTools.tools[t.Exposed]
			for _, lt := range b.listTools.tools {
				if lt.Function.Name == t.Exposed {
					cc.list = append(cc.list, lt)
				}
			}
			continue
		}
		cc.tools[t.Name] = fakeTool{"", t.Name, string(t.Parameters)}
		tool := api.Tool{Type: "function", Function: api.ToolFunction{Name: t.Name}}
		if err := json.Unmarshal(t.Parameters, &tool.Function.Parameters); err != nil {
			return nil, err
		}
		cc.list = append(cc.list, tool)
	}
	return cc, nil
}

const caseToolsSuite = `cases:
  - id: inline
    ask: q
    tools:
      - name: math_factorial
        description: "Calculate the factorial of a number."
        parameters: {type: object, properties: {n: {type: integer}, mode: {type: string}}, required: [n]}
      - search
    expect: {calls: [{tool: math_factorial, args: {n: 5}}]}
  - id: subset
    ask: q
    tools: [docs.get_document, search]
    expect: {tool: get_document, args: {name: menu.txt}}
  - id: bare
    ask: q
    tools: [{name: ping}]
    expect: {tool: ping}
  - id: suite
    ask: q
    expect: {tool: list_documents}
`

func TestParseCaseTools(t *testing.T) {
	s, err := Parse([]byte(caseToolsSuite), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	in := s.Case("inline")
	if !in.HasInline() || !in.NoExecute {
		t.Errorf("inline case: HasInline %v, NoExecute %v; want both (inline tools never run)", in.HasInline(), in.NoExecute)
	}
	// Key order as written: it is the order the model sees the properties in.
	if got, want := string(in.Tools[0].Parameters), `{"type":"object","properties":{"n":{"type":"integer"},"mode":{"type":"string"}},"required":["n"]}`; got != want {
		t.Errorf("parameters = %s\nwant %s", got, want)
	}
	if in.Tools[1].Inline || in.Tools[1].Name != "search" || in.Tools[1].Parameters != nil {
		t.Errorf("named entry = %+v", in.Tools[1])
	}
	if sub := s.Case("subset"); sub.HasInline() || sub.NoExecute {
		t.Errorf("a subset of the servers' tools runs them: HasInline %v, NoExecute %v", sub.HasInline(), sub.NoExecute)
	}
	if got := string(s.Case("bare").Tools[0].Parameters); got != `{"type":"object","properties":{}}` {
		t.Errorf("absent parameters = %s, want the empty object schema", got)
	}
	if s.Case("suite").Tools != nil {
		t.Errorf("a case without tools: has %v", s.Case("suite").Tools)
	}
}

func TestParseCaseToolsErrors(t *testing.T) {
	got := errLines(t, `cases:
  - id: a
    ask: q
    execute: true
    tools:
      - name: math.factorial
      - {name: ok, parameters: {type: string}}
      - {name: ok2, parameters: {type: object, properties: {n: {type: 5}}}}
      - {name: ok3, parameters: {type: object, required: yes}}
      - {name: dup}
      - {name: dup}
      - {name: x, params: {}}
      - [a]
    expect: {no_tool: true}
  - id: b
    ask: q
    tools: []
    expect: {no_tool: true}
`)
	want := []string{
		`s.yaml:4:14: cases[0].execute: an inline tool has nothing behind it to run, so a case with inline tools runs with execute: false; remove execute: true`,
		`s.yaml:6:15: cases[0].tools[0].name: tool name "math.factorial" has '.', which Ollama tool names cannot hold (letters, digits, _ and - only); write "math_factorial"`,
		`s.yaml:7:39: cases[0].tools[1].parameters.type: must be object: a tool's parameters are an object of named arguments`,
		`s.yaml:8:33: cases[0].tools[2].parameters: not a valid JSON Schema: `,
		`s.yaml:9:33: cases[0].tools[3].parameters: not a valid JSON Schema: `,
		`s.yaml:11:16: cases[0].tools[5]: tool "dup" is listed twice in this case (first at line 10, column 16)`,
		`s.yaml:12:19: cases[0].tools[6]: unknown key "params" (known keys: name, description, parameters)`,
		`s.yaml:13:9: cases[0].tools[7]: must be an inline definition {name, description, parameters} or a tool name, not a list`,
		`s.yaml:17:12: cases[1].tools: must list at least one tool (leave tools out to offer the suite's servers' tools)`,
	}
	if len(got) != len(want) {
		t.Fatalf("got %d errors, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		// The library's own words follow the schema errors' prefix.
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("error %d:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
}

func TestCheckCaseTools(t *testing.T) {
	s, err := Parse([]byte(caseToolsSuite), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	b := newCaseBuilder(t)
	if err := s.Check(b); err != nil {
		t.Fatal(err)
	}
	if got := s.Case("subset").Tools[0].Exposed; got != "get_document" {
		t.Errorf("docs.get_document resolved to %q", got)
	}
	if got := s.Case("inline").Expect.Calls[0].Exposed; got != "math_factorial" {
		t.Errorf("inline expected call exposed as %q", got)
	}
	if b.built != 3 {
		t.Errorf("built %d case catalogs, want 3", b.built)
	}
}

func TestCheckCaseToolsErrors(t *testing.T) {
	s, err := Parse([]byte(`cases:
  - id: unknown
    ask: q
    tools: [serch, {name: f}]
    expect: {tool: f}
  - id: outside
    ask: q
    tools: [{name: f, parameters: {type: object, properties: {n: {type: integer}}}}, get_document]
    expect: {calls: [{tool: search}, {tool: f, args: {n: "five"}}]}
  - id: twice
    ask: q
    tools: [get_document, docs.get_document]
    expect: {tool: get_document}
`), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	err = s.Check(newCaseBuilder(t))
	var es Errors
	if !errors.As(err, &es) {
		t.Fatalf("Check = %v, want Errors", err)
	}
	want := []string{
		`c.yaml:4:13: cases[0].tools[0]: unknown tool "serch" (did you mean "search"? tools: docs__info, fs__info, get_document, list_documents, search)`,
		`c.yaml:9:29: cases[1].expect.calls[0].tool: not among the case's tools: unknown tool "search" (tools: f, get_document)`,
		`c.yaml:9:58: cases[1].expect.calls[1].args.n: must be an integer, got the string "five"`,
		`c.yaml:12:27: cases[2].tools[1]: "get_document" and "docs.get_document" are the same tool, get_document`,
	}
	got := strings.Split(err.Error(), "\n")
	if len(got) != len(want) {
		t.Fatalf("got:\n%s", err)
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("error %d:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
}

// A catalog that cannot build case catalogs cannot check such cases; it
// says so rather than passing them unchecked.
func TestCheckCaseToolsNeedsBuilder(t *testing.T) {
	s, err := Parse([]byte(caseToolsSuite), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	err = s.Check(newFakeCatalog(t))
	if err == nil || !strings.Contains(err.Error(), "c.yaml:5:7: cases[0].tools: the catalog cannot build a case's own tools") {
		t.Errorf("Check = %v", err)
	}
}

// An overlay may name a case's inline tool; one no catalog has is an error.
func TestCheckOverlaysCaseTools(t *testing.T) {
	s, err := Parse([]byte(`variants:
  - name: v
    tools:
      math_factorial: {description: "n!", params: {n: "The number.", k: "no such"}}
      nowhere: {description: "x"}
cases:
  - id: a
    ask: q
    tools: [{name: math_factorial, parameters: {type: object, properties: {n: {type: integer}}}}]
    expect: {tool: math_factorial}
`), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	err = s.Check(newCaseBuilder(t))
	got := strings.Split(err.Error(), "\n")
	want := []string{
		`c.yaml:4:70: variants[0].tools.math_factorial.params.k: unknown parameter "k" of math_factorial`,
		`c.yaml:5:7: variants[0].tools.nowhere: unknown tool "nowhere"`,
	}
	if len(got) != len(want) {
		t.Fatalf("got:\n%s", err)
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("error %d:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
	if o := s.Variants[0].Tools[0]; o.Exposed != "math_factorial" {
		t.Errorf("overlay exposed = %q", o.Exposed)
	}
}

// A case's tools are part of what the case is: an edited inline tool is an
// edited case for compare, while cases without tools keep their hashes.
func TestCaseHashCoversTools(t *testing.T) {
	hash := func(src string) string {
		t.Helper()
		s, err := Parse([]byte(src), "c.yaml")
		if err != nil {
			t.Fatal(err)
		}
		return s.CaseHash(&s.Cases[0])
	}
	const head = "cases:\n  - id: a\n    ask: q\n    expect: {tool: f}\n"
	base := hash(head + "    tools: [{name: f, parameters: {type: object, properties: {n: {type: integer}}}}]\n")
	for name, tools := range map[string]string{
		"type":        "[{name: f, parameters: {type: object, properties: {n: {type: number}}}}]",
		"description": "[{name: f, description: d, parameters: {type: object, properties: {n: {type: integer}}}}]",
		"added":       "[{name: f, parameters: {type: object, properties: {n: {type: integer}}}}, g]",
		"order":       "[{name: f, parameters: {properties: {n: {type: integer}}, type: object}}]",
	} {
		if h := hash(head + "    tools: " + tools + "\n"); h == base {
			t.Errorf("%s: the hash did not change", name)
		}
	}
	// The hashes of cases without tools stay those recorded before cases
	// had tools: hash_test.go's golden hash checks it; a case on the
	// suite's catalog differs from the same case with tools.
	if hash(head) == base {
		t.Error("a case with tools hashes as the same case without")
	}
}
