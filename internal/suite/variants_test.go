package suite

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ollama/ollama/api"
)

// listTools adds the tools as offered to the model, for overlay checks.
type listTools struct {
	*fakeTools
	tools api.Tools
}

func (c listTools) OllamaTools() api.Tools { return c.tools }

func newListCatalog(t *testing.T) listTools {
	t.Helper()
	var tools api.Tools
	err := json.Unmarshal([]byte(`[
	  {"type":"function","function":{"name":"search","description":"Search.","parameters":{"type":"object","required":["query"],
	    "properties":{"query":{"type":"string","description":"Words."},"top_k":{"type":"integer"},
	      "filter":{"type":"object","properties":{"kind":{"type":"string"},"lang":{"type":"string"}}}}}}},
	  {"type":"function","function":{"name":"get_document","parameters":{"type":"object","properties":{"name":{"type":"string"}}}}},
	  {"type":"function","function":{"name":"list_documents","parameters":{"type":"object","properties":{}}}},
	  {"type":"function","function":{"name":"docs__info","parameters":{"type":"object","properties":{}}}},
	  {"type":"function","function":{"name":"fs__info","parameters":{"type":"object","properties":{}}}}
	]`), &tools)
	if err != nil {
		t.Fatal(err)
	}
	return listTools{newFakeCatalog(t), tools}
}

const variantsSuite = `servers: servers.json
variants:
  - name: terse
    system: "Be brief."
    tools:
      search:
        description: "Find lines."
        params:
          query: "What to find."
          filter.kind: "The kind."
      docs.get_document: {description: ""}
  - name: branch
    servers: branch/servers.json
cases:
  - {id: a, ask: q, expect: {tool: search}}
  - id: own-system
    ask: [{role: system, content: Mine.}, {role: user, content: q}]
    expect: {no_tool: true}
`

func TestParseVariants(t *testing.T) {
	s, err := Parse([]byte(variantsSuite), "/suites/v.yaml")
	if err != nil {
		t.Fatal(err)
	}
	empty, find, what, kind := "", "Find lines.", "What to find.", "The kind."
	_ = find
	want := []Variant{
		{Name: "terse", Pos: Pos{File: "/suites/v.yaml", Line: 3, Col: 5}, System: "Be brief.", Tools: []ToolOverlay{
			{Tool: "search", Pos: Pos{File: "/suites/v.yaml", Line: 6, Col: 7}, Description: &find, Params: []ParamOverlay{
				{Path: "query", Pos: Pos{File: "/suites/v.yaml", Line: 9, Col: 11}, Description: what},
				{Path: "filter.kind", Pos: Pos{File: "/suites/v.yaml", Line: 10, Col: 11}, Description: kind},
			}},
			{Tool: "docs.get_document", Pos: Pos{File: "/suites/v.yaml", Line: 11, Col: 7}, Description: &empty},
		}},
		{Name: "branch", Pos: Pos{File: "/suites/v.yaml", Line: 12, Col: 5}, ServersPath: "/suites/branch/servers.json"},
	}
	if diff := cmp.Diff(want, s.Variants); diff != "" {
		t.Errorf("variants (-want +got):\n%s", diff)
	}
	if got := s.VariantNames(); !cmp.Equal(got, []string{"terse", "branch"}) {
		t.Errorf("names %v", got)
	}
	if s.Variant("terse") != &s.Variants[0] || s.Variant("base") != nil || s.Variant("") != nil {
		t.Error("Variant does not find variants by name")
	}
	// The variant's system prompt replaces the suite's, except where the case
	// brings its own.
	a, own := &s.Cases[0], &s.Cases[1]
	if got := s.VariantConversation(a, &s.Variants[0]); got[0] != (Message{Role: "system", Content: "Be brief."}) || len(got) != 2 {
		t.Errorf("conversation %v", got)
	}
	if got := s.VariantConversation(own, &s.Variants[0]); got[0].Content != "Mine." || len(got) != 2 {
		t.Errorf("a case's own system message was replaced: %v", got)
	}
	if got := s.VariantConversation(a, &s.Variants[1]); len(got) != 1 {
		t.Errorf("a variant without system added one: %v", got)
	}
}

func TestParseVariantErrors(t *testing.T) {
	src := `variants:
  - {name: base, system: s}
  - {name: a, sytem: s}
  - {name: b}
  - {name: c, system: s}
  - {name: c, system: t}
  - {name: "d e", system: s}
  - {name: f, tools: {search: {descripton: x}}}
  - {name: g, tools: {search: {params: {a..b: x}}}}
  - {system: s}
cases:
  - {id: a, ask: q, expect: {no_tool: true}}
`
	_, err := Parse([]byte(src), "v.yaml")
	if err == nil {
		t.Fatal("no error")
	}
	if n := strings.Count(err.Error(), "\n") + 1; n != 8 {
		t.Errorf("%d errors, want 8 (a typo is not also a variant that changes nothing):\n%v", n, err)
	}
	for _, w := range []string{
		`v.yaml:2:12: variants[0].name: "base" is the servers' own catalog; give the variant another name`,
		`v.yaml:3:15: variants[1]: unknown key "sytem" (did you mean "system"?)`,
		`v.yaml:4:5: variants[2]: changes nothing: give tools:, system:, servers:, schema_hints:, think:, options: or decoys:`,
		`v.yaml:6:12: variants[4].name: variant "c" is defined twice (first at line 5, column 12)`,
		`v.yaml:7:12: variants[5].name: "d e": a variant's name has no spaces or commas`,
		`v.yaml:8:32: variants[6].tools.search: unknown key "descripton" (did you mean "description"?)`,
		`v.yaml:9:41: variants[7].tools.search.params.a..b: "a..b" is not a parameter path`,
		`v.yaml:10:5: variants[8]: missing name:`,
	} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("errors lack %q:\n%v", w, err)
		}
	}
}

func TestCheckOverlaysAgainstTheCatalog(t *testing.T) {
	s, err := Parse([]byte(variantsSuite), "v.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Check(newListCatalog(t)); err != nil {
		t.Fatal(err)
	}
	if got := []string{s.Variants[0].Tools[0].Exposed, s.Variants[0].Tools[1].Exposed}; !cmp.Equal(got, []string{"search", "get_document"}) {
		t.Errorf("exposed %v", got)
	}

	bad := `variants:
  - name: typos
    tools:
      serch: {description: x}
      search:
        params:
          quer: x
          filter.knd: x
          top_k.x: x
      get_document: {params: {name: x}}
      docs.get_document: {description: y}
cases:
  - {id: a, ask: q, expect: {no_tool: true}}
`
	s, err = Parse([]byte(bad), "bad.yaml")
	if err != nil {
		t.Fatal(err)
	}
	err = s.Check(newListCatalog(t))
	if err == nil {
		t.Fatal("no error")
	}
	for _, w := range []string{
		`bad.yaml:4:7: variants[0].tools.serch: unknown tool "serch" (did you mean "search"? tools: docs__info, fs__info, get_document, list_documents, search)`,
		`bad.yaml:7:11: variants[0].tools.search.params.quer: unknown parameter "quer" of search (did you mean "query"?)`,
		`bad.yaml:8:11: variants[0].tools.search.params.filter.knd: unknown parameter "knd" of filter of search (did you mean "kind"?)`,
		`bad.yaml:9:11: variants[0].tools.search.params.top_k.x: top_k of search has no nested properties, so it has no "x"`,
		`bad.yaml:11:7: variants[0].tools.docs.get_document: "get_document" and "docs.get_document" are the same tool, get_document`,
	} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("errors lack %q:\n%v", w, err)
		}
	}
	if n := strings.Count(err.Error(), "\n") + 1; n != 5 {
		t.Errorf("%d errors, want 5:\n%v", n, err)
	}
}

// A variant with its own servers is checked against them by CheckVariant,
// not against the suite's by Check.
func TestCheckVariantWithItsOwnServers(t *testing.T) {
	src := `variants:
  - name: branch
    servers: b.json
    tools: {lookup: {description: x}}
cases:
  - {id: a, ask: q, expect: {tool: search, args: {top_k: 5}}}
  - {id: b, ask: q, expect: {tool: list_documents}}
`
	s, err := Parse([]byte(src), "v.yaml")
	if err != nil {
		t.Fatal(err)
	}
	base := newListCatalog(t)
	if err := s.Check(base); err != nil {
		t.Fatalf("Check looked at the branch's overlays: %v", err)
	}
	// The branch renames search to lookup and drops list_documents.
	branch := newListCatalog(t)
	branch.tools = append(api.Tools(nil), branch.tools...)
	branch.tools[0].Function.Name = "lookup"
	branch.fakeTools.tools["lookup"] = branch.fakeTools.tools["search"]
	delete(branch.fakeTools.tools, "search")
	delete(branch.fakeTools.tools, "list_documents")
	err = s.CheckVariant(s.Variant("branch"), branch)
	if err == nil {
		t.Fatal("no error")
	}
	for _, w := range []string{
		`v.yaml:6:36: cases[0].expect.tool: variant branch: its servers (` + s.Variants[0].ServersPath + `): unknown tool "search" (tools: docs__info, fs__info, get_document, lookup)`,
		`v.yaml:7:36: cases[1].expect.tool: variant branch: its servers (` + s.Variants[0].ServersPath + `): unknown tool "list_documents"`,
	} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("errors lack %q:\n%v", w, err)
		}
	}
	if s.Variants[0].Tools[0].Exposed != "lookup" || s.Cases[0].Expect.Calls[0].Exposed != "search" {
		t.Errorf("exposed names: overlay %q, case %q", s.Variants[0].Tools[0].Exposed, s.Cases[0].Expect.Calls[0].Exposed)
	}
	if err := s.CheckVariant(s.Variant("branch"), newListCatalog(t)); err == nil || !strings.Contains(err.Error(), `unknown tool "lookup"`) {
		t.Errorf("the overlay was not checked against the branch's catalog: %v", err)
	}
}

// The shipped variant example loads, and the schema accepts it.
func TestShippedVariantSuite(t *testing.T) {
	data, err := os.ReadFile("../../cases/docs-variants.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Parse(data, "../../cases/docs-variants.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Variants) != 1 || s.Variants[0].Name != "explicit-get" {
		t.Errorf("variants %+v", s.Variants)
	}
	_, rs := loadSchema(t)
	if err := rs.Validate(yamlToJSON(t, string(data))); err != nil {
		t.Error(err)
	}
}
