package toolbox

import (
	"context"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/fakes/rig"
	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/suite"
)

const suiteYAML = `
defaults: {deny_tools: [docs.get_document]}
cases:
  - id: plain
    ask: Hours?
    expect: {tool: search}
  - id: inline
    ask: 5 factorial?
    tools:
      - {name: fact, description: "n!.", parameters: {type: object, properties: {n: {type: integer}}}}
    expect: {calls: [{tool: fact, args: {n: 5}}]}
  - id: inline-again
    ask: 6 factorial?
    tools:
      - {name: fact, description: "n!.", parameters: {type: object, properties: {n: {type: integer}}}}
    expect: {calls: [{tool: fact, args: {n: 6}}]}
  - id: subset
    ask: Dog?
    tools: [docs.search, get_document]
    expect: {tool: search}
`

func checked(t *testing.T, text string) (*suite.Suite, *Base) {
	t.Helper()
	s, err := suite.Parse([]byte(text), "s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cc := NewBase(rig.Catalog(t, nil, "docs"))
	if err := s.Check(cc); err != nil {
		t.Fatal(err)
	}
	return s, cc
}

// Check builds the cases' catalogs; the cases that list the same tools
// share one catalog and one toolbox, transformed once; a case without tools
// has none; the toolbox is the suite's tool policy over the case's catalog,
// so a denied tool of a subset is blocked and a listed one runs.
func TestToolboxesShareAndApplyThePolicy(t *testing.T) {
	s, cc := checked(t, suiteYAML)
	if cc.Built() != 2 {
		t.Errorf("built %d catalogs, want 2 (the inline one, the subset)", cc.Built())
	}
	calls := 0
	tbs, err := caseOffers(s, cc, func(tools bridge.Toolbox, st *Static) (Offer, error) {
		calls++
		return Offer{Tools: tools, Catalog: st}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 2 || len(tbs) != 3 {
		t.Fatalf("%d transforms, %d toolboxes; want 2 and 3", calls, len(tbs))
	}
	if _, ok := tbs["plain"]; ok {
		t.Error("a case without tools has a toolbox")
	}
	if tbs["inline"] != tbs["inline-again"] || tbs["inline"] == tbs["subset"] {
		t.Error("equal lists do not share a toolbox, or different ones do")
	}
	if got := toolNames(tbs["subset"].Tools); got != "search,get_document" {
		t.Errorf("subset offers %s", got)
	}
	ctx := context.Background()
	sub := tbs["subset"].Tools
	if ex := sub.Call(ctx, "get_document", []byte(`{"name":"hours"}`), "1"); ex.ErrorKind != record.ExecBlocked {
		t.Errorf("denied tool: %+v, want blocked", ex)
	}
	if ex := sub.Call(ctx, "search", []byte(`{"query":"dog"}`), "2"); ex.IsError || ex.Server != "docs" {
		t.Errorf("listed tool: %+v, want run on docs", ex)
	}
	if cc.Built() != 2 {
		t.Errorf("Toolboxes built more catalogs: %d", cc.Built())
	}
}

// With no transform the policy is sent as it is and calls are checked
// against the case's catalog; a suite whose cases bring no tools has none.
func TestToolboxesDefaults(t *testing.T) {
	s, cc := checked(t, suiteYAML)
	tbs, err := CaseOffers(s, cc)
	if err != nil {
		t.Fatal(err)
	}
	ct := tbs["inline"]
	if _, ok := ct.Tools.(*bridge.Policy); !ok {
		t.Errorf("tools %T, want the policy", ct.Tools)
	}
	if st, ok := ct.Catalog.(*Static); !ok || strings.Join(st.Names(), ",") != "fact" {
		t.Errorf("catalog %T, want the case's", ct.Catalog)
	}
	plain, cp := checked(t, "cases: [{id: a, ask: x, expect: {no_tool: true}}]")
	if tbs, err := CaseOffers(plain, cp); err != nil || tbs != nil {
		t.Errorf("no case tools: %v %v, want nil", tbs, err)
	}
}

func toolNames(tb bridge.Toolbox) string {
	var out []string
	for _, t := range tb.OllamaTools() {
		out = append(out, t.Function.Name)
	}
	return strings.Join(out, ",")
}
