package toolbox

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgrade/toolgrade/internal/mcpclient"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/toolschema"
)

// A schema with something of every kind the conversion treats: a oneOf it
// rewrites, a const, a format it drops, bounds the model is not shown.
const staticSchema = `{"type":"object","required":["a"],"additionalProperties":false,"properties":{
	"a":{"type":"string","format":"date","minLength":2},
	"b":{"oneOf":[{"type":"string"},{"type":"integer"}]},
	"c":{"const":"x"},
	"d":{"type":"integer","minimum":1,"maximum":10}}}`

// An inline tool is converted exactly as the same tool from an MCP server:
// the same function JSON, rewrites, drops and hidden constraints, and its
// arguments are validated alike.
func TestStaticConvertsAsMCP(t *testing.T) {
	base := mustConnect(t, nil, fakeServer("srv", fakeTool{name: "f", desc: "Does f.", schema: staticSchema}))
	st, err := NewStatic(base, []StaticTool{{Name: "f", Description: "Does f.", Schema: json.RawMessage(staticSchema)}})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := base.Lookup("f")
	got := st.Tools()[0]
	wj, _ := json.Marshal(want.Ollama)
	gj, _ := json.Marshal(got.Ollama)
	if string(wj) != string(gj) {
		t.Errorf("inline tool JSON\n got %s\nwant %s", gj, wj)
	}
	if diff := cmp.Diff(want.Drops, got.Drops); diff != "" {
		t.Errorf("drops (-mcp +inline):\n%s", diff)
	}
	if diff := cmp.Diff(want.Rewrites, got.Rewrites); diff != "" {
		t.Errorf("rewrites (-mcp +inline):\n%s", diff)
	}
	hidden := func(hs []toolschema.Hidden) (out []string) {
		for _, h := range hs {
			out = append(out, h.String())
		}
		return out
	}
	if len(want.Hidden) == 0 || len(want.Drops) == 0 || len(want.Rewrites) == 0 {
		t.Fatal("the schema must hide, drop and rewrite something for the test to mean anything")
	}
	if diff := cmp.Diff(hidden(want.Hidden), hidden(st.HiddenOf("f"))); diff != "" {
		t.Errorf("hidden (-mcp +inline):\n%s", diff)
	}
	if got.Server != "" {
		t.Errorf("an inline tool has server %q", got.Server)
	}
	for _, args := range []string{`{"a":"2024-01-01","d":5}`, `{"d":5}`, `{"a":"2024-01-01","d":50}`, `{"a":"2024-01-01","z":1}`} {
		werr := base.ValidateArgs("f", json.RawMessage(args))
		gerr := st.ValidateArgs("f", json.RawMessage(args))
		if (werr == nil) != (gerr == nil) || toolschema.IsHiddenOnly(werr) != toolschema.IsHiddenOnly(gerr) {
			t.Errorf("%s: inline validates %v, MCP %v", args, gerr, werr)
		}
	}
}

// Properties keep the order the definition writes them in, which is the
// order the model sees; the catalog's required-first option applies too.
func TestStaticPropertyOrder(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"string"},"m":{"type":"string"}},"required":["m"]}`)
	order := func(opts *mcpclient.Options) string {
		base := mustConnect(t, opts)
		st, err := NewStatic(base, []StaticTool{{Name: "f", Schema: schema}})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for name := range st.OllamaTools()[0].Function.Parameters.Properties.All() {
			names = append(names, name)
		}
		return strings.Join(names, ",")
	}
	if got := order(nil); got != "z,a,m" {
		t.Errorf("order %s, want z,a,m (as written)", got)
	}
	if got := order(&mcpclient.Options{PropertyOrder: toolschema.PropertyOrderRequiredFirst}); got != "m,a,z" {
		t.Errorf("required-first order %s, want m,a,z", got)
	}
}

// Named tools are the servers' own and run there; an inline tool never
// runs: a call to it is refused, after its arguments are checked as a
// server's would be.
func TestStaticCalls(t *testing.T) {
	base := mustConnect(t, nil,
		fakeServer("docs", fakeTool{name: "search"}, fakeTool{name: "other"}))
	st, err := NewStatic(base, []StaticTool{
		{Name: "g", Description: "G.", Schema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)},
		{Name: "search"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"g", "search"}, st.Names()); diff != "" {
		t.Error(diff)
	}
	ctx := context.Background()
	if x := st.Call(ctx, "docs.search", json.RawMessage(`{"q":1}`), "1"); x.IsError || x.Server != "docs" || !strings.Contains(x.Result, `args={"q":1}`) {
		t.Errorf("named call = %+v, want run on docs", x)
	}
	if x := st.Call(ctx, "other", nil, "2"); x.ErrorKind != record.ExecUnknownTool || !strings.Contains(x.Result, "available tools: g, search") {
		t.Errorf("a server tool not in the case = %+v, want unknown_tool", x)
	}
	if x := st.Call(ctx, "g", json.RawMessage(`{"n":"x"}`), "3"); x.ErrorKind != record.ExecInvalidArgs {
		t.Errorf("bad args to inline = %+v, want invalid_args", x)
	}
	if x := st.Call(ctx, "g", json.RawMessage(`{"n":3}`), "4"); x.ErrorKind != record.ExecServerFailure || !strings.Contains(x.Result, "defined inline") {
		t.Errorf("inline call = %+v, want refused", x)
	}
	if _, ok := st.Resolve("other"); ok {
		t.Error("a server tool outside the case resolves")
	}
	if e, ok := st.Resolve("docs__search"); !ok || e != "search" {
		t.Errorf("docs__search resolves to %q %v", e, ok)
	}
	if info, ok := st.ToolInfo("docs.search"); !ok || info.Server != "docs" {
		t.Errorf("ToolInfo = %+v %v", info, ok)
	}
	if _, err := NewStatic(base, []StaticTool{{Name: "nope"}}); err == nil {
		t.Error("a named tool the servers lack was accepted")
	}
	if _, err := NewStatic(base, []StaticTool{{Name: "search"}, {Name: "search", Schema: json.RawMessage(`{}`)}}); err == nil {
		t.Error("a tool listed twice was accepted")
	}
}

// A Base builds each distinct tool list once, and only once even when
// asked from several goroutines at once; a list that fails is not kept.
func TestStaticsShareEqualLists(t *testing.T) {
	base := mustConnect(t, nil, fakeServer("docs", fakeTool{name: "search"}))
	ss := NewBase(base)
	inline := StaticTool{Name: "g", Description: "G.", Schema: json.RawMessage(`{"type":"object"}`)}
	lists := [][]StaticTool{{inline}, {{Name: "search"}}, {inline, {Name: "search"}}}
	firsts := make([]*Static, len(lists))
	for i, l := range lists {
		st, err := ss.static(l)
		if err != nil {
			t.Fatal(err)
		}
		firsts[i] = st
	}
	var wg sync.WaitGroup
	for i, l := range lists {
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				// An equal list in a new slice: shared by value, not identity.
				st, err := ss.static(append([]StaticTool(nil), l...))
				if err != nil || st != firsts[i] {
					t.Errorf("list %d: got %p (%v), want the catalog built first %p", i, st, err, firsts[i])
				}
			}()
		}
	}
	wg.Wait()
	if firsts[0] == firsts[2] || firsts[1] == firsts[2] {
		t.Error("different lists share a catalog")
	}
	if _, err := ss.static([]StaticTool{{Name: "nope"}}); err == nil {
		t.Error("a named tool the servers lack was accepted")
	}
	if ss.Built() != len(lists) {
		t.Errorf("Built = %d, want %d", ss.Built(), len(lists))
	}
}
