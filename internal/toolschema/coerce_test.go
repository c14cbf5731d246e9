package toolschema

import (
	"encoding/json"
	"testing"
)

func TestCoerceArgs(t *testing.T) {
	schema := `{
	  "type": "object",
	  "properties": {
	    "n": {"type": "integer"},
	    "x": {"type": "number"},
	    "flag": {"type": "boolean"},
	    "name": {"type": "string"},
	    "opt": {"type": ["integer", "null"]},
	    "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
	    "alt": {"anyOf": [{"type": "boolean"}, {"type": "integer"}]},
	    "filter": {"type": "object", "properties": {"limit": {"type": "integer"}}},
	    "tags": {"type": "array", "items": {"type": "integer"}},
	    "ref": {"$ref": "#/$defs/count"},
	    "any": {}
	  },
	  "$defs": {"count": {"type": "integer"}}
	}`
	tests := []struct {
		name, args, want string
		changed          bool
	}{
		{"integer from a string", `{"n": "5"}`, `{"n":5}`, true},
		{"negative integer, spaces trimmed", `{"n": " -12 "}`, `{"n":-12}`, true},
		{"not an integer", `{"n": "5.0"}`, `{"n": "5.0"}`, false},
		{"number from a string", `{"x": "2.5e3"}`, `{"x":2.5e3}`, true},
		{"not a number", `{"x": "two"}`, `{"x": "two"}`, false},
		{"true", `{"flag": "true"}`, `{"flag":true}`, true},
		{"False in any case", `{"flag": "False"}`, `{"flag":false}`, true},
		{"yes is not a boolean", `{"flag": "yes"}`, `{"flag": "yes"}`, false},
		{"a number for a string stays", `{"name": 5}`, `{"name": 5}`, false},
		{"a string for a string stays", `{"name": "5"}`, `{"name": "5"}`, false},
		{"null allowed", `{"opt": "null"}`, `{"opt":null}`, true},
		{"integer of a nullable", `{"opt": "7"}`, `{"opt":7}`, true},
		{"a union accepting strings leaves them", `{"either": "5"}`, `{"either": "5"}`, false},
		{"a union takes its first fitting type", `{"alt": "3"}`, `{"alt":3}`, true},
		{"object from a JSON string, coerced inside", `{"filter": "{\"limit\": \"3\"}"}`, `{"filter":{"limit":3}}`, true},
		{"nested object", `{"filter": {"limit": "3"}}`, `{"filter":{"limit":3}}`, true},
		{"array from a JSON string", `{"tags": "[1, \"2\"]"}`, `{"tags":[1,2]}`, true},
		{"array items", `{"tags": ["1", 2]}`, `{"tags":[1,2]}`, true},
		{"an object string for an array stays", `{"tags": "{}"}`, `{"tags": "{}"}`, false},
		{"through a $ref", `{"ref": "4"}`, `{"ref":4}`, true},
		{"no type, no change", `{"any": "4"}`, `{"any": "4"}`, false},
		{"unknown key", `{"other": "4"}`, `{"other": "4"}`, false},
		{"valid already", `{"n": 5, "flag": true}`, `{"n": 5, "flag": true}`, false},
		{"not JSON", `{"n": `, `{"n": `, false},
		{"keeps other values exact", `{"n": "1", "x": 12345678901234567890}`, `{"n":1,"x":12345678901234567890}`, true},
	}
	for _, tt := range tests {
		got, changed := CoerceArgs(json.RawMessage(schema), json.RawMessage(tt.args))
		if string(got) != tt.want || changed != tt.changed {
			t.Errorf("%s: CoerceArgs(%s) = %s, %v; want %s, %v", tt.name, tt.args, got, changed, tt.want, tt.changed)
		}
	}
	if got, changed := CoerceArgs(json.RawMessage(`not a schema`), json.RawMessage(`{"n": "5"}`)); changed || string(got) != `{"n": "5"}` {
		t.Errorf("a schema that is not JSON: %s, %v; want the arguments unchanged", got, changed)
	}
}

func TestCoerceRecursiveRef(t *testing.T) {
	schema := `{"$ref": "#/$defs/node", "$defs": {"node": {"type": "object", "properties": {"n": {"type": "integer"}, "next": {"$ref": "#/$defs/node"}}}}}`
	got, changed := CoerceArgs(json.RawMessage(schema), json.RawMessage(`{"n": "1", "next": {"n": "2", "next": {"n": "3"}}}`))
	if want := `{"n":1,"next":{"n":2,"next":{"n":3}}}`; string(got) != want || !changed {
		t.Errorf("recursive schema: %s, %v; want %s, true", got, changed, want)
	}
	loop := `{"$ref": "#/$defs/a", "$defs": {"a": {"$ref": "#/$defs/a"}}}`
	if _, changed := CoerceArgs(json.RawMessage(loop), json.RawMessage(`{"n": "1"}`)); changed {
		t.Error("a $ref to itself coerced something")
	}
}
