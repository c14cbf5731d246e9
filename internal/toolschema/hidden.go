package toolschema

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/ollama/ollama/api"
)

// Hidden is one constraint of a tool's input schema that the model is not
// shown: the validator checks it (except for default, which only informs),
// but the converted Ollama parameters do not carry it.
type Hidden struct {
	// Path is where in the arguments it applies: "" for the arguments
	// object itself, "parent.page_id", "tags[]" for the items of an array.
	Path string `json:"path"`
	// Keyword is the JSON Schema keyword ("required", "format", "minimum",
	// "additionalProperties", "oneOf", "default", ...).
	Keyword string `json:"keyword"`
	// Value is the keyword's value in the server's schema; for required,
	// the one property name required.
	Value any `json:"value"`
	// Text says what the model was not told, in a few words.
	Text string `json:"text"`

	// at is the schema path (as in Tool.Dropped) of the object node the
	// keyword belongs to, which also exists in the visible schema: it is
	// where violates injects the keyword.
	at []string
}

// String is the constraint as a score's detail names it:
// "parent.page_id: required (nested required, not shown to the model)".
func (h Hidden) String() string {
	p := h.Path
	if p == "" {
		p = "arguments"
	}
	return p + ": " + h.Text
}

// Constrains reports whether the keyword can make arguments invalid; default
// is listed because a model that knew it could leave the property out, but
// it never fails a call.
func (h Hidden) Constrains() bool { return h.Keyword != "default" }

// annotations are keywords that neither constrain arguments nor matter to
// a model that does not see them (description is shown when it is text).
var annotations = map[string]bool{
	"description": true, "title": true, "examples": true, "$comment": true,
	"$id": true, "$anchor": true, "$schema": true, "$defs": true, "definitions": true,
	"readOnly": true, "writeOnly": true, "deprecated": true,
}

// visibleSchema is the JSON Schema of what the model is shown: the converted
// Ollama parameters encoded back as JSON, read from the conversion's output
// so that it follows whatever convert.go does.
func visibleSchema(p api.ToolFunctionParameters) map[string]any {
	data, err := json.Marshal(p)
	if err != nil {
		return map[string]any{"type": "object"}
	}
	var m map[string]any
	if json.Unmarshal(data, &m) != nil || m == nil {
		return map[string]any{"type": "object"}
	}
	return m
}

// hiddenConstraints compares the (inlined) full input schema with the
// visible one and lists, in a stable order, every keyword of the full
// schema that the visible one lacks or carries differently.
func hiddenConstraints(full, visible map[string]any) []Hidden {
	var out []Hidden
	walkHidden(full, visible, nil, "", &out)
	// By place, so a property's constraints read together.
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Keyword < out[j].Keyword
	})
	return out
}

func instJoin(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// walkHidden compares one node of the full schema with the node of the
// visible schema at the same place. at is its schema path, inst its path in
// the arguments.
func walkHidden(full, vis map[string]any, at []string, inst string, out *[]Hidden) {
	n := &hiddenNode{full: full, vis: vis, at: at, inst: inst, out: out}
	for _, k := range sortedKeys(full) {
		if !annotations[k] {
			n.keyword(k)
		}
	}
}

// hiddenNode is one node walkHidden compares, and where it lists what the
// visible node lacks.
type hiddenNode struct {
	full, vis map[string]any
	at        []string
	inst      string
	out       *[]Hidden
}

func (n *hiddenNode) add(path, kw string, v any) {
	*n.out = append(*n.out, Hidden{Path: path, Keyword: kw, Value: v, Text: hiddenText(kw, v, len(n.at) > 0), at: n.at})
}

// keyword compares keyword k of the full node with the visible node's.
func (n *hiddenNode) keyword(k string) {
	v := n.full[k]
	vv, has := n.vis[k]
	switch k {
	case "properties":
		n.properties(v, vv)
	case "items":
		fi, ok1 := v.(map[string]any)
		vi, ok2 := vv.(map[string]any)
		if ok1 && ok2 {
			walkHidden(fi, vi, append(slices.Clone(n.at), k), n.inst+"[]", n.out)
		} else if !has || !reflect.DeepEqual(v, vv) {
			n.add(n.inst, k, v)
		}
	case "anyOf", "oneOf":
		n.branches(k, v)
	case "allOf":
		n.allOf(v, vv, has)
	case "required":
		shown := stringList(vv)
		for _, name := range stringList(v) {
			if !slices.Contains(shown, name) {
				n.add(instJoin(n.inst, name), k, name)
			}
		}
	case "const":
		if has && reflect.DeepEqual(v, vv) {
			return
		}
		if e, ok := n.vis["enum"].([]any); ok && len(e) == 1 && reflect.DeepEqual(e[0], v) {
			return // rewritten as a one-value enum
		}
		n.add(n.inst, k, v)
	case "additionalProperties":
		if b, ok := v.(bool); ok && b {
			return // the default: anything goes
		}
		if m, ok := v.(map[string]any); ok && len(m) == 0 {
			return
		}
		if !has || !reflect.DeepEqual(v, vv) {
			n.add(n.inst, k, v)
		}
	case "type":
		if !sameType(v, vv) {
			n.add(n.inst, k, v)
		}
	default:
		if !has || !reflect.DeepEqual(v, vv) {
			n.add(n.inst, k, v)
		}
	}
}

// properties compares each property of the full node with the visible
// one: a property not shown at all is hidden whole.
func (n *hiddenNode) properties(v, vv any) {
	fp, _ := v.(map[string]any)
	vp, _ := vv.(map[string]any)
	for _, name := range sortedKeys(fp) {
		path := instJoin(n.inst, name)
		sub, ok := fp[name].(map[string]any)
		if !ok {
			if b, isBool := fp[name].(bool); isBool && b {
				continue // true: anything, which {} says as well
			}
			if _, shown := vp[name]; !shown {
				n.add(path, "properties", fp[name])
			}
			continue
		}
		vsub, ok := vp[name].(map[string]any)
		if !ok {
			n.add(path, "properties", sub)
			continue
		}
		walkHidden(sub, vsub, append(slices.Clone(n.at), "properties", name), path, n.out)
	}
}

// branches compares the anyOf or oneOf (k) of the full node, v, branch by
// branch with the visible one's.
func (n *hiddenNode) branches(k string, v any) {
	vv, has := n.vis[k]
	// A oneOf rewritten as anyOf is shown; its branches are compared with
	// the anyOf's.
	if !has && k == "oneOf" {
		if _, own := n.full["anyOf"]; !own {
			vv, has = n.vis["anyOf"]
		}
	}
	fl, _ := v.([]any)
	vl, _ := vv.([]any)
	if !has || len(fl) != len(vl) {
		n.add(n.inst, k, v)
		return
	}
	for i := range fl {
		fb, ok1 := fl[i].(map[string]any)
		vb, ok2 := vl[i].(map[string]any)
		if ok1 && ok2 {
			walkHidden(fb, vb, append(slices.Clone(n.at), "anyOf", strconv.Itoa(i)), n.inst, n.out)
		}
	}
}

// allOf compares an allOf the visible node keeps as a whole; one merged
// into the node, or dropped, has each branch's keywords looked for in the
// node itself.
func (n *hiddenNode) allOf(v, vv any, has bool) {
	if has {
		if !reflect.DeepEqual(v, vv) {
			n.add(n.inst, "allOf", v)
		}
		return
	}
	fl, _ := v.([]any)
	for _, b := range fl {
		if fb, ok := b.(map[string]any); ok {
			walkHidden(fb, n.vis, n.at, n.inst, n.out)
		}
	}
}

// sameType compares type keywords, "string" and ["string"] alike.
func sameType(a, b any) bool {
	norm := func(v any) []string {
		if s, ok := v.(string); ok {
			return []string{s}
		}
		return stringList(v)
	}
	x, y := norm(a), norm(b)
	return x != nil && slices.Equal(x, y)
}

// hiddenText says in a few words what a hidden keyword asks. nested is
// false for the arguments object itself.
func hiddenText(kw string, v any, nested bool) string {
	const unseen = "not shown to the model"
	switch kw {
	case "required":
		if nested {
			return "required (nested required, " + unseen + ")"
		}
		return "required (" + unseen + ")"
	case "format":
		return fmt.Sprintf("format %s (%s)", compactJSON(v), unseen)
	case "default":
		return fmt.Sprintf("default %s (not a constraint; %s)", compactJSON(v), unseen)
	case "additionalProperties":
		if b, ok := v.(bool); ok && !b {
			return "no other properties allowed (additionalProperties: false, " + unseen + ")"
		}
		return fmt.Sprintf("values must match %s (map value type, %s)", compactJSON(v), unseen)
	case "properties":
		return fmt.Sprintf("property schema %s (%s)", compactJSON(v), unseen)
	}
	return fmt.Sprintf("%s %s (%s)", kw, compactJSON(v), unseen)
}

// compactJSON renders a keyword value for a detail line, cut when long.
func compactJSON(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	s := string(data)
	if r := []rune(s); len(r) > 80 {
		s = string(r[:80]) + "…"
	}
	return s
}

// hiddenError is the validation error of arguments that pass the schema the
// model was shown and fail only constraints it was not.
type hiddenError struct {
	// broken lists the hidden constraints that the arguments break; empty
	// when no single one does (only their combination).
	broken []Hidden
	err    error // the full schema's validation error
}

func (e *hiddenError) Error() string {
	if len(e.broken) == 0 {
		return "fails only constraints not shown to the model: " + e.err.Error()
	}
	parts := make([]string, len(e.broken))
	for i, h := range e.broken {
		parts[i] = h.String()
	}
	return strings.Join(parts, "; ")
}

// HiddenOnly marks the error for its readers (the bridge's policy, the
// scorer) without their importing this package.
func (e *hiddenError) HiddenOnly() bool { return true }

// IsHiddenOnly reports whether a validation error (from ValidateArgs, say)
// comes only from constraints the model was not shown.
func IsHiddenOnly(err error) bool {
	var h interface{ HiddenOnly() bool }
	return errors.As(err, &h) && h.HiddenOnly()
}

// violates lists the hidden constraints instance breaks, checking each one
// alone: the visible schema with that keyword put back where it belongs.
func violates(visible map[string]any, hidden []Hidden, instance any) []Hidden {
	var out []Hidden
	for _, h := range hidden {
		if !h.Constrains() {
			continue
		}
		s := cloneJSON(visible)
		node := nodeAt(s, h.at)
		if node == nil {
			continue
		}
		switch h.Keyword {
		case "required":
			node["required"] = []any{h.Value}
		case "properties":
			props, _ := node["properties"].(map[string]any)
			if props == nil {
				props = map[string]any{}
				node["properties"] = props
			}
			props[h.Path[strings.LastIndex(h.Path, ".")+1:]] = h.Value
		default:
			node[h.Keyword] = h.Value
		}
		rs, err := resolveMap(s)
		if err != nil {
			continue
		}
		if rs.Validate(instance) != nil {
			out = append(out, h)
		}
	}
	return out
}

// nodeAt follows a schema path (property names, keywords, list indexes)
// into a decoded schema; nil when it leads to no object.
func nodeAt(s map[string]any, at []string) map[string]any {
	var cur any = s
	for _, step := range at {
		switch x := cur.(type) {
		case map[string]any:
			cur = x[step]
		case []any:
			i, err := strconv.Atoi(step)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			cur = x[i]
		default:
			return nil
		}
	}
	m, _ := cur.(map[string]any)
	return m
}

func cloneJSON(m map[string]any) map[string]any {
	data, _ := json.Marshal(m)
	var out map[string]any
	_ = json.Unmarshal(data, &out)
	return out
}

// checkHidden validates an instance that failed the full schema against the
// visible one: a pass there makes the failure a *hiddenError.
func checkHidden(full error, visible *jsonschema.Resolved, visibleMap map[string]any, hidden []Hidden, instance any) error {
	if visible == nil || visible.Validate(instance) != nil {
		return full
	}
	return &hiddenError{broken: violates(visibleMap, hidden, instance), err: full}
}
