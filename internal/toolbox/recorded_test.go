package toolbox

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestRecordedValidationInJSON: rescoring validates against a run's
// recorded catalog, and words the values it names as JSON.
func TestRecordedValidationInJSON(t *testing.T) {
	c, err := newRecorded(json.RawMessage(`[{"type": "function", "function": {"name": "search",
		"parameters": {"type": "object", "properties": {"query": {"type": "string"}}}}}]`), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, validate := range []func(string, json.RawMessage) error{c.ValidateArgs, c.ValidatePartial} {
		err := validate("search", json.RawMessage(`{"query": {"regexp": "dog"}}`))
		if want := `type: {"regexp":"dog"} has type "object"`; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("got %v, want ...%s", err, want)
		}
	}
}
