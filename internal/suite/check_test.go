package suite

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
)

// fakeTools is a small Catalog: tools by exposed name, each with its server,
// original name and input schema.
type fakeTools struct {
	tools map[string]fakeTool
}

type fakeTool struct {
	server, name string
	schema       string
}

func newFakeCatalog(t *testing.T) *fakeTools {
	t.Helper()
	return &fakeTools{tools: map[string]fakeTool{
		"search": {"docs", "search", `{"type":"object","required":["query"],"additionalProperties":false,
			"properties":{"query":{"type":"string"},"top_k":{"type":"integer"},"lang":{"enum":["en","fr"]}}}`},
		"get_document":   {"docs", "get_document", `{"type":"object","required":["name"],"properties":{"name":{"type":"string"}}}`},
		"list_documents": {"docs", "list_documents", `{"type":"object","properties":{}}`},
		"docs__info":     {"docs", "info", `{"type":"object"}`},
		"fs__info":       {"fs", "info", `{"type":"object"}`},
	}}
}

func (c *fakeTools) Resolve(name string) (string, bool) {
	if _, ok := c.tools[name]; ok {
		return name, true
	}
	for exposed, tool := range c.tools {
		if name == tool.server+"."+tool.name || name == tool.server+"__"+tool.name {
			return exposed, true
		}
	}
	return "", false
}

func (c *fakeTools) Names() []string {
	var out []string
	for n := range c.tools {
		out = append(out, n)
	}
	return out
}

func (c *fakeTools) ValidateArgs(exposed string, args json.RawMessage) error {
	return c.validate(exposed, args, false)
}

func (c *fakeTools) validate(exposed string, args json.RawMessage, partial bool) error {
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(c.tools[exposed].schema), &s); err != nil {
		return err
	}
	if partial {
		s.Required = nil
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return err
	}
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		return err
	}
	return rs.Validate(v)
}

// partialTools adds ValidatePartial.
type partialTools struct{ *fakeTools }

func (c partialTools) ValidatePartial(exposed string, args json.RawMessage) error {
	return c.validate(exposed, args, true)
}

const checkSuite = `cases:
  - id: plain
    ask: q
    expect: {tool: search, args: {query: {contains: dog}, top_k: 5}}
  - id: dotted
    ask: q
    expect:
      calls:
        - {tool: docs.get_document, args: {name: menu.txt}}
        - {tool: fs.info}
        - {tool: docs__info}
  - id: typos
    ask: q
    expect:
      calls:
        - {tool: serch}
        - {tool: docs.get_documnet}
        - {tool: weather}
`

func TestCheckResolvesAndSuggests(t *testing.T) {
	s, err := Parse([]byte(checkSuite), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	err = s.Check(newFakeCatalog(t))
	var es Errors
	if !errors.As(err, &es) {
		t.Fatalf("Check = %v, want Errors", err)
	}
	want := []string{
		`c.yaml:16:18: cases[2].expect.calls[0].tool: unknown tool "serch" (did you mean "search"? tools: docs__info, fs__info, get_document, list_documents, search)`,
		`c.yaml:17:18: cases[2].expect.calls[1].tool: unknown tool "docs.get_documnet" (did you mean "get_document"? tools: docs__info, fs__info, get_document, list_documents, search)`,
		`c.yaml:18:18: cases[2].expect.calls[2].tool: unknown tool "weather" (tools: docs__info, fs__info, get_document, list_documents, search)`,
	}
	if diff := cmp.Diff(want, strings.Split(err.Error(), "\n")); diff != "" {
		t.Errorf("Check errors (-want +got):\n%s", diff)
	}
	var exposed []string
	for _, c := range s.Cases[:2] {
		for _, call := range c.Expect.Calls {
			exposed = append(exposed, call.Exposed)
		}
	}
	if diff := cmp.Diff([]string{"search", "get_document", "fs__info", "docs__info"}, exposed); diff != "" {
		t.Errorf("Exposed (-want +got):\n%s", diff)
	}
}

func TestCheckNoTools(t *testing.T) {
	s, err := Parse([]byte("cases:\n  - {id: a, ask: q, expect: {tool: search}}\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	err = s.Check(&fakeTools{tools: map[string]fakeTool{}})
	if want := `c.yaml:2:36: cases[0].expect.tool: unknown tool "search" (the servers expose no tools)`; err == nil || err.Error() != want {
		t.Errorf("Check = %v, want %s", err, want)
	}
}

const argsSuite = `defaults: {strict_args: %s}
cases:
  - id: wrong-type
    ask: q
    expect: {tool: search, args: {query: dog, top_k: "5"}}
  - id: loose-wrong-type
    ask: q
    expect: {tool: search, args: {query: {contains: dog}, top_k: "5"}}
  - id: missing-required
    ask: q
    expect: {tool: search, args: {top_k: 5}}
  - id: bad-choice
    ask: q
    expect: {tool: search, args: {query: dog, lang: {one_of: [en, de, fr, es]}}}
  - id: unknown-arg
    ask: q
    expect: {tool: search, args: {query: {any: true}, qurey: dog}}
  - id: fine
    ask: q
    expect:
      calls:
        - {tool: search, args: {query: dog, top_k: {number: 3}, lang: {absent: true}}}
        - {tool: get_document, args: {name: {regex: "^m"}}}
        - {tool: list_documents}
`

func TestCheckValidatesLiterals(t *testing.T) {
	tests := []struct {
		name    string
		strict  bool
		partial bool
		want    []string // the cases with an error, each with a part of its message
	}{
		{
			name: "strict, full validation only",
			// Only complete expectations are validated: loose ones cannot be.
			strict: true,
			want: []string{
				`5:54: cases[0].expect.args.top_k: must be an integer, got the string "5"`,
				`11:20: cases[2].expect.tool: the expected arguments {top_k: 5} leave out query, which the tool search requires; with strict_args they are all a passing call may send`,
				`14:53: cases[3].expect.args.lang: one_of choice 2: must be one of en, fr, got "de"`,
				`14:53: cases[3].expect.args.lang: one_of choice 4: must be one of en, fr, got "es"`,
			},
		},
		{
			name: "not strict, full validation only",
			// Nothing is complete, so nothing can be validated soundly.
			want: nil,
		},
		{
			name:    "not strict, partial validation",
			partial: true,
			// Each argument alone, at its own value; a name the tool lacks
			// at the name, found by the validator since this catalog does
			// not list its tools.
			want: []string{
				`5:54: cases[0].expect.args.top_k: must be an integer, got the string "5"`,
				`8:66: cases[1].expect.args.top_k: must be an integer, got the string "5"`,
				`14:53: cases[3].expect.args.lang: one_of choice 2: must be one of en, fr, got "de"`,
				`14:53: cases[3].expect.args.lang: one_of choice 4: must be one of en, fr, got "es"`,
				`17:55: cases[4].expect.args.qurey: the tool search has no argument qurey`,
			},
		},
		{
			name:    "strict, partial validation",
			strict:  true,
			partial: true,
			want: []string{
				`5:54: cases[0].expect.args.top_k: must be an integer, got the string "5"`,
				`8:66: cases[1].expect.args.top_k: must be an integer, got the string "5"`,
				`11:20: cases[2].expect.tool: the expected arguments {top_k: 5} leave out query, which the tool search requires; with strict_args they are all a passing call may send`,
				`14:53: cases[3].expect.args.lang: one_of choice 2: must be one of en, fr, got "de"`,
				`14:53: cases[3].expect.args.lang: one_of choice 4: must be one of en, fr, got "es"`,
				`17:55: cases[4].expect.args.qurey: the tool search has no argument qurey`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse([]byte(fmt.Sprintf(argsSuite, fmt.Sprint(tt.strict))), "a.yaml")
			if err != nil {
				t.Fatal(err)
			}
			var c Catalog = newFakeCatalog(t)
			if tt.partial {
				c = partialTools{c.(*fakeTools)}
			}
			err = s.Check(c)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Check = %v, want nil", err)
				}
				return
			}
			var es Errors
			if !errors.As(err, &es) {
				t.Fatalf("Check = %v, want Errors", err)
			}
			if len(es) != len(tt.want) {
				t.Fatalf("Check found %d errors, want %d:\n%v", len(es), len(tt.want), err)
			}
			for i, e := range es {
				if e.Error() != "a.yaml:"+tt.want[i] {
					t.Errorf("error %d = %s\nwant    a.yaml:%s", i, e, tt.want[i])
				}
			}
		})
	}
}

// clashTools reports that docs and fs both expose "info".
type clashTools struct{ *fakeTools }

func (c clashTools) Clashes(name string) []string {
	if name == "info" {
		return []string{"docs__info", "fs__info"}
	}
	return nil
}

func TestCheckNamesClashChoices(t *testing.T) {
	s, err := Parse([]byte("cases:\n  - id: bare\n    ask: q\n    expect: {tool: info}\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := `c.yaml:4:20: cases[0].expect.tool: unknown tool "info": two servers expose it; name one of docs__info, fs__info (or docs.info)`
	if err := s.Check(clashTools{newFakeCatalog(t)}); err == nil || err.Error() != want {
		t.Errorf("Check = %v\nwant %s", err, want)
	}
	// A catalog that cannot tell keeps the plain message.
	if err := s.Check(newFakeCatalog(t)); err == nil || strings.Contains(err.Error(), "servers expose it") {
		t.Errorf("Check without Clashes = %v", err)
	}
}

// TestUnknownToolSuggestsAndLists: an unknown expected tool gets both the
// nearest name (a typo, or the name written longer, shorter or in another
// order) and the tools there are, all of them for a short catalog and the
// nearest few for a long one.
func TestUnknownToolSuggestsAndLists(t *testing.T) {
	short := &fakeTools{tools: map[string]fakeTool{}}
	for _, n := range []string{"search_docs", "get_doc", "list_docs"} {
		short.tools[n] = fakeTool{"docs", n, `{"type":"object"}`}
	}
	long := &fakeTools{tools: map[string]fakeTool{}}
	for _, n := range []string{"search_docs", "search_web", "get_doc", "list_docs", "create_issue", "close_issue", "list_issues",
		"send_message", "list_channels", "read_file", "write_file", "list_dir", "query_db", "list_tables"} {
		long.tools[n] = fakeTool{"s", n, `{"type":"object"}`}
	}
	const shortList = "tools: get_doc, list_docs, search_docs"
	for _, tt := range []struct {
		cat        *fakeTools
		tool, want string
	}{
		{short, "search_doc", `unknown tool "search_doc" (did you mean "search_docs"? ` + shortList + ")"},
		{short, "docs_search", `unknown tool "docs_search" (did you mean "search_docs"? ` + shortList + ")"},
		{short, "search", `unknown tool "search" (did you mean "search_docs"? ` + shortList + ")"},
		{short, "weather", `unknown tool "weather" (` + shortList + ")"},
		{long, "serch_docs", `unknown tool "serch_docs" (did you mean "search_docs"? nearest of 14 tools: search_docs, list_docs, get_doc, search_web, query_db)`},
		{long, "weather", `unknown tool "weather" (nearest of 14 tools: get_doc, list_dir, search_web, query_db, read_file)`},
	} {
		src := "cases:\n  - {id: a, ask: q, expect: {tool: " + tt.tool + "}}\n"
		s, err := Parse([]byte(src), "c.yaml")
		if err != nil {
			t.Fatal(err)
		}
		want := "c.yaml:2:36: cases[0].expect.tool: " + tt.want
		if err := s.Check(tt.cat); err == nil || err.Error() != want {
			t.Errorf("got  %v\nwant %s", err, want)
		}
	}
}
