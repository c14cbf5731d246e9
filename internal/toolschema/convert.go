// Package toolschema converts MCP tools' JSON Schemas into Ollama's function
// format and says what the conversion cost: $refs inlined, the server's
// property order kept, the keywords Ollama's types cannot carry dropped and
// ranked, constraints hidden from the model listed and turned into hints;
// and it validates and coerces arguments against the schemas as sent.
package toolschema

import (
	"encoding/json"
	"reflect"
	"slices"
	"sort"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ollama/ollama/api"
)

// Options are what Convert needs beyond the tool itself. The zero value
// exposes the tool under its own name, properties in name order.
type Options struct {
	// Exposed is the name the model sees and calls; "" is the tool's own name.
	Exposed string
	// Raw is the tool's inputSchema as the server wrote it; nil when unknown.
	// Only its key order is read from it, so when it is nil properties come
	// in name order where the server's order is asked for.
	Raw json.RawMessage
	// PropertyOrder is PropertyOrderServer or PropertyOrderRequiredFirst;
	// "" means the server's order.
	PropertyOrder string
}

// Convert turns an MCP tool of server into the Tool a catalog exposes: the
// Ollama function the model sees under o.Exposed, the keywords that did not
// survive, and the resolved schema that arguments are validated against.
// Tools offered to the model but served by no connected server (decoys) are
// converted by it exactly as a catalog converts a server's.
func Convert(server string, t *mcp.Tool, o Options) *Tool {
	exposed := o.Exposed
	if exposed == "" {
		exposed = t.Name
	}
	original := schemaMap(t.InputSchema)
	order := keyOrder{}
	if o.Raw != nil {
		// The same values as the SDK's map, with their key order; a schema
		// that does not decode keeps the SDK's map (and name order).
		if m, err := decodeOrdered(o.Raw, order); err == nil && reflect.DeepEqual(m, original) {
			original = m
		} else {
			order = keyOrder{}
		}
	}
	raw, err := json.Marshal(original)
	if err != nil {
		raw = []byte(`{"type":"object"}`)
	}
	inlined, dropped := inlineRefs(original, order)
	c := &converter{sev: map[string]Severity{}, order: order, requiredFirst: o.PropertyOrder == PropertyOrderRequiredFirst}
	for _, d := range dropped {
		c.sev[d] = SeverityLost // a cut $ref: the structure below is gone
	}
	params := c.params(inlined)
	dropped = sortedUnique(append(dropped, c.dropped...))
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
		Dropped:  dropped,
		Drops:    classifyDrops(dropped, c.sev),
		Rewrites: c.rewrites,
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

// params maps the (inlined) top-level schema onto Ollama's
// ToolFunctionParameters, which carries only type, required, properties and
// items; the rest is reported as dropped.
func (c *converter) params(m map[string]any) api.ToolFunctionParameters {
	p := api.ToolFunctionParameters{Type: "object"}
	m = c.mergeAllOf(m, "")
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
			p.Items = c.whole(v)
		default:
			c.dropKeyword(k, k, v, true)
		}
	}
	if p.Properties == nil {
		// Never null: some chat templates iterate over it.
		p.Properties = api.NewToolPropertiesMap()
	}
	return p
}

// converter collects what converting one tool's schema dropped and rewrote.
type converter struct {
	dropped  []string
	sev      map[string]Severity // by dropped path; unset means minor
	rewrites []Rewrite
	// order holds the server's key order of the properties maps;
	// requiredFirst asks for required-first order instead.
	order         keyOrder
	requiredFirst bool
}

func (c *converter) drop(path string) { c.dropped = append(c.dropped, path) }

// dropKeyword drops keyword key (value v) at path, ranking the loss.
func (c *converter) dropKeyword(path, key string, v any, top bool) {
	c.drop(path)
	c.sev[path] = severityOf(key, v, top)
}

func (c *converter) rewrite(path, from, to string) {
	c.rewrites = append(c.rewrites, Rewrite{Path: path, From: from, To: to})
}

// props converts a properties map in a fixed order: the server's (see
// Options.PropertyOrder), or the required names first, in the order required
// lists them, then the rest by name. Names the server's order does not know
// (none, unless it was not captured) follow by name.
func (c *converter) props(pm map[string]any, required []string, path string) *api.ToolPropertiesMap {
	out := api.NewToolPropertiesMap()
	seen := map[string]bool{}
	var names []string
	first := required
	if !c.requiredFirst {
		first = c.order.of(pm)
	}
	for _, r := range first {
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
	m = c.mergeAllOf(m, path)
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
			if constFits(m) {
				continue // the const, sorted first, narrowed it to its value
			}
			if l, ok := v.([]any); ok {
				tp.Enum = l
			} else {
				c.drop(kp)
			}
		case "items":
			tp.Items = c.whole(v)
		case "anyOf":
			c.anyOf(&tp, v, kp)
		case "oneOf":
			// anyOf carries the same branches; "exactly one" becomes "at
			// least one", which the validator still checks. With an anyOf
			// beside it the two cannot share AnyOf, so it is dropped.
			if _, both := m["anyOf"]; both {
				c.dropKeyword(kp, k, v, false)
				continue
			}
			if _, ok := v.([]any); !ok {
				c.dropKeyword(kp, k, v, false)
				continue
			}
			c.rewrite(kp, "oneOf", "anyOf")
			c.anyOf(&tp, v, kp)
		case "const":
			// enum with one value says the same; an enum beside it must
			// allow the value, and then the const narrows it.
			if !constFits(m) {
				c.dropKeyword(kp, k, v, false)
				continue
			}
			tp.Enum = []any{v}
			c.rewrite(kp, "const", "enum")
		case "properties":
			if pm, ok := v.(map[string]any); ok {
				tp.Properties = c.props(pm, stringList(m["required"]), kp)
			} else {
				c.drop(kp)
			}
		default:
			// Includes a nested "required": ToolProperty cannot carry it.
			c.dropKeyword(kp, k, v, false)
		}
	}
	return tp
}

// whole is a value Ollama passes through as it is (items), in the server's
// key order unless required-first order is asked for.
func (c *converter) whole(v any) any {
	if c.requiredFirst {
		return v // name order, as encoding/json writes maps
	}
	return orderedJSON(v, c.order)
}

// anyOf converts the branches of an anyOf (or a oneOf rewritten to one).
func (c *converter) anyOf(tp *api.ToolProperty, v any, kp string) {
	l, ok := v.([]any)
	if !ok {
		c.drop(kp)
		return
	}
	for i, sub := range l {
		sm, ok := sub.(map[string]any)
		if !ok {
			c.drop(joinPath(kp, strconv.Itoa(i)))
			sm = map[string]any{}
		}
		tp.AnyOf = append(tp.AnyOf, c.prop(sm, joinPath(kp, strconv.Itoa(i))))
	}
}

// constFits reports whether m's const can become enum: [const], that is,
// any enum beside it allows the value.
func constFits(m map[string]any) bool {
	v, ok := m["const"]
	if !ok {
		return false
	}
	e, has := m["enum"]
	if !has {
		return true
	}
	l, ok := e.([]any)
	return ok && slices.ContainsFunc(l, func(x any) bool { return reflect.DeepEqual(x, v) })
}

// mergeAllOf folds a simple allOf into the schema beside it: every branch an
// object schema of properties, required, type "object" and description only,
// no property or description given twice differently. Anything else stays as
// it is (and the allOf is dropped), since merging it could change its meaning.
func (c *converter) mergeAllOf(m map[string]any, path string) map[string]any {
	l, ok := m["allOf"].([]any)
	if !ok {
		return m
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		if k != "allOf" {
			out[k] = v
		}
	}
	props := map[string]any{}
	var order []string // the server's: this schema's own, then each branch's
	if pm, ok := out["properties"].(map[string]any); ok {
		for k, v := range pm {
			props[k] = v
		}
		order = append(order, c.order.of(pm)...)
	} else if _, has := out["properties"]; has {
		return m
	}
	required := stringList(out["required"])
	if _, has := out["required"]; has && required == nil {
		return m
	}
	if t, has := out["type"]; has && t != "object" {
		return m
	}
	for _, b := range l {
		bm, ok := b.(map[string]any)
		if !ok {
			return m
		}
		for k, v := range bm {
			switch k {
			case "type":
				if v != "object" {
					return m
				}
				out["type"] = "object"
			case "properties":
				pm, ok := v.(map[string]any)
				if !ok {
					return m
				}
				for name, sub := range pm {
					if prev, dup := props[name]; dup && !reflect.DeepEqual(prev, sub) {
						return m
					}
					props[name] = sub
				}
				for _, name := range c.order.of(pm) {
					if !slices.Contains(order, name) {
						order = append(order, name)
					}
				}
			case "required":
				r := stringList(v)
				if r == nil {
					return m
				}
				for _, name := range r {
					if !slices.Contains(required, name) {
						required = append(required, name)
					}
				}
			case "description":
				if prev, dup := out[k]; dup && !reflect.DeepEqual(prev, v) {
					return m
				}
				out[k] = v
			default:
				return m
			}
		}
	}
	if len(props) > 0 {
		out["properties"] = props
		c.order.set(props, order)
	}
	if len(required) > 0 {
		out["required"] = anyList(required)
	}
	c.rewrite(joinPath(path, "allOf"), "allOf", "merged")
	return out
}

func anyList(l []string) []any {
	out := make([]any, len(l))
	for i, s := range l {
		out[i] = s
	}
	return out
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
