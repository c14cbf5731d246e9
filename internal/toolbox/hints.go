package toolbox

import (
	"github.com/ollama/ollama/api"
	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/toolschema"
)

// HiddenOf returns the constraints of a tool (by the name the model sees)
// that its parameters do not carry; (*mcpclient.Catalog).HiddenOf is one.
type HiddenOf func(exposed string) []toolschema.Hidden

// WithHints returns base with schema hints folded into the descriptions of
// the tools it offers (schema_hints: description); calls run through base
// unchanged, validated as before.
func WithHints(base bridge.Toolbox, hidden HiddenOf) bridge.Toolbox {
	return &redescribed{base: base, tools: hintTools(base.OllamaTools(), hidden)}
}

// hintTools returns a copy of tools in which every property's description
// ends with its hint (toolschema.HintText); a tool with nothing to hint is
// shared, the others have their parameter tree copied first.
func hintTools(tools api.Tools, hidden HiddenOf) api.Tools {
	out := append(api.Tools(nil), tools...)
	for i, t := range out {
		h := hidden(t.Function.Name)
		if len(h) == 0 {
			continue
		}
		t.Function.Parameters.Properties = copyProps(t.Function.Parameters.Properties)
		hintProps(t.Function.Parameters.Properties, h, "")
		out[i] = t
	}
	return out
}

// hintProps adds hints to the properties of one map (a copy) at path.
func hintProps(props *api.ToolPropertiesMap, h []toolschema.Hidden, path string) {
	if props == nil {
		return
	}
	var names []string
	for name := range props.All() {
		names = append(names, name)
	}
	for _, name := range names {
		p, _ := props.Get(name)
		props.Set(name, hintProp(p, h, propPath(path, name)))
	}
}

func hintProp(p api.ToolProperty, h []toolschema.Hidden, path string) api.ToolProperty {
	p.Description = toolschema.WithHint(p.Description, toolschema.HintText(h, path))
	hintProps(p.Properties, h, path)
	for i := range p.AnyOf {
		// The branches describe the same value: their properties are the
		// property's own, hinted alike.
		hintProps(p.AnyOf[i].Properties, h, path)
	}
	return p
}

// propPath is the dotted path of property name under path.
func propPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}
