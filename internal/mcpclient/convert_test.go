package mcpclient

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgrade/toolgrade/internal/toolschema"
)

func TestConvertOverTheWire(t *testing.T) {
	// The same conversion through a real session, where the SDK decodes the
	// schema itself.
	data, err := os.ReadFile(filepath.Join("..", "toolschema", "testdata", "ref-schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	ref := string(data)
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	c := mustConnect(t, nil, fakeServer("s", fakeTool{name: "t", desc: "d", schema: ref}))
	tool, ok := c.Lookup("t")
	if !ok {
		t.Fatal("tool missing")
	}
	local := toolschema.Convert("s", &mcp.Tool{Name: "t", Description: "d", InputSchema: m}, toolschema.Options{Raw: json.RawMessage(ref)})
	if got, want := mustJSON(t, tool.Ollama.Function.Parameters), mustJSON(t, local.Ollama.Function.Parameters); got != want {
		t.Errorf("over the wire:\n%s\nlocally:\n%s", got, want)
	}
	if !reflect.DeepEqual(tool.Dropped, local.Dropped) {
		t.Errorf("Dropped differs: %q vs %q", tool.Dropped, local.Dropped)
	}
	ex := c.Call(context.Background(), "t", json.RawMessage(`{"path":"/a","owner":{"name":3}}`), "")
	if ex.ErrorKind != "invalid_args" {
		t.Errorf("ref'd schema not enforced: %+v", ex)
	}
}

func TestValidateArgs(t *testing.T) {
	c := mustConnect(t, nil, fakeServer("s", fakeTool{name: "t", schema: `{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`}))
	tool, ok := c.Lookup("s.t")
	if !ok {
		t.Fatal("lookup failed")
	}
	for args, valid := range map[string]bool{
		`{"n":3}`: true, `{"n":"3"}`: false, `{}`: false, ``: false, `[1]`: false, `{"n":`: false,
	} {
		if err := tool.ValidateArgs(json.RawMessage(args)); (err == nil) != valid {
			t.Errorf("ValidateArgs(%s) = %v, want valid=%v", args, err, valid)
		}
	}
}
