package mcpclient

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgrade/toolgrade/internal/serversfile"
	"github.com/toolgrade/toolgrade/internal/toolschema"
)

var update = flag.Bool("update", false, "rewrite the golden files")

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
		Tool       string               `json:"tool"`
		Parameters json.RawMessage      `json:"parameters"`
		Rewrites   []toolschema.Rewrite `json:"rewrites"`
		Drops      []toolschema.Drop    `json:"drops"`
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
	want := []toolschema.Rewrite{{Path: "properties.parent.anyOf.0.oneOf", From: "oneOf", To: "anyOf"}}
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
		toolschema.PropertyOrderServer:        {"page_id", "type", "replace_content", "update_content", "insert_content", "replace_content_range"},
		toolschema.PropertyOrderRequiredFirst: {"page_id", "type", "insert_content", "replace_content", "replace_content_range", "update_content"},
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
