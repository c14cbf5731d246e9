package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ollama/ollama/api"
	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/toolschema"
)

// Catalog is the set of tools from every connected server, in the order and
// under the names the model sees them, and the sessions that execute them. It
// is safe for concurrent use.
type Catalog struct {
	opts     Options
	conns    []*server // sorted by server name
	byName   map[string]*server
	failed   []ServerError
	warnings []string

	tools     []*toolschema.Tool
	byExposed map[string]*toolschema.Tool
	byServer  map[string]map[string]*toolschema.Tool // server -> original name -> tool
	ollama    api.Tools
	clashes   map[string][]*toolschema.Tool // tool name -> the tools auto naming prefixed for it

	// endLife cancels restarts in progress when the catalog closes.
	endLife context.CancelFunc

	mu     sync.Mutex
	closed bool
}

// build computes the exposed tools from the connected servers: filters,
// naming and conversion. The catalog is immutable afterwards.
func (c *Catalog) build() {
	c.byName = map[string]*server{}
	c.byExposed = map[string]*toolschema.Tool{}
	c.byServer = map[string]map[string]*toolschema.Tool{}

	kept := make([][]*mcp.Tool, len(c.conns))
	owners := map[string]int{} // tool name -> number of servers exposing it
	for i, sc := range c.conns {
		c.byName[sc.cfg.Name] = sc
		seen := map[string]bool{}
		for _, t := range sc.listed {
			if seen[t.Name] {
				c.warnf("server %q lists tool %q twice; the second is ignored", sc.cfg.Name, t.Name)
				continue
			}
			seen[t.Name] = true
			if sc.cfg.ToolFilter.Allows(t.Name) {
				kept[i] = append(kept[i], t)
			}
		}
		if f := sc.cfg.ToolFilter; f != nil {
			for _, name := range f.Tools {
				if !seen[name] {
					c.warnf("server %q: toolFilter names %q, which the server does not have", sc.cfg.Name, name)
				}
			}
		}
		for _, t := range kept[i] {
			owners[t.Name]++
		}
	}

	for i, sc := range c.conns {
		server := sc.cfg.Name
		c.byServer[server] = map[string]*toolschema.Tool{}
		for _, t := range kept[i] {
			exposed := t.Name
			if c.opts.Naming == NamingPrefixed || owners[t.Name] > 1 {
				exposed = server + PrefixSep + t.Name
			}
			if prev, dup := c.byExposed[exposed]; dup {
				c.warnf("tool %q of server %q would be exposed as %q, which tool %q of server %q already is; it is left out",
					t.Name, server, exposed, prev.Name, prev.Server)
				continue
			}
			tool := toolschema.Convert(server, t, toolschema.Options{Exposed: exposed, Raw: sc.raw[t.Name], PropertyOrder: c.opts.PropertyOrder})
			tool.Annotations = t.Annotations
			c.tools = append(c.tools, tool)
			c.byExposed[exposed] = tool
			c.byServer[server][t.Name] = tool
			c.ollama = append(c.ollama, tool.Ollama)
		}
	}
	if c.opts.Naming == NamingAuto {
		c.warnClashes(owners)
	}
}

// warnClashes says which tools auto naming prefixed because several servers
// expose them: a suite naming them plainly no longer resolves, and the model
// sees other names than the servers' own.
func (c *Catalog) warnClashes(owners map[string]int) {
	var names []string
	for name, n := range owners {
		if n > 1 {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	c.clashes = map[string][]*toolschema.Tool{}
	for _, name := range names {
		var servers, exposed []string
		for _, sc := range c.conns { // sorted by name
			if t := c.byServer[sc.cfg.Name][name]; t != nil {
				servers = append(servers, sc.cfg.Name)
				exposed = append(exposed, t.Exposed)
				c.clashes[name] = append(c.clashes[name], t)
			}
		}
		if len(exposed) < 2 {
			continue // the others were left out as duplicates, warned above
		}
		c.warnf("tools %q of servers %s are exposed as %s", name, andList(servers), andList(exposed))
	}
}

// andList joins "a", "a and b", "a, b and c".
func andList(l []string) string {
	if len(l) < 2 {
		return strings.Join(l, "")
	}
	return strings.Join(l[:len(l)-1], ", ") + " and " + l[len(l)-1]
}

// Clashes lists, in server order, the exposed names of the tools that
// several servers expose under name, which auto naming prefixed; nil when
// name is no such tool.
func (c *Catalog) Clashes(name string) []string {
	if _, exposed := c.byExposed[name]; exposed || len(c.clashes[name]) < 2 {
		return nil
	}
	var out []string
	for _, t := range c.clashes[name] {
		out = append(out, t.Exposed)
	}
	return out
}

func (c *Catalog) warnf(format string, args ...any) {
	c.warnings = append(c.warnings, fmt.Sprintf(format, args...))
}

// Tools returns the exposed tools in the order the model sees them: servers
// by name, each server's tools in its tools/list order.
func (c *Catalog) Tools() []toolschema.Tool {
	out := make([]toolschema.Tool, len(c.tools))
	for i, t := range c.tools {
		out[i] = *t
	}
	return out
}

// OllamaTools returns the tool list to send in /api/chat requests, in the
// order of Tools. Its JSON is byte-identical for the same servers on every
// build (toolbox.CatalogHash is its hash). The property maps are shared; do
// not modify them.
func (c *Catalog) OllamaTools() api.Tools {
	return append(api.Tools{}, c.ollama...)
}

// Lookup finds a tool by the name the model used: its exposed name, or the
// forms server.tool and server__tool.
func (c *Catalog) Lookup(name string) (*toolschema.Tool, bool) {
	t := c.lookup(name)
	if t == nil {
		return nil, false
	}
	cp := *t
	return &cp, true
}

func (c *Catalog) lookup(name string) *toolschema.Tool {
	if t, ok := c.byExposed[name]; ok {
		return t
	}
	for _, sc := range c.conns {
		server := sc.cfg.Name
		for _, sep := range []string{PrefixSep, "."} {
			if rest, ok := strings.CutPrefix(name, server+sep); ok {
				if t, ok := c.byServer[server][rest]; ok {
					return t
				}
			}
		}
	}
	return nil
}

// ToolInfo resolves a name as Lookup does, for a tool policy: the tool's
// names and its MCP annotations (see bridge.Policy).
func (c *Catalog) ToolInfo(name string) (bridge.ToolInfo, bool) {
	t := c.lookup(name)
	if t == nil {
		return bridge.ToolInfo{}, false
	}
	return t.Info(), true
}

// PropertyOrder is the property order the catalog converts tools with
// (Options.PropertyOrder), for tools converted beside it.
func (c *Catalog) PropertyOrder() string { return c.opts.PropertyOrder }

// Failed lists the servers that could not be connected and why.
func (c *Catalog) Failed() []ServerError { return append([]ServerError(nil), c.failed...) }

// SkippedServers names the servers that could not be connected, so that a
// suite's check may leave the tools they would have offered to them
// (suite.SkipReporter).
func (c *Catalog) SkippedServers() []string {
	var out []string
	for _, f := range c.failed {
		out = append(out, f.Name)
	}
	return out
}

// Warnings are problems that did not stop the catalog: tool filters naming
// tools a server does not have, duplicate or clashing tool names (a tool
// several servers expose, which auto naming prefixed).
func (c *Catalog) Warnings() []string { return append([]string(nil), c.warnings...) }

// Close closes every session and ends the child processes. Calls made after
// Close fail as server failures. It is safe to call more than once.
func (c *Catalog) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.mu.Unlock()
	c.endLife()
	errs := make([]error, len(c.conns))
	var wg sync.WaitGroup
	for i, sc := range c.conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := sc.close(); err != nil {
				errs[i] = fmt.Errorf("closing server %q: %w", sc.cfg.Name, err)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Restarts counts, per server name, the restarts of servers whose connection
// ended (each attempt, whether or not it succeeded); servers never restarted
// are left out.
func (c *Catalog) Restarts() map[string]int {
	out := map[string]int{}
	for _, s := range c.conns {
		if n := s.restartCount(); n > 0 {
			out[s.cfg.Name] = n
		}
	}
	return out
}

// Down returns, per server name, why each connected server cannot take a
// call now: it was given up for good, or its last restart failed (the next
// call will try again). Servers that are up, or dead but not yet restarted
// (the next call restarts them), are left out.
func (c *Catalog) Down() map[string]error {
	out := map[string]error{}
	for _, s := range c.conns {
		s.mu.Lock()
		err := s.failed
		if err == nil {
			err = s.lastErr
		}
		s.mu.Unlock()
		if err != nil && !errors.Is(err, errClosed) {
			out[s.cfg.Name] = err
		}
	}
	return out
}

// Resolve maps a tool name as a case file writes it (plain, server.tool or
// server__tool) to the name the model sees.
func (c *Catalog) Resolve(name string) (string, bool) {
	t, ok := c.Lookup(name)
	if !ok {
		return "", false
	}
	return t.Exposed, true
}

// Names lists the names the model sees, in catalog order.
func (c *Catalog) Names() []string {
	tools := c.Tools()
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Exposed
	}
	return names
}

// ValidateArgs checks args (a JSON object) against the input schema of the
// tool the model sees as exposed.
func (c *Catalog) ValidateArgs(exposed string, args json.RawMessage) error {
	t, ok := c.Lookup(exposed)
	if !ok {
		return fmt.Errorf("unknown tool %q", exposed)
	}
	return t.ValidateArgs(args)
}

// ValidatePartial checks args like ValidateArgs but does not require the
// properties args leave out: a case file fixes some arguments and leaves the
// others to matchers, and its literals must still fit the schema.
func (c *Catalog) ValidatePartial(exposed string, args json.RawMessage) error {
	t, ok := c.Lookup(exposed)
	if !ok {
		return fmt.Errorf("unknown tool %q", exposed)
	}
	return t.ValidatePartial(args)
}

// HiddenOf returns the hidden constraints of the tool the model sees as
// exposed; nil for an unknown name.
func (c *Catalog) HiddenOf(exposed string) []toolschema.Hidden {
	if t := c.lookup(exposed); t != nil {
		return t.Hidden
	}
	return nil
}

// Coerce applies to args the conversions a lenient client makes before it
// validates a call against the input schema of the tool the model sees as
// exposed (see toolschema.CoerceArgs); changed is false, and args come back as they
// were, when there was nothing to convert or no such tool.
func (c *Catalog) Coerce(exposed string, args json.RawMessage) (json.RawMessage, bool) {
	t := c.lookup(exposed)
	if t == nil {
		return args, false
	}
	return toolschema.CoerceArgs(t.InputSchema, args)
}
