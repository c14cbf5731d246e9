// Package serversfile reads the servers file: an mcpServers document, JSON
// (Claude Desktop's and other MCP clients' format) or YAML, into the servers
// a run may start or reach, with a file:line:col error for every mistake.
package serversfile

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgrade/toolgrade/internal/redact"
	"github.com/toolgrade/toolgrade/internal/srcpos"
	"go.yaml.in/yaml/v3"
)

// Transport names a Server's transport. The config accepts the aliases "http"
// and "streamable-http" for TransportStreamable.
const (
	TransportStdio      = "stdio"
	TransportStreamable = "streamable-http"
	TransportSSE        = "sse"
)

// Tool filter modes.
const (
	FilterInclude = "include"
	FilterExclude = "exclude"
)

// Config is a parsed mcpServers file: the servers a run may use.
type Config struct {
	// Path is the file the config came from, as given (used in messages).
	Path string
	// Dir is the absolute folder relative paths in the config resolve against.
	Dir string
	// Servers are the servers to connect, sorted by name; servers marked
	// "disabled": true are not among them.
	Servers []Server
	// Disabled names, sorted, the servers the file marks "disabled": true,
	// as Claude Desktop and other MCP clients honour it: they are checked
	// like the others (but their ${env:...} are left unexpanded) and never
	// started or connected.
	Disabled []string
	// Warnings are problems that did not stop parsing, such as top-level
	// keys other than mcpServers (a Claude Desktop config holds its own
	// settings there), each located as file:line:col. The commands print
	// them to stderr.
	Warnings []string
}

// Server is one entry of mcpServers: how to start or reach one MCP server.
type Server struct {
	Name string
	// Command, Args, Env and Cwd describe a stdio server. The server sees
	// only a short safe list of toolgrade's environment (mcpclient.SafeEnv), the
	// variables InheritEnv names, and Env, as the official MCP SDKs start a
	// stdio server; Cwd is absolute after parsing (the config's folder by
	// default).
	Command string
	Args    []string
	Env     map[string]string
	// InheritEnv names more of toolgrade's variables the server may see
	// ("inheritEnv" in the file); nil: the safe list alone.
	InheritEnv []string
	Cwd        string
	// URL and Headers describe a remote server; the headers go on every HTTP
	// request.
	URL     string
	Headers map[string]string
	// Transport is one of the Transport* constants (inferred when parsing).
	Transport string
	// ToolFilter, when set, limits which of the server's tools are exposed.
	ToolFilter *ToolFilter
	// PerTrial ("perTrial": true) starts a fresh process of the server for
	// every trial, in a new temporary directory of its own (its working
	// directory, and TrialDirPlaceholder in Args, Env and Cwd), so trials
	// that change state never see each other's changes. False: one process
	// for the whole run. Stdio servers only.
	PerTrial bool
	// TrialTemplate ("trialTemplate"), absolute after parsing, is a folder
	// copied into each trial directory before the server starts; empty:
	// the directory starts empty. Only with PerTrial.
	TrialTemplate string
	// Dial, when set, replaces building a transport from the fields above, so
	// tests and in-process fakes can hand over an in-memory transport. It is
	// called once per connection.
	Dial func(ctx context.Context) (mcp.Transport, error)
}

// ToolFilter limits a server's tools to (include) or hides (exclude) the named
// ones.
type ToolFilter struct {
	// Mode is FilterInclude or FilterExclude.
	Mode  string
	Tools []string
}

// Allows reports whether the filter lets the tool through.
func (f *ToolFilter) Allows(tool string) bool {
	if f == nil {
		return true
	}
	listed := slices.Contains(f.Tools, tool)
	if f.Mode == FilterExclude {
		return !listed
	}
	return listed
}

// Load reads and parses an mcpServers file.
func Load(ctx context.Context, path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(ctx, data, path)
}

// Parse parses an mcpServers document. path names the file in errors and its
// folder is the default cwd of stdio servers. JSON input is read with a
// strict JSON tokenizer (so JSON syntax errors carry exact positions); a file
// ending in .yaml or .yml, or one not starting with '{', is read as YAML. The
// error is a *srcpos.Error, or ctx's error once it is done: a parse of a
// large file stops at once when the user interrupts it.
func Parse(ctx context.Context, data []byte, path string) (*Config, error) {
	dir := "."
	if path != "" {
		dir = filepath.Dir(path)
	}
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, srcpos.Errorf(srcpos.Pos{File: path}, "", `empty file; expected {"mcpServers": {...}}`)
	}
	ext := strings.ToLower(filepath.Ext(path))
	var root *yaml.Node
	if ext != ".yaml" && ext != ".yml" && trimmed[0] == '{' {
		root, err = jsonToNode(ctx, data, path)
		if err != nil {
			return nil, err
		}
	} else {
		var doc yaml.Node
		if err := unmarshalYAML(ctx, data, &doc); err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			return nil, srcpos.YAMLSyntax(path, data, err)
		}
		root = &doc
	}
	return ParseNode(root, path, absDir)
}

// unmarshalYAML is yaml.Unmarshal, left behind once ctx is done: the YAML
// parser cannot be stopped, so a parse the user interrupted ends in the
// background while the command returns.
func unmarshalYAML(ctx context.Context, data []byte, doc *yaml.Node) error {
	done := make(chan error, 1)
	go func() { done <- yaml.Unmarshal(data, doc) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ParseNode parses an mcpServers object that has already been read into a YAML
// node (a document or a mapping), so a larger YAML file can embed it and keep
// its line numbers. file names the file in errors; dir is the folder relative
// cwd values resolve against (made absolute here).
func ParseNode(n *yaml.Node, file, dir string) (*Config, error) {
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	p := &parser{file: file, dir: absDir}
	cfg, err := p.config(n)
	if err != nil {
		return nil, err
	}
	cfg.Path = file
	cfg.Dir = absDir
	return cfg, nil
}

type parser struct {
	file string
	dir  string
	// keepEnv leaves ${env:NAME} unexpanded while reading a disabled server:
	// a server is often disabled because its token is not at hand.
	keepEnv bool
}

func (p *parser) errAt(n *yaml.Node, field, format string, args ...any) *srcpos.Error {
	return srcpos.Errorf(srcpos.Node(p.file, n), field, format, args...)
}

// field is one key of a mapping with its value.
type field struct {
	key, val *yaml.Node
}

// fields returns a mapping's entries in order, rejecting duplicate and
// non-string keys.
func (p *parser) fields(n *yaml.Node, path string) ([]field, error) {
	var out []field
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := srcpos.Deref(n.Content[i]), srcpos.Deref(n.Content[i+1])
		if k.Kind != yaml.ScalarNode || k.ShortTag() == "!!merge" {
			return nil, p.errAt(k, path, "keys must be strings")
		}
		if first, dup := seen[k.Value]; dup {
			return nil, p.errAt(k, join(path, k.Value), "duplicate key (first at line %d)", first.Line)
		}
		seen[k.Value] = k
		out = append(out, field{k, v})
	}
	return out, nil
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// unknownField reports a key that is not one of known, suggesting the closest
// known one.
func (p *parser) unknownField(k *yaml.Node, path string, known []string) error {
	return p.errAt(k, path, "%s", srcpos.Unknown("field", k.Value, known))
}

// str reads a string scalar and expands ${env:NAME} in it.
func (p *parser) str(n *yaml.Node, path string) (string, error) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		msg := "must be a string, not " + srcpos.KindName(n)
		if n.Kind == yaml.ScalarNode && n.Style == 0 && n.ShortTag() != "!!null" {
			msg += " (quote it)"
		}
		return "", p.errAt(n, path, "%s", msg)
	}
	if p.keepEnv {
		return n.Value, nil
	}
	s, err := expandEnv(n.Value)
	if err != nil {
		return "", p.errAt(n, path, "%s", err)
	}
	return s, nil
}

func (p *parser) boolean(n *yaml.Node, path string) (bool, error) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
		return false, p.errAt(n, path, "must be true or false, not %s", srcpos.KindName(n))
	}
	var b bool
	if err := n.Decode(&b); err != nil {
		return false, p.errAt(n, path, "must be true or false, not %s", srcpos.KindName(n))
	}
	return b, nil
}

func (p *parser) strList(n *yaml.Node, path string) ([]string, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, p.errAt(n, path, "must be a list of strings, not %s", srcpos.KindName(n))
	}
	out := make([]string, 0, len(n.Content))
	for i, c := range n.Content {
		c = srcpos.Deref(c)
		if c.Kind != yaml.ScalarNode || c.ShortTag() != "!!str" {
			return nil, p.errAt(c, path, "must be a list of strings; item %d is %s", i, srcpos.KindName(c))
		}
		s, err := p.str(c, fmt.Sprintf("%s[%d]", path, i))
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func (p *parser) strMap(n *yaml.Node, path string) (map[string]string, error) {
	if n.Kind != yaml.MappingNode {
		return nil, p.errAt(n, path, "must be an object of strings, not %s", srcpos.KindName(n))
	}
	fs, err := p.fields(n, path)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(fs))
	for _, f := range fs {
		if f.key.Value == "" {
			return nil, p.errAt(f.key, path, "empty name")
		}
		s, err := p.str(f.val, join(path, f.key.Value))
		if err != nil {
			return nil, err
		}
		out[f.key.Value] = s
	}
	return out, nil
}

func (p *parser) config(n *yaml.Node) (*Config, error) {
	n = srcpos.Deref(n)
	if n == nil {
		return nil, p.errAt(nil, "", `empty; expected {"mcpServers": {...}}`)
	}
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return nil, p.errAt(nil, "", `empty; expected {"mcpServers": {...}}`)
		}
		n = srcpos.Deref(n.Content[0])
	}
	if n.Kind != yaml.MappingNode {
		return nil, p.errAt(n, "", `must be an object {"mcpServers": {...}}, not %s`, srcpos.KindName(n))
	}
	fs, err := p.fields(n, "")
	if err != nil {
		return nil, err
	}
	var servers *yaml.Node
	var ignored []field
	for _, f := range fs {
		switch {
		case f.key.Value == "mcpServers":
			servers = f.val
		case srcpos.Suggest(f.key.Value, []string{"mcpServers"}) != "":
			// "mcpServer" is a typo, not another client's setting.
			return nil, p.unknownField(f.key, "", []string{"mcpServers"})
		default:
			ignored = append(ignored, f)
		}
	}
	if servers == nil {
		// Most likely the servers without their wrapper; say so rather than
		// call the first server name an unknown field.
		return nil, p.errAt(n, "mcpServers", `missing; the servers go in {"mcpServers": {"<name>": {"command": ...} or {"url": ...}}}`)
	}
	cfg := &Config{}
	if len(ignored) > 0 {
		// A Claude Desktop config keeps its own settings (globalShortcut,
		// preferences, ...) beside mcpServers: one warning for all of them.
		names := make([]string, len(ignored))
		for i, f := range ignored {
			names[i] = f.key.Value
		}
		cfg.Warnings = append(cfg.Warnings, p.errAt(ignored[0].key, "",
			"ignoring top-level keys other than mcpServers: %s", strings.Join(names, ", ")).Error())
	}
	if servers.Kind != yaml.MappingNode {
		return nil, p.errAt(servers, "mcpServers", "must be an object of servers by name, not %s", srcpos.KindName(servers))
	}
	sfs, err := p.fields(servers, "mcpServers")
	if err != nil {
		return nil, err
	}
	for _, f := range sfs {
		s, disabled, err := p.server(f.key, f.val)
		if err != nil {
			return nil, err
		}
		if disabled {
			cfg.Disabled = append(cfg.Disabled, s.Name)
			continue
		}
		cfg.Servers = append(cfg.Servers, s)
	}
	sort.Slice(cfg.Servers, func(i, j int) bool { return cfg.Servers[i].Name < cfg.Servers[j].Name })
	sort.Strings(cfg.Disabled)
	return cfg, nil
}

var serverNameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

var serverFields = []string{"command", "args", "env", "inheritEnv", "cwd", "url", "headers", "transport", "type", "toolFilter", "disabled", "perTrial", "trialTemplate"}

// server reads one entry of mcpServers; disabled reports "disabled": true.
func (p *parser) server(k, n *yaml.Node) (_ Server, disabled bool, _ error) {
	name := k.Value
	path := "mcpServers." + name
	s := Server{Name: name}
	if !serverNameRE.MatchString(name) {
		return s, disabled, p.errAt(k, path, "server names may use only letters, digits, '_', '-' and '.' (they become tool name prefixes)")
	}
	if n.Kind != yaml.MappingNode {
		return s, disabled, p.errAt(n, path, "must be an object, not %s", srcpos.KindName(n))
	}
	fs, err := p.fields(n, path)
	if err != nil {
		return s, disabled, err
	}
	for _, f := range fs {
		if f.key.Value == "disabled" && f.val.ShortTag() == "!!bool" && f.val.Value == "true" {
			p.keepEnv = true
			defer func() { p.keepEnv = false }()
		}
	}
	e := &serverEntry{keys: map[string]*yaml.Node{}}
	for _, f := range fs {
		e.keys[f.key.Value] = f.key
		if err := p.serverField(&s, e, f, path); err != nil {
			return s, e.disabled, err
		}
	}
	_, hasCommand := e.keys["command"]
	_, hasURL := e.keys["url"]
	switch {
	case hasCommand && hasURL:
		return s, e.disabled, p.errAt(e.keys["url"], path, `has both "command" (stdio) and "url" (remote); use one`)
	case !hasCommand && !hasURL:
		return s, e.disabled, p.errAt(n, path, `needs "command" (a stdio server) or "url" (a remote server)`)
	case hasCommand:
		return s, e.disabled, p.stdioServer(&s, e, path)
	}
	return s, e.disabled, p.remoteServer(&s, e, path)
}

// serverEntry is what reading one entry of mcpServers finds beside the
// Server itself: the keys written, the transport asked for and where, and
// "disabled".
type serverEntry struct {
	keys map[string]*yaml.Node
	// transport is the transport written (normalised), transportField the
	// key it is written under ("transport" or "type"); empty when neither.
	transport, transportField string
	transportNode             *yaml.Node
	disabled                  bool
}

// serverField reads field f of the entry at path into s or e.
func (p *parser) serverField(s *Server, e *serverEntry, f field, path string) error {
	var err error
	fp := join(path, f.key.Value)
	switch f.key.Value {
	case "command":
		s.Command, err = p.str(f.val, fp)
		if err == nil && s.Command == "" {
			err = p.errAt(f.val, fp, "must not be empty")
		}
	case "args":
		s.Args, err = p.strList(f.val, fp)
		if err == nil {
			err = p.placeholders(f.val, fp)
		}
	case "env":
		s.Env, err = p.strMap(f.val, fp)
		if err == nil {
			err = p.placeholders(f.val, fp)
		}
	case "inheritEnv":
		s.InheritEnv, err = p.envNames(f.val, fp)
	case "cwd":
		s.Cwd, err = p.str(f.val, fp)
		if err == nil {
			err = p.placeholders(f.val, fp)
		}
	case "perTrial":
		s.PerTrial, err = p.boolean(f.val, fp)
	case "trialTemplate":
		s.TrialTemplate, err = p.str(f.val, fp)
		if err == nil && s.TrialTemplate == "" {
			err = p.errAt(f.val, fp, "must not be empty: the folder copied into each trial directory")
		}
	case "url":
		s.URL, err = p.str(f.val, fp)
		if err == nil {
			err = p.checkURL(f.val, fp, s.URL)
		}
	case "headers":
		s.Headers, err = p.strMap(f.val, fp)
	case "transport", "type":
		// "type" is what Claude Code and VS Code configs call it.
		var t, norm string
		if t, err = p.str(f.val, fp); err != nil {
			return err
		}
		if norm, err = p.transport(f.val, fp, t); err != nil {
			return err
		}
		if e.transport != "" && norm != e.transport {
			return p.errAt(f.val, fp, "conflicts with %q %q", e.transportField, e.transport)
		}
		e.transport, e.transportField, e.transportNode = norm, f.key.Value, f.val
	case "toolFilter":
		s.ToolFilter, err = p.toolFilter(f.val, fp)
	case "disabled":
		e.disabled, err = p.boolean(f.val, fp)
	default:
		err = p.unknownField(f.key, path, serverFields)
	}
	return err
}

// stdioServer checks and completes a server entry with "command".
func (p *parser) stdioServer(s *Server, e *serverEntry, path string) error {
	for _, f := range []string{"headers"} {
		if kn, ok := e.keys[f]; ok {
			return p.errAt(kn, join(path, f), `only applies to remote servers ("url")`)
		}
	}
	if e.transport != "" && e.transport != TransportStdio {
		return p.errAt(e.transportNode, join(path, e.transportField), `%q needs "url", not "command"`, e.transport)
	}
	s.Transport = TransportStdio
	if err := p.perTrial(s, e, path); err != nil {
		return err
	}
	switch {
	case s.Cwd == "" && s.PerTrial:
		s.Cwd = TrialDirPlaceholder
	case s.Cwd == "":
		s.Cwd = p.dir
	case !filepath.IsAbs(s.Cwd) && !strings.HasPrefix(s.Cwd, TrialDirPlaceholder):
		s.Cwd = filepath.Join(p.dir, s.Cwd)
	}
	return nil
}

// remoteServer checks and completes a server entry with "url".
func (p *parser) remoteServer(s *Server, e *serverEntry, path string) error {
	for _, f := range []string{"args", "env", "inheritEnv", "cwd", "perTrial", "trialTemplate"} {
		if kn, ok := e.keys[f]; ok {
			return p.errAt(kn, join(path, f), `only applies to stdio servers ("command")`)
		}
	}
	switch e.transport {
	case TransportStdio:
		return p.errAt(e.transportNode, join(path, e.transportField), `"stdio" needs "command", not "url"`)
	case "":
		s.Transport = TransportStreamable
		if u, err := url.Parse(s.URL); err == nil && PathEndsSSE(u.Path) {
			s.Transport = TransportSSE
		}
	default:
		s.Transport = e.transport
	}
	return nil
}

// PathEndsSSE reports whether a URL path names an SSE endpoint, the
// convention by which configs without "transport" mean the legacy transport.
func PathEndsSSE(p string) bool {
	return path.Base(strings.TrimSuffix(p, "/")) == "sse"
}

func (p *parser) transport(n *yaml.Node, fp, t string) (string, error) {
	switch strings.ToLower(t) {
	case "stdio":
		return TransportStdio, nil
	case "sse":
		return TransportSSE, nil
	case "http", "streamable-http", "streamablehttp", "streamable_http":
		return TransportStreamable, nil
	}
	return "", p.errAt(n, fp, `must be "stdio", "http" (or "streamable-http") or "sse", not %q`, t)
}

func (p *parser) checkURL(n *yaml.Node, fp, s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return p.errAt(n, fp, "not a valid URL: %s", redact.Text(err.Error(), s))
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return p.errAt(n, fp, "must be an http:// or https:// URL, not %q", redact.URL(s))
	}
	return nil
}

func (p *parser) toolFilter(n *yaml.Node, path string) (*ToolFilter, error) {
	if n.Kind != yaml.MappingNode {
		return nil, p.errAt(n, path, `must be an object {"mode": "include" or "exclude", "tools": [...]}, not %s`, srcpos.KindName(n))
	}
	fs, err := p.fields(n, path)
	if err != nil {
		return nil, err
	}
	f := &ToolFilter{}
	var haveMode, haveTools bool
	for _, e := range fs {
		fp := join(path, e.key.Value)
		switch e.key.Value {
		case "mode":
			haveMode = true
			f.Mode, err = p.str(e.val, fp)
			if err == nil && f.Mode != FilterInclude && f.Mode != FilterExclude {
				err = p.errAt(e.val, fp, `must be "include" or "exclude", not %q`, f.Mode)
			}
		case "tools":
			haveTools = true
			f.Tools, err = p.strList(e.val, fp)
		default:
			err = p.unknownField(e.key, path, []string{"mode", "tools"})
		}
		if err != nil {
			return nil, err
		}
	}
	if !haveMode {
		return nil, p.errAt(n, join(path, "mode"), `missing; "include" or "exclude"`)
	}
	if !haveTools {
		return nil, p.errAt(n, join(path, "tools"), "missing; the list of tool names")
	}
	return f, nil
}

// expandEnv replaces every ${env:NAME} in s with the variable's value. An
// unset variable is an error rather than an empty string: an empty token or
// path fails later in ways much harder to trace back.
func expandEnv(s string) (string, error) {
	const open = "${env:"
	if !strings.Contains(s, open) {
		return s, nil
	}
	var b strings.Builder
	for {
		i := strings.Index(s, open)
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		b.WriteString(s[:i])
		rest := s[i+len(open):]
		j := strings.IndexByte(rest, '}')
		if j < 0 {
			return "", fmt.Errorf("unterminated %q", s[i:])
		}
		name := rest[:j]
		if name == "" {
			return "", fmt.Errorf("empty variable name in ${env:}")
		}
		v, ok := os.LookupEnv(name)
		if !ok {
			return "", fmt.Errorf("environment variable %s is not set (referenced as ${env:%s})", name, name)
		}
		b.WriteString(v)
		s = rest[j+1:]
	}
}
