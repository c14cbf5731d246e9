package toolschema

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// JSON Schema keywords by what their values hold, so that inlining walks
// into subschemas but never rewrites data (enum, const, default, examples
// may legitimately contain a "$ref" key).
var (
	schemaValued = map[string]bool{
		"items": true, "additionalProperties": true, "additionalItems": true,
		"contains": true, "not": true, "if": true, "then": true, "else": true,
		"propertyNames": true, "unevaluatedItems": true,
		"unevaluatedProperties": true, "contentSchema": true,
	}
	schemaLists = map[string]bool{
		"anyOf": true, "allOf": true, "oneOf": true, "prefixItems": true,
	}
	schemaMaps = map[string]bool{
		"properties": true, "patternProperties": true, "dependentSchemas": true,
		"dependencies": true,
	}
)

// Limits on inlining: a schema whose refs form a DAG can still expand
// exponentially, and the model should not be handed a megabyte of schema.
const (
	maxInlineDepth = 32
	maxInlineRefs  = 2000
)

// inliner replaces local $refs with copies of their targets.
type inliner struct {
	root    map[string]any
	budget  int
	dropped []string
	order   keyOrder // passed on to the copies of properties maps
}

// inlineRefs returns a copy of schema with every local $ref inlined,
// $defs/definitions and $schema removed, and the refs it could not or would
// not inline (remote, dangling, recursive) reported as dropped paths.
func inlineRefs(schema map[string]any, order keyOrder) (map[string]any, []string) {
	in := &inliner{root: schema, budget: maxInlineRefs, order: order}
	// The root counts as being expanded, so "#" inside it is recursion.
	out, _ := in.schema(schema, "", []string{"#"}).(map[string]any)
	if out == nil {
		out = map[string]any{}
	}
	return out, in.dropped
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func (in *inliner) drop(path string) { in.dropped = append(in.dropped, path) }

// schema inlines one subschema. stack holds the refs being expanded above it,
// which is what detects recursion.
func (in *inliner) schema(node any, path string, stack []string) any {
	m, ok := node.(map[string]any)
	if !ok {
		return node // boolean schemas and malformed values pass through
	}
	out := make(map[string]any, len(m))
	var keys []string // out's key order: an inlined target's, then m's own
	if ref, ok := m["$ref"].(string); ok {
		target := in.lookup(ref)
		switch {
		case target == nil:
			// Remote or dangling: nothing to inline; the siblings stay.
			in.drop(joinPath(path, "$ref"))
		case slices.Contains(stack, ref) || len(stack) >= maxInlineDepth || in.budget <= 0:
			// Recursive (or too deep to be useful): cut to a plain object.
			in.drop(joinPath(path, "$ref"))
			out["type"] = "object"
		default:
			in.budget--
			if tm, ok := in.schema(target, path, append(stack, ref)).(map[string]any); ok {
				for k, v := range tm {
					out[k] = v
				}
				keys = append(keys, in.order.of(tm)...)
			}
		}
	}
	for k, v := range m {
		switch {
		case k == "$ref" || k == "$defs" || k == "definitions" || k == "$schema":
			// $ref handled above; definitions are inlined where used;
			// $schema says nothing to the model.
		case schemaValued[k]:
			if l, ok := v.([]any); ok && k == "items" { // draft-07 tuple form
				out[k] = in.list(l, joinPath(path, k), stack)
			} else {
				out[k] = in.schema(v, joinPath(path, k), stack)
			}
		case schemaLists[k]:
			if l, ok := v.([]any); ok {
				out[k] = in.list(l, joinPath(path, k), stack)
			} else {
				out[k] = v
			}
		case schemaMaps[k]:
			if sm, ok := v.(map[string]any); ok {
				o := make(map[string]any, len(sm))
				for name, sub := range sm {
					o[name] = in.schema(sub, joinPath(joinPath(path, k), name), stack)
				}
				in.order.set(o, in.order.of(sm))
				out[k] = o
			} else {
				out[k] = v
			}
		default:
			out[k] = v // siblings of $ref override the target's keywords
		}
	}
	if in.order != nil {
		for _, k := range in.order.of(m) {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
		in.order.set(out, keys)
	}
	return out
}

func (in *inliner) list(l []any, path string, stack []string) []any {
	o := make([]any, len(l))
	for i, sub := range l {
		o[i] = in.schema(sub, joinPath(path, strconv.Itoa(i)), stack)
	}
	return o
}

// lookup resolves a local ref ("#", "#/$defs/X", "#/definitions/X", any JSON
// pointer into the document) against the original schema. It returns nil for
// remote refs, anchors and pointers that lead nowhere.
func (in *inliner) lookup(ref string) any {
	if !strings.HasPrefix(ref, "#") {
		return nil
	}
	frag := ref[1:]
	if f, err := url.PathUnescape(frag); err == nil {
		frag = f
	}
	// An $anchor (no leading /) is not supported: pointer gives nil.
	return pointer(in.root, frag)
}

// pointer is the value the JSON pointer ptr ("/a/0/b~1c") names in doc;
// nil when it leads nowhere.
func pointer(doc any, ptr string) any {
	if ptr == "" {
		return doc
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil
	}
	cur := doc
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			next, ok := c[tok]
			if !ok {
				return nil
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil
			}
			cur = c[i]
		default:
			return nil
		}
	}
	return cur
}

// supportedDrafts are the $schema values jsonschema-go validates with.
var supportedDrafts = map[string]bool{
	"": true,
	"http://json-schema.org/draft-07/schema#":      true,
	"https://json-schema.org/draft-07/schema#":     true,
	"https://json-schema.org/draft/2020-12/schema": true,
}

// resolveForValidation prepares a tool's input schema for validating
// arguments. It tries the schema as sent, refs and all; if jsonschema-go
// cannot resolve it (remote refs, say), it falls back to the inlined copy.
// A schema that resolves neither way is reported and arguments go to the
// server unchecked.
func resolveForValidation(original, inlined map[string]any) (*jsonschema.Resolved, error) {
	var firstErr error
	for _, m := range []map[string]any{original, inlined} {
		rs, err := resolveMap(m)
		if err == nil {
			return rs, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return nil, firstErr
}

func resolveMap(m map[string]any) (*jsonschema.Resolved, error) {
	data, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("reading input schema: %w", err)
	}
	if !supportedDrafts[s.Schema] {
		// Older or newer drafts are close enough to 2020-12 for checking
		// tool arguments; refusing to validate would be worse.
		s.Schema = ""
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("resolving input schema: %w", err)
	}
	return rs, nil
}
