package servers

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgrade/toolgrade/internal/serversfile"
)

// fragmentServer serves the tools of one file of testdata/fragments over an
// in-memory transport, each input schema as the raw JSON the real server sent.
func fragmentServer(t *testing.T, name, file string) serversfile.Server {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "fragments", file))
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Tools []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(data, &list); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: name, Version: "1"}, nil)
	for _, tool := range list.Tools {
		srv.AddTool(&mcp.Tool{Name: tool.Name, Description: tool.Description, InputSchema: tool.InputSchema}, echo)
	}
	return inMemory(name, srv)
}

func fragmentCatalog(t *testing.T, opts *Options) *Catalog {
	t.Helper()
	return mustConnect(t, opts,
		fragmentServer(t, "github", "github@2025.4.8.json"),
		fragmentServer(t, "notion", "notion@2.5.2.json"),
		fragmentServer(t, "playwright", "playwright@0.0.83.json"),
		fragmentServer(t, "supabase", "supabase@0.13.0.json"),
	)
}

// TestFragmentsGolden pins what the model is shown of real servers' tools:
// parameters in the server's order, every rewrite and every ranked drop.
func TestFragmentsGolden(t *testing.T) {
	c := fragmentCatalog(t, nil)
	type shown struct {
		Tool       string          `json:"tool"`
		Parameters json.RawMessage `json:"parameters"`
		Rewrites   []Rewrite       `json:"rewrites"`
		Drops      []Drop          `json:"drops"`
	}
	var out []shown
	for _, tool := range c.Tools() {
		p, err := json.Marshal(tool.Ollama.Function.Parameters)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, shown{tool.Exposed, p, tool.Rewrites, tool.Drops})
	}
	got, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	golden := filepath.Join("testdata", "golden", "fragments.json")
	if *update {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("catalog differs from %s (rerun with -update if the change is meant):\n%s", golden, got)
	}
}

// TestNotionParent is the case of the issue: Notion's required parent
// reached the model as {"anyOf":[{},{"type":"string"}]}.
func TestNotionParent(t *testing.T) {
	c := fragmentCatalog(t, nil)
	tool, ok := c.Lookup("API-post-page")
	if !ok {
		t.Fatal("API-post-page missing")
	}
	parent, ok := tool.Ollama.Function.Parameters.Properties.Get("parent")
	if !ok || len(parent.AnyOf) != 2 {
		t.Fatalf("parent = %+v", parent)
	}
	first := parent.AnyOf[0]
	if len(first.AnyOf) != 3 {
		t.Fatalf("the oneOf of parentRequest did not become an anyOf of its 3 branches: %+v", first)
	}
	ws := first.AnyOf[2]
	typ, ok := ws.Properties.Get("type")
	if !ok || !reflect.DeepEqual(typ.Enum, []any{"workspace"}) {
		t.Errorf("workspace parent's const type = %+v, want enum [workspace]", typ)
	}
	want := []Rewrite{{"properties.parent.anyOf.0.oneOf", "oneOf", "anyOf"}}
	for _, r := range want {
		if !slices.Contains(tool.Rewrites, r) {
			t.Errorf("rewrite %v not recorded in %v", r, tool.Rewrites)
		}
	}
	for _, d := range tool.Dropped {
		if d == "properties.parent.anyOf.0.oneOf" {
			t.Errorf("%s still dropped", d)
		}
	}
	// Properties in Notion's order: parent first, as the server wrote it.
	var names []string
	for name := range tool.Ollama.Function.Parameters.Properties.All() {
		names = append(names, name)
	}
	if wantNames := []string{"parent", "properties", "children", "icon", "cover"}; !reflect.DeepEqual(names, wantNames) {
		t.Errorf("properties in order %q, want the server's %q", names, wantNames)
	}
}

func TestRewrites(t *testing.T) {
	cases := []struct {
		name, schema, want string
		rewrites           []Rewrite
		dropped            []string
	}{
		{"oneOf to anyOf",
			`{"type":"object","properties":{"p":{"oneOf":[{"type":"string"},{"type":"integer"}]}}}`,
			`{"type":"object","properties":{"p":{"anyOf":[{"type":"string"},{"type":"integer"}]}}}`,
			[]Rewrite{{"properties.p.oneOf", "oneOf", "anyOf"}}, nil},
		{"oneOf beside anyOf stays dropped",
			`{"type":"object","properties":{"p":{"anyOf":[{"type":"string"}],"oneOf":[{"type":"integer"}]}}}`,
			`{"type":"object","properties":{"p":{"anyOf":[{"type":"string"}]}}}`,
			nil, []string{"properties.p.oneOf"}},
		{"top-level oneOf has nowhere to go",
			`{"type":"object","oneOf":[{"required":["a"]},{"required":["b"]}],"properties":{"a":{},"b":{}}}`,
			`{"type":"object","properties":{"a":{},"b":{}}}`,
			nil, []string{"oneOf"}},
		{"const to enum",
			`{"type":"object","properties":{"k":{"type":"string","const":"page_id"}}}`,
			`{"type":"object","properties":{"k":{"type":"string","enum":["page_id"]}}}`,
			[]Rewrite{{"properties.k.const", "const", "enum"}}, nil},
		{"const narrows an enum that allows it",
			`{"type":"object","properties":{"k":{"enum":["a","b"],"const":"b"}}}`,
			`{"type":"object","properties":{"k":{"enum":["b"]}}}`,
			[]Rewrite{{"properties.k.const", "const", "enum"}}, nil},
		{"const outside its enum stays dropped",
			`{"type":"object","properties":{"k":{"enum":["a","b"],"const":"c"}}}`,
			`{"type":"object","properties":{"k":{"enum":["a","b"]}}}`,
			nil, []string{"properties.k.const"}},
		{"const object",
			`{"type":"object","properties":{"k":{"const":{"x":1}}}}`,
			`{"type":"object","properties":{"k":{"enum":[{"x":1}]}}}`,
			[]Rewrite{{"properties.k.const", "const", "enum"}}, nil},
		{"allOf merged at the top, in the server's order",
			`{"type":"object","properties":{"z":{"type":"string"}},"required":["z"],"allOf":[{"type":"object","properties":{"b":{"type":"integer"},"a":{}},"required":["b"]},{"properties":{"c":{}}}]}`,
			`{"type":"object","required":["z","b"],"properties":{"z":{"type":"string"},"b":{"type":"integer"},"a":{},"c":{}}}`,
			[]Rewrite{{"allOf", "allOf", "merged"}}, nil},
		{"allOf merged in a property",
			`{"type":"object","properties":{"o":{"description":"O","allOf":[{"type":"object","properties":{"x":{"type":"string"}}}]}}}`,
			`{"type":"object","properties":{"o":{"type":"object","description":"O","properties":{"x":{"type":"string"}}}}}`,
			[]Rewrite{{"properties.o.allOf", "allOf", "merged"}}, nil},
		{"allOf with a conflicting property stays dropped",
			`{"type":"object","properties":{"o":{"allOf":[{"properties":{"x":{"type":"string"}}},{"properties":{"x":{"type":"integer"}}}]}}}`,
			`{"type":"object","properties":{"o":{}}}`,
			nil, []string{"properties.o.allOf"}},
		{"allOf of other keywords stays dropped",
			`{"type":"object","properties":{"n":{"type":"integer","allOf":[{"minimum":1},{"maximum":5}]}}}`,
			`{"type":"object","properties":{"n":{"type":"integer"}}}`,
			nil, []string{"properties.n.allOf"}},
		{"allOf with malformed descriptions stays dropped",
			`{"type":"object","properties":{"o":{"description":{"x":1},"allOf":[{"description":{"x":2}}]}}}`,
			`{"type":"object","properties":{"o":{}}}`,
			nil, []string{"properties.o.allOf", "properties.o.description"}},
		{"allOf of a non-object type stays dropped",
			`{"type":"object","properties":{"s":{"type":"string","allOf":[{"type":"string"}]}}}`,
			`{"type":"object","properties":{"s":{"type":"string"}}}`,
			nil, []string{"properties.s.allOf"}},
		{"type lists kept",
			`{"type":"object","properties":{"l":{"type":["object","null"]}}}`,
			`{"type":"object","properties":{"l":{"type":["object","null"]}}}`,
			nil, nil},
		{"rewrites inside anyOf branches",
			`{"type":"object","properties":{"p":{"anyOf":[{"oneOf":[{"const":1},{"const":2}]},{"type":"string"}]}}}`,
			`{"type":"object","properties":{"p":{"anyOf":[{"anyOf":[{"enum":[1]},{"enum":[2]}]},{"type":"string"}]}}}`,
			[]Rewrite{{"properties.p.anyOf.0.oneOf", "oneOf", "anyOf"}, {"properties.p.anyOf.0.oneOf.0.const", "const", "enum"}, {"properties.p.anyOf.0.oneOf.1.const", "const", "enum"}}, nil},
	}
	for _, tc := range cases {
		tool := convertJSON(t, tc.schema)
		if got := paramsJSON(t, tool); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
		if !reflect.DeepEqual(tool.Rewrites, tc.rewrites) {
			t.Errorf("%s: Rewrites = %v, want %v", tc.name, tool.Rewrites, tc.rewrites)
		}
		if !reflect.DeepEqual(tool.Dropped, tc.dropped) {
			t.Errorf("%s: Dropped = %q, want %q", tc.name, tool.Dropped, tc.dropped)
		}
		// The validator still checks the schema as sent (a malformed one
		// cannot be).
		if tool.resolved == nil && !strings.Contains(tc.name, "malformed") {
			t.Errorf("%s: not resolved: %s", tc.name, tool.SchemaError)
		}
	}
}

func TestDropSeverity(t *testing.T) {
	tool := convertJSON(t, `{"type":"object","additionalProperties":false,"title":"T","anyOf":[{"required":["m"]},{"required":["n"]}],
		"properties":{
			"n":{"type":"integer","minimum":-9007199254740991,"maximum":9007199254740991},
			"m":{"type":"integer","maximum":100},
			"f":{"type":"string","format":"json","minLength":1,"default":"{}"},
			"o":{"type":"object","required":["x"],"additionalProperties":false,"properties":{"x":{}}},
			"map":{"type":"object","additionalProperties":{"type":"string"}},
			"c":{"enum":["a"],"const":"b"},
			"u":{"anyOf":[{}],"oneOf":[{}]},
			"r":{"$ref":"#"}}}`)
	want := map[string]Severity{
		"additionalProperties":                SeverityBenign,
		"anyOf":                               SeverityLost,
		"properties.c.const":                  SeverityLost,
		"properties.f.default":                SeverityMinor,
		"properties.f.format":                 SeverityLost,
		"properties.f.minLength":              SeverityMinor,
		"properties.m.maximum":                SeverityMinor,
		"properties.map.additionalProperties": SeverityLost,
		"properties.n.maximum":                SeverityBenign,
		"properties.n.minimum":                SeverityBenign,
		"properties.o.additionalProperties":   SeverityMinor,
		"properties.o.required":               SeverityLost,
		"properties.r.$ref":                   SeverityLost,
		"properties.u.oneOf":                  SeverityLost,
		"title":                               SeverityMinor,
	}
	got := map[string]Severity{}
	for i, d := range tool.Drops {
		if d.Path != tool.Dropped[i] {
			t.Errorf("Drops[%d] = %s, Dropped[%d] = %s: not in the same order", i, d.Path, i, tool.Dropped[i])
		}
		got[d.Path] = d.Severity
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("severities:\n got %v\nwant %v", got, want)
	}
}

func TestRequiredFirstOrder(t *testing.T) {
	schema := `{"type":"object","required":["b"],"properties":{"c":{},"b":{},"a":{"type":"object","required":["z"],"properties":{"y":{},"z":{}}}}}`
	var m map[string]any
	if err := json.Unmarshal([]byte(schema), &m); err != nil {
		t.Fatal(err)
	}
	for order, want := range map[string]string{
		"":                         `{"type":"object","required":["b"],"properties":{"c":{},"b":{},"a":{"type":"object","properties":{"y":{},"z":{}}}}}`,
		PropertyOrderServer:        `{"type":"object","required":["b"],"properties":{"c":{},"b":{},"a":{"type":"object","properties":{"y":{},"z":{}}}}}`,
		PropertyOrderRequiredFirst: `{"type":"object","required":["b"],"properties":{"b":{},"a":{"type":"object","properties":{"z":{},"y":{}}},"c":{}}}`,
	} {
		tool := convertTool("s", &mcp.Tool{Name: "t", InputSchema: m}, "t", convertOpts{raw: json.RawMessage(schema), propertyOrder: order})
		if got := paramsJSON(t, tool); got != want {
			t.Errorf("order %q:\n got %s\nwant %s", order, got, want)
		}
	}
	// Without the raw JSON the server's order is unknown: by name, the same
	// on every run.
	tool := convertTool("s", &mcp.Tool{Name: "t", InputSchema: m}, "t", convertOpts{})
	if got, want := paramsJSON(t, tool), `{"type":"object","required":["b"],"properties":{"a":{"type":"object","properties":{"y":{},"z":{}}},"b":{},"c":{}}}`; got != want {
		t.Errorf("no raw schema:\n got %s\nwant %s", got, want)
	}
}

func TestCaptureOverTheWire(t *testing.T) {
	// The SDK hands the schema over as a map; the order comes from the raw
	// tools/list result the capture kept, on every page.
	var tools []fakeTool
	for _, name := range []string{"one", "two", "three"} {
		tools = append(tools, fakeTool{name: name, schema: `{"type":"object","properties":{"zz":{},"` + name + `":{},"aa":{}}}`})
	}
	c := mustConnect(t, nil, inMemory("paged", newMCPServer(&mcp.ServerOptions{PageSize: 1}, tools...)))
	for _, tool := range c.Tools() {
		var names []string
		for name := range tool.Ollama.Function.Parameters.Properties.All() {
			names = append(names, name)
		}
		if want := []string{"zz", tool.Name, "aa"}; !reflect.DeepEqual(names, want) {
			t.Errorf("%s: properties %q, want %q", tool.Name, names, want)
		}
	}
}

func TestClashWarning(t *testing.T) {
	c := fragmentCatalog(t, nil)
	want := `tools "create_branch" of servers github and supabase are exposed as github__create_branch and supabase__create_branch`
	if w := c.Warnings(); !slices.Contains(w, want) {
		t.Errorf("Warnings = %q, want %q among them", w, want)
	}
	if got := c.Clashes("create_branch"); !reflect.DeepEqual(got, []string{"github__create_branch", "supabase__create_branch"}) {
		t.Errorf("Clashes(create_branch) = %q", got)
	}
	for _, name := range []string{"update_storage_config", "github__create_branch", "nothing"} {
		if got := c.Clashes(name); got != nil {
			t.Errorf("Clashes(%s) = %q, want nil", name, got)
		}
	}
	// Prefixed naming renames every tool by request: nothing to warn about.
	p := fragmentCatalog(t, &Options{Naming: NamingPrefixed})
	for _, w := range p.Warnings() {
		t.Errorf("prefixed naming warned: %s", w)
	}
	if got := p.Clashes("create_branch"); got != nil {
		t.Errorf("prefixed: Clashes = %q", got)
	}
}

func TestNotionPropertyOrderBothWays(t *testing.T) {
	// Notion lists the preferred replace_content before the deprecated
	// insert_content; required-first-then-by-name put insert_content first.
	for order, want := range map[string][]string{
		PropertyOrderServer:        {"page_id", "type", "replace_content", "update_content", "insert_content", "replace_content_range"},
		PropertyOrderRequiredFirst: {"page_id", "type", "insert_content", "replace_content", "replace_content_range", "update_content"},
	} {
		c := mustConnect(t, &Options{PropertyOrder: order}, fragmentServer(t, "notion", "notion@2.5.2.json"))
		tool, ok := c.Lookup("API-update-page-markdown")
		if !ok {
			t.Fatal("API-update-page-markdown missing")
		}
		var names []string
		for name := range tool.Ollama.Function.Parameters.Properties.All() {
			names = append(names, name)
		}
		if !reflect.DeepEqual(names, want) {
			t.Errorf("%s: properties %q, want %q", order, names, want)
		}
	}
}
