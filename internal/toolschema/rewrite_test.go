package toolschema

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

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
		tool := Convert("s", &mcp.Tool{Name: "t", InputSchema: m}, Options{Raw: json.RawMessage(schema), PropertyOrder: order})
		if got := paramsJSON(t, tool); got != want {
			t.Errorf("order %q:\n got %s\nwant %s", order, got, want)
		}
	}
	// Without the raw JSON the server's order is unknown: by name, the same
	// on every run.
	tool := Convert("s", &mcp.Tool{Name: "t", InputSchema: m}, Options{})
	if got, want := paramsJSON(t, tool), `{"type":"object","required":["b"],"properties":{"a":{"type":"object","properties":{"y":{},"z":{}}},"b":{},"c":{}}}`; got != want {
		t.Errorf("no raw schema:\n got %s\nwant %s", got, want)
	}
}
