package toolbox

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ollama/ollama/api"
	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/mcpclient"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/toolschema"
)

// StaticTool is one tool of a fixed catalog (a suite case's own tools): an
// inline definition, or a tool of a connected catalog by its exposed name.
type StaticTool struct {
	// Name is the inline tool's name, or the exposed name of a tool of the
	// base catalog.
	Name string
	// Description is the inline tool's description.
	Description string
	// Schema is the inline tool's input schema, a JSON Schema object whose
	// key order is the order the model sees its properties in; nil names a
	// tool of the base catalog.
	Schema json.RawMessage
}

// Static is a fixed catalog: a case's own tools, inline definitions
// converted exactly as MCP tools are (the same rewrites, drops and hidden
// constraints) and tools of a connected catalog, in the order given. Calls
// to the connected catalog's tools run there; an inline tool has nothing
// behind it, and a call to one is refused. It is immutable and safe for
// concurrent use.
type Static struct {
	base      *mcpclient.Catalog
	tools     []*toolschema.Tool
	byExposed map[string]*toolschema.Tool
	ollama    api.Tools
}

// NewStatic builds the fixed catalog of tools over base, whose tools the
// named entries are (base may have none when every entry is inline). An
// inline tool's properties keep the schema's key order, or go
// required-first when base's options ask for that.
func NewStatic(base *mcpclient.Catalog, tools []StaticTool) (*Static, error) {
	s := &Static{base: base, byExposed: map[string]*toolschema.Tool{}}
	for _, st := range tools {
		var t *toolschema.Tool
		if st.Schema == nil {
			if t, _ = base.Lookup(st.Name); t == nil || t.Exposed != st.Name {
				return nil, fmt.Errorf("no tool %q among the servers' tools", st.Name)
			}
		} else {
			var schema map[string]any
			if err := json.Unmarshal(st.Schema, &schema); err != nil || schema == nil {
				return nil, fmt.Errorf("tool %s: its parameters are not a JSON object", st.Name)
			}
			mt := &mcp.Tool{Name: st.Name, Description: st.Description, InputSchema: schema}
			t = toolschema.Convert("", mt, toolschema.Options{Raw: st.Schema, PropertyOrder: base.PropertyOrder()})
		}
		if _, dup := s.byExposed[t.Exposed]; dup {
			return nil, fmt.Errorf("tool %q is listed twice", t.Exposed)
		}
		s.tools = append(s.tools, t)
		s.byExposed[t.Exposed] = t
		s.ollama = append(s.ollama, t.Ollama)
	}
	return s, nil
}

// Tools returns the catalog's tools in the order the model sees them; an
// inline tool has no Server.
func (s *Static) Tools() []toolschema.Tool {
	out := make([]toolschema.Tool, len(s.tools))
	for i, t := range s.tools {
		out[i] = *t
	}
	return out
}

// OllamaTools returns the tool list to send, in the order of Tools. The
// property maps are shared; do not modify them.
func (s *Static) OllamaTools() api.Tools { return append(api.Tools{}, s.ollama...) }

// lookup finds a tool by the name the model used: its exposed name, or,
// for a tool of the base catalog, server.tool and server__tool.
func (s *Static) lookup(name string) *toolschema.Tool {
	if t, ok := s.byExposed[name]; ok {
		return t
	}
	t, ok := s.base.Lookup(name)
	if !ok {
		return nil
	}
	// The case's tool of that name must be this one, not an inline tool.
	if own := s.byExposed[t.Exposed]; own != nil && own.Server == t.Server && own.Name == t.Name {
		return own
	}
	return nil
}

// Resolve maps a tool name as a case writes it to the name the model sees.
func (s *Static) Resolve(name string) (string, bool) {
	if t := s.lookup(name); t != nil {
		return t.Exposed, true
	}
	return "", false
}

// Names lists the names the model sees, in catalog order.
func (s *Static) Names() []string {
	out := make([]string, len(s.tools))
	for i, t := range s.tools {
		out[i] = t.Exposed
	}
	return out
}

// ValidateArgs checks args against the input schema of the tool exposed.
func (s *Static) ValidateArgs(exposed string, args json.RawMessage) error {
	t := s.lookup(exposed)
	if t == nil {
		return fmt.Errorf("unknown tool %q", exposed)
	}
	return t.ValidateArgs(args)
}

// ValidatePartial checks args like ValidateArgs without requiring the
// properties args leave out (see mcpclient.Catalog.ValidatePartial).
func (s *Static) ValidatePartial(exposed string, args json.RawMessage) error {
	t := s.lookup(exposed)
	if t == nil {
		return fmt.Errorf("unknown tool %q", exposed)
	}
	return t.ValidatePartial(args)
}

// HiddenOf returns the hidden constraints of the tool exposed; nil for an
// unknown name.
func (s *Static) HiddenOf(exposed string) []toolschema.Hidden {
	if t := s.lookup(exposed); t != nil {
		return t.Hidden
	}
	return nil
}

// ToolInfo resolves a name for a tool policy; an inline tool has no server
// and no annotations.
func (s *Static) ToolInfo(name string) (bridge.ToolInfo, bool) {
	t := s.lookup(name)
	if t == nil {
		return bridge.ToolInfo{}, false
	}
	return t.Info(), true
}

// Call runs a call to a tool of the base catalog there. An unknown name and
// arguments that break an inline tool's schema are results the model sees,
// as with mcpclient.Catalog.Call; a valid call to an inline tool is refused as a
// server failure, since nothing can run it (the cases that bring inline
// tools run without execution, so this is never reached by a suite).
func (s *Static) Call(ctx context.Context, name string, args json.RawMessage, callID string) record.Execution {
	t := s.lookup(name)
	if t != nil && t.Server != "" {
		return s.base.Call(ctx, name, args, callID)
	}
	start := time.Now()
	ex := record.Execution{CallID: callID, Name: name, Arguments: record.Args(args)}
	defer func() { ex.Duration = time.Since(start) }()
	if t == nil {
		avail := strings.Join(s.Names(), ", ")
		if avail == "" {
			avail = "none"
		}
		ex.IsError, ex.ErrorKind = true, record.ExecUnknownTool
		ex.Result = fmt.Sprintf("error: unknown tool %q; available tools: %s", name, avail)
		ex.Error = fmt.Sprintf("unknown tool %q", name)
		return ex
	}
	ex.Tool = t.Name
	if err := t.ValidateArgs(args); err != nil {
		ex.HiddenOnly = toolschema.IsHiddenOnly(err)
		ex.IsError, ex.ErrorKind = true, record.ExecInvalidArgs
		ex.Result = fmt.Sprintf("error: invalid arguments for tool %s: %v", t.Exposed, err)
		ex.Error = err.Error()
		return ex
	}
	ex.IsError, ex.ErrorKind = true, record.ExecServerFailure
	ex.Result = fmt.Sprintf("error: tool %s was not run: it is defined inline in the case and has nothing behind it", t.Exposed)
	ex.Error = "inline tool: nothing to run"
	return ex
}
