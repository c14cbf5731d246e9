package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ollama/ollama/api"
	"github.com/toolgrade/toolgrade/internal/record"
)

// ToolInfo is what a Policy knows of one tool.
type ToolInfo struct {
	// Exposed is the name the model sees; Server and Tool the owning server
	// and the tool's own name there.
	Exposed, Server, Tool string
	// Annotations are the tool's MCP annotations as its server listed them;
	// nil when the server set none.
	Annotations *mcp.ToolAnnotations
}

// Annotator resolves a name the model used to the tool it means;
// *mcpclient.Catalog is the real one.
type Annotator interface {
	// ToolInfo resolves name as a call would (the exposed name, server.tool
	// or server__tool); ok is false when it names no tool.
	ToolInfo(name string) (info ToolInfo, ok bool)
}

// Policy is a Toolbox that runs only the calls a suite lets run, so a test
// cannot change the world by accident. A blocked call never reaches Tools:
// the model is given an error result that says why, and the Execution is
// recorded with ErrorKind record.ExecBlocked (the model's choice was seen,
// nothing failed, the trial goes on). When Tools can validate arguments
// (ValidateArgs, as *mcpclient.Catalog), a blocked call whose arguments break
// the tool's schema is answered as invalid_args instead, as an allowed one
// would be.
//
// A call is decided in this order:
//  1. a name that matches no tool goes to Tools, which reports it unknown;
//  2. a tool matching a Deny pattern is blocked;
//  3. a tool matching an Allow pattern runs;
//  4. a tool whose server set no annotations runs (most servers set none,
//     and nothing says they change anything);
//  5. a tool annotated destructiveHint: true is blocked;
//  6. a tool whose annotations do not say readOnlyHint: true is blocked: by
//     the MCP spec readOnlyHint defaults to false and destructiveHint to
//     true, so annotations without readOnlyHint describe a tool that may
//     destroy;
//  7. anything else (readOnlyHint: true) runs.
//
// Patterns use path.Match syntax (* ? [a-z], \ escapes) and are matched
// against the name the model sees, the tool's own name and server.tool (the
// forms a case names tools by), so a suite's patterns mean the same whether
// or not names are prefixed: "write_file" is that tool on every server,
// "fs.*" every tool of server fs. Its zero value is not usable: Tools and
// Info are required.
type Policy struct {
	Tools Toolbox
	Info  Annotator
	// Allow and Deny are the suite's allow_tools and deny_tools patterns,
	// known to be well formed; a malformed one matches nothing. Nil: none.
	Allow, Deny []string
}

// OllamaTools offers every tool: a blocked tool stays visible, since
// choosing it is part of what a trial measures.
func (p *Policy) OllamaTools() api.Tools { return p.Tools.OllamaTools() }

// Call runs the call through Tools unless the policy blocks it.
func (p *Policy) Call(ctx context.Context, name string, args json.RawMessage, callID string) record.Execution {
	info, ok := p.Info.ToolInfo(name)
	if !ok {
		return p.Tools.Call(ctx, name, args, callID)
	}
	why := p.Blocks(info)
	if why == "" {
		return p.Tools.Call(ctx, name, args, callID)
	}
	// Arguments that break the schema are the model's mistake whatever the
	// policy, and telling it so runs nothing: the catalog checks them
	// before any call reaches a server.
	if v, ok := p.Tools.(argsValidator); ok {
		if err := v.ValidateArgs(info.Exposed, args); err != nil {
			return record.Execution{
				CallID: callID, Name: name, Server: info.Server, Tool: info.Tool,
				Arguments: record.Args(args),
				Result:    fmt.Sprintf("error: invalid arguments for tool %s: %v", info.Exposed, err),
				IsError:   true, ErrorKind: record.ExecInvalidArgs, Error: err.Error(),
				HiddenOnly: hiddenOnly(err),
			}
		}
	}
	return record.Execution{
		CallID: callID, Name: name, Server: info.Server, Tool: info.Tool,
		Arguments: record.Args(args),
		Result:    fmt.Sprintf("error: tool %s was not run: %s", info.Exposed, why),
		IsError:   true, ErrorKind: record.ExecBlocked, Error: why,
	}
}

// hiddenOnly reports whether a validation error comes only from constraints
// the model was not shown (the catalog's errors say so by a HiddenOnly
// method).
func hiddenOnly(err error) bool {
	var h interface{ HiddenOnly() bool }
	return errors.As(err, &h) && h.HiddenOnly()
}

// argsValidator is the optional part of Tools a Policy uses to check the
// arguments of a call it blocks; *mcpclient.Catalog has it.
type argsValidator interface {
	ValidateArgs(exposed string, args json.RawMessage) error
}

// Unmatched returns the Allow and Deny patterns that match none of tools, in
// order, so a typo in a suite can be warned about rather than silently
// allow or deny nothing.
func (p *Policy) Unmatched(tools []ToolInfo) []string {
	var out []string
	for _, g := range append(append([]string(nil), p.Allow...), p.Deny...) {
		hit := false
		for _, t := range tools {
			if match([]string{g}, t) != "" {
				hit = true
				break
			}
		}
		if !hit {
			out = append(out, g)
		}
	}
	return out
}

// Blocks says why the policy would not run the tool, or "" when it would.
// It is what Call decides, for listings such as `toolgrade tools`.
func (p *Policy) Blocks(info ToolInfo) string {
	if g := match(p.Deny, info); g != "" {
		return fmt.Sprintf("it matches deny_tools pattern %q", g)
	}
	if match(p.Allow, info) != "" {
		return ""
	}
	a := info.Annotations
	switch {
	case a == nil:
		return ""
	case a.DestructiveHint != nil && *a.DestructiveHint:
		return "it is marked destructive (destructiveHint) and the suite does not allow it; add it to allow_tools to run it"
	case !a.ReadOnlyHint:
		return "its annotations do not mark it read-only (readOnlyHint), so by MCP's defaults it may be destructive, and the suite does not allow it; add it to allow_tools to run it"
	}
	return ""
}

// match returns the first pattern that matches the tool, or "".
func match(globs []string, info ToolInfo) string {
	for _, g := range globs {
		for _, name := range []string{info.Exposed, info.Tool, info.Server + "." + info.Tool} {
			if ok, _ := path.Match(g, name); ok {
				return g
			}
		}
	}
	return ""
}
