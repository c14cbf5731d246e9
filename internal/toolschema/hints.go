package toolschema

import (
	"encoding/json"
	"fmt"
	"strings"
)

// HintText is the hint for the property at path (dotted, as in
// Hidden.Path) made of the tool's hidden constraints, in one fixed form:
// sentences in this order, each present only when a constraint asks it,
//
//	Required: a, b. Default: "yaml". Format: JSON text. Value: "x".
//	Minimum: 1. Maximum: 100. Min length: 1. Max length: 64. Pattern: ^a.
//	Min items: 1. Max items: 10. Map values: {"type":"string"}. No other keys.
//
// Required lists the nested required properties of an object property, by
// name;
// Format says "JSON text" for format json and the format's name otherwise;
// values are JSON. Bounds of ±(2^53−1) and the arguments object's own
// constraints are left out. "" when there is nothing to say.
func HintText(hidden []Hidden, path string) string {
	var required []string
	kw := map[string]any{}
	for _, h := range hidden {
		if h.Keyword == "required" {
			parent, name := "", h.Path
			if i := strings.LastIndex(h.Path, "."); i >= 0 {
				parent, name = h.Path[:i], h.Path[i+1:]
			}
			if parent == path && parent != "" {
				required = append(required, name)
			}
			continue
		}
		if h.Path == path && path != "" {
			if _, dup := kw[h.Keyword]; !dup {
				kw[h.Keyword] = h.Value
			}
		}
	}
	var parts []string
	say := func(format string, args ...any) { parts = append(parts, fmt.Sprintf(format, args...)) }
	if len(required) > 0 {
		say("Required: %s.", strings.Join(required, ", "))
	}
	if v, ok := kw["default"]; ok {
		say("Default: %s.", hintJSON(v))
	}
	if v, ok := kw["format"]; ok {
		if v == "json" {
			say("Format: JSON text.")
		} else {
			say("Format: %s.", hintScalar(v))
		}
	}
	if v, ok := kw["const"]; ok {
		say("Value: %s.", hintJSON(v))
	}
	for _, b := range []struct{ kw, label string }{
		{"minimum", "Minimum"}, {"maximum", "Maximum"},
		{"exclusiveMinimum", "Greater than"}, {"exclusiveMaximum", "Less than"},
		{"minLength", "Min length"}, {"maxLength", "Max length"},
		{"pattern", "Pattern"}, {"minItems", "Min items"}, {"maxItems", "Max items"},
	} {
		v, ok := kw[b.kw]
		if !ok {
			continue
		}
		if f, isNum := v.(float64); isNum && (f == maxSafeInteger || f == -maxSafeInteger) {
			continue
		}
		say("%s: %s.", b.label, hintScalar(v))
	}
	if v, ok := kw["additionalProperties"]; ok {
		if b, isBool := v.(bool); isBool && !b {
			say("No other keys.")
		} else {
			say("Map values: %s.", hintJSON(v))
		}
	}
	return strings.Join(parts, " ")
}

// hintScalar shows a string bare and anything else as JSON.
func hintScalar(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return hintJSON(v)
}

func hintJSON(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(data)
}

// WithHint appends a hint to a description, a space between them.
func WithHint(desc, hint string) string {
	switch {
	case hint == "":
		return desc
	case desc == "":
		return hint
	}
	return strings.TrimRight(desc, " ") + " " + hint
}
