package toolbox

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ollama/ollama/api"
	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/suite"
)

// redescribed offers its base's tools with other descriptions (a variant's
// overlays, schema hints) and runs every call through the base unchanged:
// names, order, schemas, calls, validation and policy are the base's.
type redescribed struct {
	base  bridge.Toolbox
	tools api.Tools
}

// OllamaTools returns the redescribed tool list, in the base's order. The
// property maps are shared between calls; do not modify them.
func (t *redescribed) OllamaTools() api.Tools { return append(api.Tools{}, t.tools...) }

// Call runs the call through the base.
func (t *redescribed) Call(ctx context.Context, name string, args json.RawMessage, callID string) record.Execution {
	return t.base.Call(ctx, name, args, callID)
}

// Overlay returns base with a variant's description overlays applied: the
// tool-description variants of a suite. The overlays' Exposed names must be
// set (suite.Check does it); base's own tools are not modified.
func Overlay(base bridge.Toolbox, overlays []suite.ToolOverlay) (bridge.Toolbox, error) {
	tools, err := ApplyOverlays(base.OllamaTools(), overlays)
	if err != nil {
		return nil, err
	}
	return &redescribed{base: base, tools: tools}, nil
}

// ApplyOverlays returns a copy of tools with the overlays' descriptions in place.
// Each overlaid tool's parameter tree is copied before it is changed, so
// tools itself is left as it was; the others are shared.
func ApplyOverlays(tools api.Tools, overlays []suite.ToolOverlay) (api.Tools, error) {
	out := append(api.Tools(nil), tools...)
	for _, o := range overlays {
		i := indexOf(out, o.Exposed)
		if i < 0 {
			return nil, fmt.Errorf("overlay of %s: no tool %q is offered", o.Tool, o.Exposed)
		}
		t := out[i]
		if o.Description != nil {
			t.Function.Description = *o.Description
		}
		if len(o.Params) > 0 {
			t.Function.Parameters.Properties = copyProps(t.Function.Parameters.Properties)
			for _, p := range o.Params {
				if err := setParam(t.Function.Parameters.Properties, strings.Split(p.Path, "."), p.Description); err != nil {
					return nil, fmt.Errorf("overlay of %s: parameter %s: %w", o.Exposed, p.Path, err)
				}
			}
		}
		out[i] = t
	}
	return out, nil
}

func indexOf(tools api.Tools, name string) int {
	for i := range tools {
		if tools[i].Function.Name == name {
			return i
		}
	}
	return -1
}

// setParam sets the description of the property at path in props, a copy
// made by copyProps.
func setParam(props *api.ToolPropertiesMap, path []string, desc string) error {
	prop, ok := props.Get(path[0])
	if !ok {
		return fmt.Errorf("no property %q", path[0])
	}
	if len(path) == 1 {
		prop.Description = desc
	} else {
		if prop.Properties == nil {
			return fmt.Errorf("%q has no nested properties", path[0])
		}
		if err := setParam(prop.Properties, path[1:], desc); err != nil {
			return err
		}
	}
	props.Set(path[0], prop)
	return nil
}

// copyProps copies a property map and every property map and anyOf list
// beneath it, keeping the order; leaves that are never changed (types,
// enums, items) are shared.
func copyProps(m *api.ToolPropertiesMap) *api.ToolPropertiesMap {
	if m.Len() == 0 {
		return m // nothing beneath it can be changed, and its JSON stays as it was
	}
	out := api.NewToolPropertiesMap()
	for k, p := range m.All() {
		out.Set(k, copyProp(p))
	}
	return out
}

func copyProp(p api.ToolProperty) api.ToolProperty {
	p.Properties = copyProps(p.Properties)
	if p.AnyOf != nil {
		anyOf := make([]api.ToolProperty, len(p.AnyOf))
		for i, a := range p.AnyOf {
			anyOf[i] = copyProp(a)
		}
		p.AnyOf = anyOf
	}
	return p
}
