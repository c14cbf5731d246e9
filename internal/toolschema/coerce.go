package toolschema

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
)

// CoerceArgs converts the arguments of a call the way lenient MCP clients
// do before validating (Python's FastMCP pre-parses JSON strings, pydantic's
// lax mode parses numbers and booleans from strings), so that a report can
// say which invalid calls were valid if coerced. Only a string value whose
// schema does not accept a string is converted, to the first type its
// schema accepts that the text reads as:
//
//   - integer: an optional minus sign and digits ("5" → 5; not "5.0");
//   - number: a JSON number ("2.5" → 2.5);
//   - boolean: "true" or "false", in any case;
//   - object or array: a JSON object or array, itself then coerced;
//   - null: "null", when the schema allows null.
//
// Nothing else changes: a number or boolean sent for a string stays as it is
// (pydantic refuses that too, and a model writing 5 for a string may have
// meant something else), nor are nulls dropped or single values wrapped in
// lists. Objects are followed through properties, arrays through items, and
// local $refs ("#/$defs/..", "#/definitions/.."); a schema or arguments that
// are not JSON are left alone. changed reports whether any value was
// converted; the arguments then come back re-encoded, keys sorted.
func CoerceArgs(schema, args json.RawMessage) (json.RawMessage, bool) {
	var root map[string]any
	if json.Unmarshal(schema, &root) != nil || root == nil {
		return args, false
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return args, false
	}
	co := coercer{root: root}
	out, changed := co.value(root, v, 0)
	if !changed {
		return args, false
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(out) != nil {
		return args, false
	}
	return json.RawMessage(bytes.TrimRight(b.Bytes(), "\n")), true
}

// coercer walks arguments beside the schema of a tool.
type coercer struct{ root map[string]any }

// maxCoerceDepth bounds the walk, so a recursive $ref cannot loop.
const maxCoerceDepth = 32

var (
	integerRE = regexp.MustCompile(`^-?[0-9]+$`)
	numberRE  = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)
)

// value coerces v against schema s.
func (co coercer) value(s map[string]any, v any, depth int) (any, bool) {
	if depth > maxCoerceDepth {
		return v, false
	}
	s = co.deref(s, depth)
	if s == nil {
		return v, false
	}
	switch x := v.(type) {
	case string:
		return co.fromString(s, x, depth)
	case map[string]any:
		changed := false
		for _, ps := range co.branches(s, depth) {
			props, _ := ps["properties"].(map[string]any)
			for k, e := range x {
				p, ok := props[k].(map[string]any)
				if !ok {
					continue
				}
				if nv, ch := co.value(p, e, depth+1); ch {
					x[k], changed = nv, true
				}
			}
		}
		return x, changed
	case []any:
		changed := false
		for _, bs := range co.branches(s, depth) {
			items, ok := bs["items"].(map[string]any)
			if !ok {
				continue
			}
			for i, e := range x {
				if nv, ch := co.value(items, e, depth+1); ch {
					x[i], changed = nv, true
				}
			}
		}
		return x, changed
	}
	return v, false
}

// fromString converts a string to the first type s accepts that it reads
// as; s accepting strings (or naming no type) leaves it alone.
func (co coercer) fromString(s map[string]any, text string, depth int) (any, bool) {
	types := co.types(s, depth)
	if len(types) == 0 || slices.Contains(types, "string") {
		return text, false
	}
	t := strings.TrimSpace(text)
	for _, typ := range types {
		switch typ {
		case "integer":
			if integerRE.MatchString(t) {
				return json.Number(t), true
			}
		case "number":
			if numberRE.MatchString(t) {
				return json.Number(t), true
			}
		case "boolean":
			switch strings.ToLower(t) {
			case "true":
				return true, true
			case "false":
				return false, true
			}
		case "object", "array":
			if !strings.HasPrefix(t, "{") && !strings.HasPrefix(t, "[") {
				continue
			}
			dec := json.NewDecoder(strings.NewReader(t))
			dec.UseNumber()
			var v any
			if dec.Decode(&v) != nil || dec.More() {
				continue
			}
			_, isObj := v.(map[string]any)
			_, isArr := v.([]any)
			if (typ == "object" && isObj) || (typ == "array" && isArr) {
				nv, _ := co.value(s, v, depth+1)
				return nv, true
			}
		case "null":
			if t == "null" {
				return nil, true
			}
		}
	}
	return text, false
}

// types lists the types s accepts: its "type" (a name or a list), else the
// types of its anyOf and oneOf branches.
func (co coercer) types(s map[string]any, depth int) []string {
	var out []string
	for _, b := range co.branches(s, depth) {
		switch t := b["type"].(type) {
		case string:
			out = append(out, t)
		case []any:
			for _, e := range t {
				if n, ok := e.(string); ok {
					out = append(out, n)
				}
			}
		}
	}
	return out
}

// branches is s itself followed by its anyOf and oneOf branches, each
// dereferenced.
func (co coercer) branches(s map[string]any, depth int) []map[string]any {
	out := []map[string]any{s}
	for _, k := range []string{"anyOf", "oneOf"} {
		list, _ := s[k].([]any)
		for _, e := range list {
			if b, ok := e.(map[string]any); ok {
				if b = co.deref(b, depth+1); b != nil {
					out = append(out, b)
				}
			}
		}
	}
	return out
}

// deref follows a local $ref; nil when it points nowhere or too deep.
func (co coercer) deref(s map[string]any, depth int) map[string]any {
	for range maxCoerceDepth - min(depth, maxCoerceDepth) {
		ref, ok := s["$ref"].(string)
		if !ok {
			return s
		}
		var name, section string
		switch {
		case strings.HasPrefix(ref, "#/$defs/"):
			section, name = "$defs", strings.TrimPrefix(ref, "#/$defs/")
		case strings.HasPrefix(ref, "#/definitions/"):
			section, name = "definitions", strings.TrimPrefix(ref, "#/definitions/")
		default:
			return nil
		}
		defs, _ := co.root[section].(map[string]any)
		next, ok := defs[name].(map[string]any)
		if !ok {
			return nil
		}
		s = next
	}
	return nil
}
