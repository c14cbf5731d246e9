package toolschema

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// TestExplainValidation: a failed validation names the values it is about
// as JSON, never in Go's syntax (map[k:v], a string without its quotes,
// <invalid reflect.Value>, 0/1, <anonymous schema>).
func TestExplainValidation(t *testing.T) {
	const schema = `{"type": "object", "additionalProperties": false, "required": ["query"], "properties": {
		"query": {"type": "string"},
		"kind": {"enum": ["a", "b"]},
		"n": {"type": "integer", "minimum": 1, "maximum": 10.5},
		"tags": {"type": "array", "items": {"type": "string"}},
		"c": {"const": {"x": 1}},
		"u": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
		"o": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
		"both": {"oneOf": [{"type": "integer"}, {"type": "number"}]},
		"not": {"not": {"type": "string"}},
		"m": {"type": "object", "additionalProperties": {"type": "integer"}},
		"l": {"type": "array", "contains": {"type": "integer"}},
		"ref": {"$ref": "#/$defs/kind"}},
		"$defs": {"kind": {"enum": ["x", "y"]}}}`
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(schema), &s); err != nil {
		t.Fatal(err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ args, want string }{
		{`{"query": {"regexp": "dog"}}`, `validating root: validating /properties/query: type: {"regexp":"dog"} has type "object", want "string"`},
		{`{"query": null}`, `validating root: validating /properties/query: type: null has type "null", want "string"`},
		{`{"query": ["a b"]}`, `validating root: validating /properties/query: type: ["a b"] has type "array", want "string"`},
		{`{"query": "x", "n": "5"}`, `validating root: validating /properties/n: type: "5" has type "string", want "integer"`},
		{`{"query": "x", "n": 5, "tags": ["5", 5]}`, `validating root: validating /properties/tags: validating /properties/tags/items: type: 5 has type "integer", want "string"`},
		{`{"query": "x", "kind": "c"}`, `validating root: validating /properties/kind: enum: "c" is not one of "a", "b"`},
		{`{"query": "x", "kind": {"a": 1}}`, `validating root: validating /properties/kind: enum: {"a":1} is not one of "a", "b"`},
		{`{"query": "x", "ref": "z"}`, `validating root: validating /properties/ref: validating /$defs/kind: enum: "z" is not one of "x", "y"`},
		{`{"query": "x", "n": 0}`, `validating root: validating /properties/n: minimum: 0 is less than 1`},
		{`{"query": "x", "n": 11}`, `validating root: validating /properties/n: maximum: 11 is greater than 10.5`},
		{`{"query": "x", "c": {"x": 2}}`, `validating root: validating /properties/c: const: {"x":2} does not equal {"x":1}`},
		{`{"query": "x", "u": [1]}`, "validating root: validating /properties/u: anyOf: did not validate against any of its 2 choices:\n" +
			"validating /properties/u/anyOf/0: type: [1] has type \"array\", want \"string\"\n" +
			"validating /properties/u/anyOf/1: type: [1] has type \"array\", want \"integer\""},
		{`{"query": "x", "o": null}`, `validating root: validating /properties/o: oneOf: did not validate against any of its 2 choices`},
		{`{"query": "x", "both": 1}`, `validating root: validating /properties/both: oneOf: validated against more than one of its choices`},
		{`{"query": "x", "not": "s"}`, `validating root: validating /properties/not: not: validated against the schema it must not`},
		{`{"query": "x", "m": {"k": "v"}}`, `validating root: validating /properties/m: validating /properties/m/additionalProperties: type: "v" has type "string", want "integer"`},
		{`{"query": "x", "l": ["a"]}`, `validating root: validating /properties/l: contains: ["a"] has no item that its "contains" schema allows`},
		{`{"query": "x", "z": 1}`, `validating root: unexpected additional properties ["z"]`},
		{`{}`, `validating root: required: missing properties: ["query"]`},
	} {
		var v any
		if err := json.Unmarshal([]byte(tt.args), &v); err != nil {
			t.Fatal(err)
		}
		err := ExplainValidation(rs.Validate(v), rs, v)
		if err == nil {
			t.Errorf("%s: valid", tt.args)
			continue
		}
		if got := err.Error(); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.args, got, tt.want)
		}
		for _, goism := range []string{"map[", "<invalid", "<anonymous", "0/1", ".000000"} {
			if strings.Contains(err.Error(), goism) {
				t.Errorf("%s: %q in %s", tt.args, goism, err)
			}
		}
	}
	if ExplainValidation(nil, rs, nil) != nil {
		t.Error("no error became one")
	}
}
