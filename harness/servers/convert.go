package servers

import (
	"encoding/json"
	"sort"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ollama/ollama/api"
)

// convertTool turns an MCP tool into the catalog's Tool: the Ollama function
// the model sees under exposed, the keywords that did not survive, and the
// resolved schema that arguments are validated against.
func convertTool(server string, t *mcp.Tool, exposed string) *Tool {
	original := schemaMap(t.InputSchema)
	raw, err := json.Marshal(original)
	if err != nil {
		raw = []byte(`{"type":"object"}`)
	}
	inlined, dropped := inlineRefs(original)
	params, more := convertParams(inlined)
	dropped = sortedUnique(append(dropped, more...))
	tool := &Tool{
		Server:      server,
		Name:        t.Name,
		Exposed:     exposed,
		Description: t.Description,
		InputSchema: raw,
		Ollama: api.Tool{
			Type: "function",
			Function: api.ToolFunction{
				Name:        exposed,
				Description: t.Description,
				Parameters:  params,
			},
		},
		Dropped: dropped,
	}
	tool.resolved, tool.schemaErr = resolveForValidation(original, inlined)
	if tool.schemaErr != nil {
		tool.SchemaError = tool.schemaErr.Error()
	} else {
		tool.partial, _ = resolveForValidation(withoutRequired(original), withoutRequired(inlined))
	}
	// What the model is shown, read back from the conversion's output.
	tool.visibleMap = visibleSchema(params)
	tool.Hidden = hiddenConstraints(inlined, tool.visibleMap)
	tool.visible, _ = resolveMap(tool.visibleMap)
	return tool
}

// schemaMap normalizes an input schema as the SDK hands it over (normally
// map[string]any) into a JSON object; anything else becomes the empty object
// schema.
func schemaMap(v any) map[string]any {
	if m, ok := v.(map[string]any); ok {
		return m
	}
	if v != nil {
		if data, err := json.Marshal(v); err == nil {
			var m map[string]any
			if json.Unmarshal(data, &m) == nil && m != nil {
				return m
			}
		}
	}
	return map[string]any{"type": "object"}
}

// convertParams maps the (inlined) top-level schema onto Ollama's
// ToolFunctionParameters, which carries only type, required, properties and
// items; the rest is reported as dropped.
func convertParams(m map[string]any) (api.ToolFunctionParameters, []string) {
	c := &converter{}
	p := api.ToolFunctionParameters{Type: "object"}
	required := stringList(m["required"])
	for _, k := range sortedKeys(m) {
		v := m[k]
		switch k {
		case "type":
			if s, ok := v.(string); ok {
				p.Type = s
			} else {
				c.drop(k)
			}
		case "required":
			if required != nil {
				p.Required = required
			} else {
				c.drop(k)
			}
		case "properties":
			if pm, ok := v.(map[string]any); ok {
				p.Properties = c.props(pm, required, k)
			} else {
				c.drop(k)
			}
		case "items":
			p.Items = v
		default:
			c.drop(k)
		}
	}
	if p.Properties == nil {
		// Never null: some chat templates iterate over it.
		p.Properties = api.NewToolPropertiesMap()
	}
	return p, c.dropped
}

type converter struct {
	dropped []string
}

func (c *converter) drop(path string) { c.dropped = append(c.dropped, path) }

// props converts a properties map in a fixed order: the required names first,
// in the order required lists them, then the rest by name. The SDK hands the
// schema over as a Go map, so the server's own order is already lost; this
// order is the same on every run by construction.
func (c *converter) props(pm map[string]any, required []string, path string) *api.ToolPropertiesMap {
	out := api.NewToolPropertiesMap()
	seen := map[string]bool{}
	var names []string
	for _, r := range required {
		if _, ok := pm[r]; ok && !seen[r] {
			seen[r] = true
			names = append(names, r)
		}
	}
	for _, k := range sortedKeys(pm) {
		if !seen[k] {
			names = append(names, k)
		}
	}
	for _, name := range names {
		pp := joinPath(path, name)
		sub, ok := pm[name].(map[string]any)
		if !ok {
			if b, isBool := pm[name].(bool); !isBool || !b {
				c.drop(pp) // false or malformed; true means "anything"
			}
			sub = map[string]any{}
		}
		out.Set(name, c.prop(sub, pp))
	}
	return out
}

// prop converts one property schema into the keywords ToolProperty carries:
// type, description, enum, items (kept whole, as Ollama passes it through),
// anyOf and properties.
func (c *converter) prop(m map[string]any, path string) api.ToolProperty {
	var tp api.ToolProperty
	for _, k := range sortedKeys(m) {
		v := m[k]
		kp := joinPath(path, k)
		switch k {
		case "type":
			switch t := v.(type) {
			case string:
				tp.Type = api.PropertyType{t}
			case []any:
				if l := stringList(t); l != nil {
					tp.Type = api.PropertyType(l)
				} else {
					c.drop(kp)
				}
			default:
				c.drop(kp)
			}
		case "description":
			if s, ok := v.(string); ok {
				tp.Description = s
			} else {
				c.drop(kp)
			}
		case "enum":
			if l, ok := v.([]any); ok {
				tp.Enum = l
			} else {
				c.drop(kp)
			}
		case "items":
			tp.Items = v
		case "anyOf":
			l, ok := v.([]any)
			if !ok {
				c.drop(kp)
				continue
			}
			for i, sub := range l {
				sm, ok := sub.(map[string]any)
				if !ok {
					c.drop(joinPath(kp, strconv.Itoa(i)))
					sm = map[string]any{}
				}
				tp.AnyOf = append(tp.AnyOf, c.prop(sm, joinPath(kp, strconv.Itoa(i))))
			}
		case "properties":
			if pm, ok := v.(map[string]any); ok {
				tp.Properties = c.props(pm, stringList(m["required"]), kp)
			} else {
				c.drop(kp)
			}
		default:
			// Includes a nested "required": ToolProperty cannot carry it.
			c.drop(kp)
		}
	}
	return tp
}

// stringList returns v as a list of strings, or nil if it is not one.
func stringList(v any) []string {
	l, ok := v.([]any)
	if !ok {
		if s, ok := v.([]string); ok {
			return s
		}
		return nil
	}
	out := make([]string, 0, len(l))
	for _, e := range l {
		s, ok := e.(string)
		if !ok {
			return nil
		}
		out = append(out, s)
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func sortedUnique(l []string) []string {
	sort.Strings(l)
	out := l[:0]
	for i, s := range l {
		if i == 0 || s != l[i-1] {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// withoutRequired is a shallow copy of a schema without its top-level
// required list.
func withoutRequired(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if k != "required" {
			out[k] = v
		}
	}
	return out
}
