package toolschema

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ollama/ollama/api"
	"github.com/toolgrade/toolgrade/internal/bridge"
)

// Tool is one MCP tool as a catalog exposes it to the model.
type Tool struct {
	// Server is the owning server; Name the tool's own name there; Exposed
	// the name the model sees and calls (Name, or <server>__<name>).
	Server, Name, Exposed string
	Description           string
	// InputSchema is the schema the server sent, re-encoded as JSON (the SDK
	// decodes it into a Go map, so keys come out sorted).
	InputSchema json.RawMessage
	// Ollama is the tool as offered to the model.
	Ollama api.Tool
	// Dropped lists, sorted, the schema keywords Ollama's types cannot carry
	// as paths like "properties.path.minLength", plus "$ref" paths that were
	// cut because they were recursive or could not be inlined.
	Dropped []string
	// Drops is Dropped with the severity of each loss, in the same order;
	// what lists warnings ranks them by it.
	Drops []Drop
	// Rewrites are the constructs Ollama's types cannot carry as written
	// that were re-expressed in ones they can (oneOf as anyOf, const as a
	// one-value enum, a simple allOf merged), in the order the conversion
	// meets them: properties in the order the model sees them.
	Rewrites []Rewrite
	// SchemaError is set when the input schema could not be prepared for
	// validation; arguments to this tool then go to the server unchecked.
	SchemaError string
	// Annotations are the tool's MCP annotations (readOnlyHint,
	// destructiveHint, ...) as the server listed them; nil when it set none.
	// A tool policy reads them (see bridge.Policy); do not modify them.
	Annotations *mcp.ToolAnnotations

	// Hidden lists the constraints of the input schema the model is not
	// shown (see Hidden), computed once at conversion; nil when every one
	// reaches it.
	Hidden []Hidden

	resolved *jsonschema.Resolved
	// visible is the schema of what the model is shown (the Ollama
	// parameters as JSON Schema), visibleMap its decoded form.
	visible    *jsonschema.Resolved
	visibleMap map[string]any
	partial    *jsonschema.Resolved // resolved without the top-level required list
	schemaErr  error
}

// Rewrite is one schema construct re-expressed in a form Ollama's tool types
// carry: at Path (like "properties.parent.oneOf"), keyword From became To
// ("anyOf", "enum", or "merged" for an allOf folded into its schema). The
// validator still checks the schema as sent.
type Rewrite struct {
	Path string `json:"path"`
	From string `json:"from"`
	To   string `json:"to"`
}

// Info is what a tool policy reads of t: its names and MCP annotations.
func (t *Tool) Info() bridge.ToolInfo {
	return bridge.ToolInfo{Exposed: t.Exposed, Server: t.Server, Tool: t.Name, Annotations: t.Annotations}
}

// ValidateArgs checks arguments the way a catalog's Call does before it
// sends them: they must be a JSON object (nil or empty counts as {}) that
// satisfies the tool's input schema. It returns nil for a tool whose schema
// could not be prepared (see SchemaError).
func (t *Tool) ValidateArgs(args json.RawMessage) error {
	_, err := t.CheckArgs(args)
	return err
}

// CheckArgs validates arguments as ValidateArgs does and returns the bytes
// to send: the model's own, keeping its key order and number spelling.
func (t *Tool) CheckArgs(args json.RawMessage) (json.RawMessage, error) {
	send, instance, err := parseArgs(args)
	if err != nil {
		return nil, err
	}
	if t.resolved != nil {
		if err := t.resolved.Validate(instance); err != nil {
			return nil, checkHidden(ExplainValidation(err, t.resolved, instance), t.visible, t.visibleMap, t.Hidden, instance)
		}
	}
	return send, nil
}

// parseArgs checks that the arguments are a JSON object and returns them as
// sent to the server (the model's own bytes, keeping its key order and
// number spelling) and decoded for validation.
func parseArgs(args json.RawMessage) (json.RawMessage, any, error) {
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return json.RawMessage("{}"), map[string]any{}, nil
	}
	var v any
	if err := json.Unmarshal(trimmed, &v); err != nil {
		return nil, nil, fmt.Errorf("arguments are not valid JSON: %v", err)
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, nil, fmt.Errorf("arguments must be a JSON object, not %s", jsonKind(v))
	}
	return append(json.RawMessage(nil), trimmed...), v, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case []any:
		return "an array"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	}
	return "null"
}

// ValidatePartial checks args against t's schema without its required
// list; a tool whose schema could not be resolved is not checked.
func (t *Tool) ValidatePartial(args json.RawMessage) error {
	if t.partial == nil {
		return nil
	}
	_, instance, err := parseArgs(args)
	if err != nil {
		return err
	}
	return ExplainValidation(t.partial.Validate(instance), t.partial, instance)
}
