package toolschema

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// TestValidationErrorsShowValuesAsJSON: the value a schema check judged
// is shown as JSON, as the model wrote it, not as Go prints it.
func TestValidationErrorsShowValuesAsJSON(t *testing.T) {
	var s jsonschema.Schema
	schema := `{"type":"object","properties":{
		"top_k":{"type":"integer"},
		"q":{"type":"object","properties":{"a":{"type":"array","items":{"type":"string"}}}},
		"e":{"enum":["x","y"]},
		"n":{"type":"string"}}}`
	if err := json.Unmarshal([]byte(schema), &s); err != nil {
		t.Fatal(err)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ args, want string }{
		{`{"top_k":"3"}`, `type: "3" has type "string", want "integer"`},
		{`{"top_k":{"regexp":"dog"}}`, `type: {"regexp":"dog"} has type "object", want "integer"`},
		{`{"top_k":[1,"a b"]}`, `type: [1,"a b"] has type "array", want "integer"`},
		{`{"top_k":2.5}`, `type: 2.5 has type "number", want "integer"`},
		{`{"n":null}`, `type: null has type "null", want "string"`},
		{`{"q":{"a":["x",{"k":"v"}]}}`, `validating /properties/q/properties/a/items: type: {"k":"v"} has type "object", want "string"`},
		{`{"e":"z"}`, `enum: "z" is not one of "x", "y"`},
	} {
		var v any
		if err := json.Unmarshal([]byte(tc.args), &v); err != nil {
			t.Fatal(err)
		}
		verr := r.Validate(v)
		got := ExplainValidation(verr, r, v)
		if !strings.Contains(got.Error(), tc.want) || !errors.Is(got, verr) {
			t.Errorf("%s: %v\nwant it to hold %s", tc.args, got, tc.want)
		}
	}
	plain := errors.New("required: missing properties: [\"q\"]")
	if got := ExplainValidation(plain, r, map[string]any{}); got != plain {
		t.Errorf("a message without a value: %v", got)
	}
}
