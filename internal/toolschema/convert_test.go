package toolschema

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// convertJSON converts a tool whose schema arrives as the SDK hands it over:
// decoded into map[string]any.
func convertJSON(t *testing.T, schema string) *Tool {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(schema), &m); err != nil {
		t.Fatal(err)
	}
	return Convert("s", &mcp.Tool{Name: "t", Description: "d", InputSchema: m}, Options{Raw: json.RawMessage(schema)})
}

func paramsJSON(t *testing.T, tool *Tool) string {
	t.Helper()
	data, err := json.Marshal(tool.Ollama.Function.Parameters)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// refSchema is a schema with every kind of $ref (local, nested, recursive,
// remote, dangling) beside keywords Ollama's types cannot carry; the MCP
// client's tests convert it over the wire.
func refSchema(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "ref-schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestConvertRefsAndDropped(t *testing.T) {
	tool := convertJSON(t, refSchema(t))
	wantDropped := []string{
		"additionalProperties",
		"properties.choice.examples",
		"properties.choice.title",
		"properties.dangling.$ref",
		"properties.mode.default",
		"properties.owner.required",
		"properties.owner.title",
		"properties.path.maxLength",
		"properties.path.minLength",
		"properties.path.pattern",
		"properties.remote.$ref",
		"properties.self.$ref",
		"properties.tree.properties.children.items.$ref",
		"properties.tree.properties.parent.$ref",
		"properties.value.anyOf.0.format",
		"properties.value.anyOf.1.minimum",
		"title",
	}
	if !reflect.DeepEqual(tool.Dropped, wantDropped) {
		t.Errorf("Dropped:\n got %q\nwant %q", tool.Dropped, wantDropped)
	}
	// Properties in the schema's own order, the items' keys too.
	want := `{"type":"object","required":["path","owner"],"properties":{` +
		`"path":{"type":"string","description":"File path"},` +
		`"mode":{"type":"string","enum":["r","w"]},` +
		`"owner":{"type":"object","description":"Who owns it","properties":{"name":{"type":"string"},"address":{"type":"object","properties":{"city":{"type":"string","description":"City"}}}}},` +
		`"tree":{"type":"object","properties":{"label":{"type":"string"},"children":{"type":"array","items":{"type":"object"}},"parent":{"type":"object"}}},` +
		`"value":{"anyOf":[{"type":"string"},{"type":"number"}]},` +
		`"choice":{"anyOf":[{"type":"string"}],"enum":["x"]},` +
		`"self":{"type":"object"},` +
		`"remote":{"type":"string"},` +
		`"dangling":{"type":"integer"},` +
		`"tags":{"type":["array","null"],"items":{"type":"string","minLength":2}},` +
		`"data":{"enum":[{"$ref":"#/not/a/ref"}]}` +
		`}}`
	if got := paramsJSON(t, tool); got != want {
		t.Errorf("parameters:\n got %s\nwant %s", got, want)
	}
	wantRewrites := []Rewrite{
		{"properties.choice.allOf", "allOf", "merged"},
		{"properties.choice.const", "const", "enum"},
		{"properties.choice.oneOf", "oneOf", "anyOf"},
	}
	if !reflect.DeepEqual(tool.Rewrites, wantRewrites) {
		t.Errorf("Rewrites:\n got %v\nwant %v", tool.Rewrites, wantRewrites)
	}
	if tool.SchemaError != "" {
		t.Errorf("SchemaError = %s", tool.SchemaError)
	}
	// The original schema, refs and all, stays available.
	var orig map[string]any
	if err := json.Unmarshal(tool.InputSchema, &orig); err != nil || orig["$defs"] == nil {
		t.Errorf("InputSchema lost its $defs: %s", tool.InputSchema)
	}
}

func TestValidationUsesOriginalSchema(t *testing.T) {
	// The remote ref keeps jsonschema-go from resolving the original, so this
	// also exercises the fallback to the inlined copy.
	tool := convertJSON(t, refSchema(t))
	if tool.resolved == nil {
		t.Fatal("no resolved schema")
	}
	valid := map[string]any{"path": "/a", "owner": map[string]any{"name": "ann"}}
	if err := tool.resolved.Validate(valid); err != nil {
		t.Errorf("valid arguments rejected: %v", err)
	}
	for name, args := range map[string]map[string]any{
		"ref target type":      {"path": "/a", "owner": map[string]any{"name": 1}},
		"ref target required":  {"path": "/a", "owner": map[string]any{}},
		"dropped keyword kept": {"path": "", "owner": map[string]any{"name": "ann"}},
		"no additional":        {"path": "/a", "owner": map[string]any{"name": "ann"}, "x": 1},
	} {
		if err := tool.resolved.Validate(args); err == nil {
			t.Errorf("%s: %v accepted", name, args)
		}
	}

	// Without remote refs the original schema itself is used: recursion is
	// checked to any depth, where the model only sees one level.
	tool = convertJSON(t, `{"type":"object","properties":{"tree":{"$ref":"#/definitions/Node"}},
		"definitions":{"Node":{"type":"object","properties":{"label":{"type":"string"},"kids":{"type":"array","items":{"$ref":"#/definitions/Node"}}}}}}`)
	deep := map[string]any{"tree": map[string]any{"kids": []any{map[string]any{"kids": []any{map[string]any{"label": 5}}}}}}
	if err := tool.resolved.Validate(deep); err == nil {
		t.Error("a bad value deep in a recursive structure was accepted")
	}
}

func TestValidationDrafts(t *testing.T) {
	for _, draft := range []string{
		"http://json-schema.org/draft-07/schema#",
		"https://json-schema.org/draft/2019-09/schema",
		"http://json-schema.org/draft-04/schema#",
		"",
	} {
		tool := convertJSON(t, `{"$schema":"`+draft+`","type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)
		if tool.resolved == nil {
			t.Errorf("%q: not resolved: %s", draft, tool.SchemaError)
			continue
		}
		if err := tool.resolved.Validate(map[string]any{"n": 1.0}); err != nil {
			t.Errorf("%q: valid rejected: %v", draft, err)
		}
		if err := tool.resolved.Validate(map[string]any{"n": "one"}); err == nil {
			t.Errorf("%q: invalid accepted", draft)
		}
		for _, d := range tool.Dropped {
			if d == "$schema" {
				t.Errorf("%q: $schema listed as dropped", draft)
			}
		}
	}
}

func TestConvertEdgeCases(t *testing.T) {
	cases := []struct {
		name, schema, want string
		dropped            []string
	}{
		{"no properties", `{"type":"object"}`, `{"type":"object","properties":{}}`, nil},
		{"root description", `{"type":"object","description":"x","properties":{"a":true}}`,
			`{"type":"object","properties":{"a":{}}}`, []string{"description"}},
		{"nested required, server order", `{"type":"object","properties":{"o":{"type":"object","required":["z","y"],"properties":{"a":{},"y":{},"z":{}}}}}`,
			`{"type":"object","properties":{"o":{"type":"object","properties":{"a":{},"y":{},"z":{}}}}}`, []string{"properties.o.required"}},
		{"required naming a missing property", `{"type":"object","required":["ghost","b"],"properties":{"a":{},"b":{}}}`,
			`{"type":"object","required":["ghost","b"],"properties":{"a":{},"b":{}}}`, nil},
		{"ref siblings override", `{"type":"object","properties":{"p":{"$ref":"#/$defs/P","description":"mine"}},"$defs":{"P":{"type":"string","description":"theirs"}}}`,
			`{"type":"object","properties":{"p":{"type":"string","description":"mine"}}}`, nil},
		{"pointer into properties", `{"type":"object","properties":{"a":{"type":"string","description":"A"},"b":{"$ref":"#/properties/a"}}}`,
			`{"type":"object","properties":{"a":{"type":"string","description":"A"},"b":{"type":"string","description":"A"}}}`, nil},
		{"mutual recursion", `{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},"$defs":{"A":{"type":"object","properties":{"b":{"$ref":"#/$defs/B"}}},"B":{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}}}}}`,
			`{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"object","properties":{"a":{"type":"object"}}}}}}}`,
			[]string{"properties.a.properties.b.properties.a.$ref"}},
		{"false property", `{"type":"object","properties":{"never":false}}`,
			`{"type":"object","properties":{"never":{}}}`, []string{"properties.never"}},
	}
	for _, tc := range cases {
		tool := convertJSON(t, tc.schema)
		if got := paramsJSON(t, tool); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
		if !reflect.DeepEqual(tool.Dropped, tc.dropped) {
			t.Errorf("%s: Dropped = %q, want %q", tc.name, tool.Dropped, tc.dropped)
		}
	}
}
