package serversfile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/srcpos"
	"go.yaml.in/yaml/v3"
)

func TestConfigErrors(t *testing.T) {
	t.Setenv("TOOLGRADE_TEST_SET", "yes")
	os.Unsetenv("TOOLGRADE_TEST_UNSET")
	cases := []struct {
		name, src, want string
	}{
		{
			name: "unknown field",
			src: `{"mcpServers": {
  "docs": {"comand": "toolgrade"}
}}`,
			want: `servers.json:2:12: mcpServers.docs: unknown field "comand" (did you mean "command"?)`,
		},
		{
			name: "unknown field far from any",
			src: `{"mcpServers": {
  "docs": {"command": "x", "zzzzzz": 1}
}}`,
			want: `servers.json:2:28: mcpServers.docs: unknown field "zzzzzz" (known fields: command, args, env, inheritEnv, cwd, url, headers, transport, type, toolFilter, disabled, perTrial, trialTemplate)`,
		},
		{
			name: "args wrong type",
			src: `{"mcpServers": {
  "docs": {
    "command": "toolgrade",
    "args": "fake-mcp docs"
  }
}}`,
			want: `servers.json:4:13: mcpServers.docs.args: must be a list of strings, not the string "fake-mcp docs"`,
		},
		{
			name: "args item wrong type",
			src: `{"mcpServers": {
  "docs": {
    "command": "toolgrade",
    "args": ["fake-mcp", 7]
  }
}}`,
			want: `servers.json:4:26: mcpServers.docs.args: must be a list of strings; item 1 is the number 7`,
		},
		{
			name: "env value wrong type",
			src:  `{"mcpServers": {"docs": {"command": "x", "env": {"PORT": 8080}}}}`,
			want: `servers.json:1:58: mcpServers.docs.env.PORT: must be a string, not the number 8080 (quote it)`,
		},
		{
			name: "missing command and url",
			src: `{"mcpServers": {
  "docs": {"args": ["x"]}
}}`,
			want: `servers.json:2:11: mcpServers.docs: needs "command" (a stdio server) or "url" (a remote server)`,
		},
		{
			name: "both command and url",
			src: `{"mcpServers": {
  "docs": {"command": "x",
           "url": "http://127.0.0.1:9/mcp"}
}}`,
			want: `servers.json:3:12: mcpServers.docs: has both "command" (stdio) and "url" (remote); use one`,
		},
		{
			name: "unset env variable",
			src: `{"mcpServers": {
  "remote": {"url": "http://127.0.0.1:9/mcp",
             "headers": {"Authorization": "Bearer ${env:TOOLGRADE_TEST_UNSET}"}}
}}`,
			want: `servers.json:3:43: mcpServers.remote.headers.Authorization: environment variable TOOLGRADE_TEST_UNSET is not set (referenced as ${env:TOOLGRADE_TEST_UNSET})`,
		},
		{
			name: "unterminated env reference",
			src:  `{"mcpServers": {"docs": {"command": "${env:TOOLGRADE_TEST_SET"}}}`,
			want: `servers.json:1:37: mcpServers.docs.command: unterminated "${env:TOOLGRADE_TEST_SET"`,
		},
		{
			name: "trailing comma",
			src: `{"mcpServers": {
  "docs": {"command": "x",}
}}`,
			want: `servers.json:2:27: invalid JSON: invalid character '}' looking for beginning of object key string
    2 |   "docs": {"command": "x",}
      |                           ^`,
		},
		{
			name: "missing colon",
			src: `{"mcpServers": {
  "docs" {"command": "x"}
}}`,
			want: `servers.json:2:10: invalid JSON: invalid character '{' after object key
    2 |   "docs" {"command": "x"}
      |          ^`,
		},
		{
			name: "truncated",
			src:  "{\"mcpServers\": {\n  \"docs\": {\"command\": \"x\"}\n",
			want: `servers.json:3:1: invalid JSON: unexpected end of input`,
		},
		{
			name: "trailing data",
			src:  `{"mcpServers": {}} {}`,
			want: `servers.json:1:20: unexpected data after the top-level value`,
		},
		{
			name: "no mcpServers wrapper",
			src:  `{"docs": {"command": "x"}}`,
			want: `servers.json:1:1: mcpServers: missing; the servers go in {"mcpServers": {"<name>": {"command": ...} or {"url": ...}}}`,
		},
		{
			name: "top-level typo next to mcpServers",
			src:  `{"mcpServers": {}, "mcpServer": {}}`,
			want: `servers.json:1:20: unknown field "mcpServer" (did you mean "mcpServers"?)`,
		},
		{
			name: "duplicate server",
			src: `{"mcpServers": {
  "docs": {"command": "x"},
  "docs": {"command": "y"}
}}`,
			want: `servers.json:3:3: mcpServers.docs: duplicate key (first at line 2)`,
		},
		{
			name: "bad transport",
			src:  `{"mcpServers": {"r": {"url": "http://h/mcp", "transport": "websocket"}}}`,
			want: `servers.json:1:59: mcpServers.r.transport: must be "stdio", "http" (or "streamable-http") or "sse", not "websocket"`,
		},
		{
			name: "sse transport on a command",
			src:  `{"mcpServers": {"d": {"command": "x", "transport": "sse"}}}`,
			want: `servers.json:1:52: mcpServers.d.transport: "sse" needs "url", not "command"`,
		},
		{
			name: "headers on a command",
			src:  `{"mcpServers": {"d": {"command": "x", "headers": {}}}}`,
			want: `servers.json:1:39: mcpServers.d.headers: only applies to remote servers ("url")`,
		},
		{
			name: "bad url",
			src:  `{"mcpServers": {"r": {"url": "localhost:8080/mcp"}}}`,
			want: `servers.json:1:30: mcpServers.r.url: must be an http:// or https:// URL, not "localhost:8080/mcp"`,
		},
		{
			name: "bad filter mode",
			src:  `{"mcpServers": {"d": {"command": "x", "toolFilter": {"mode": "only", "tools": []}}}}`,
			want: `servers.json:1:62: mcpServers.d.toolFilter.mode: must be "include" or "exclude", not "only"`,
		},
		{
			name: "filter without tools",
			src:  `{"mcpServers": {"d": {"command": "x", "toolFilter": {"mode": "include"}}}}`,
			want: `servers.json:1:53: mcpServers.d.toolFilter.tools: missing; the list of tool names`,
		},
		{
			name: "not an object",
			src:  `{"mcpServers": ["docs"]}`,
			want: `servers.json:1:16: mcpServers: must be an object of servers by name, not a list`,
		},
		{
			name: "bad server name",
			src:  `{"mcpServers": {"my docs": {"command": "x"}}}`,
			want: `servers.json:1:17: mcpServers.my docs: server names may use only letters, digits, '_', '-' and '.' (they become tool name prefixes)`,
		},
		{
			name: "empty",
			src:  "  \n",
			want: `servers.json: empty file; expected {"mcpServers": {...}}`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(context.Background(), []byte(tc.src), "servers.json")
			if err == nil {
				t.Fatalf("Parse succeeded; want error %q", tc.want)
			}
			if err.Error() != tc.want {
				t.Errorf("error:\n got %s\nwant %s", err, tc.want)
			}
			var ce *srcpos.Error
			if !errors.As(err, &ce) {
				t.Errorf("error is %T, want *srcpos.Error", err)
			}
		})
	}
}

func TestConfigErrorColumnsCountCharacters(t *testing.T) {
	// "é" is two bytes but one column.
	src := `{"mcpServers": {"d": {"command": "é", "args": 1}}}`
	_, err := Parse(context.Background(), []byte(src), "s.json")
	want := `s.json:1:47: mcpServers.d.args: must be a list of strings, not the number 1`
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
}

func TestParseServers(t *testing.T) {
	t.Setenv("TOOLGRADE_TEST_TOKEN", "s3cret")
	t.Setenv("TOOLGRADE_TEST_DIR", "from-env")
	dir := t.TempDir()
	path := filepath.Join(dir, "servers.json")
	src := `{"mcpServers": {
  "docs": {"command": "toolgrade", "args": ["fake-mcp", "docs", "--token=${env:TOOLGRADE_TEST_TOKEN}"],
           "env": {"K": "v", "T": "${env:TOOLGRADE_TEST_TOKEN}"}, "cwd": "sub"},
  "abs": {"command": "x", "cwd": "/tmp"},
  "envcwd": {"command": "x", "cwd": "${env:TOOLGRADE_TEST_DIR}/deeper"},
  "plain": {"command": "x"},
  "remote": {"url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer ${env:TOOLGRADE_TEST_TOKEN}"}},
  "legacy": {"url": "http://127.0.0.1:9/sse"},
  "legacy2": {"url": "http://127.0.0.1:9/v1/sse/?x=1"},
  "forced": {"url": "http://127.0.0.1:9/events", "transport": "sse"},
  "httpsse": {"url": "http://127.0.0.1:9/sse", "transport": "http"},
  "typed": {"url": "http://127.0.0.1:9/mcp", "type": "streamable-http"},
  "stdio": {"command": "x", "transport": "stdio"},
  "fs": {"command": "node", "args": ["srv.js"], "toolFilter": {"mode": "include", "tools": ["read_text_file"]}},
  "ex": {"command": "node", "toolFilter": {"mode": "exclude", "tools": ["write_file", "edit_file"]}}
}}`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Path != path || cfg.Dir != dir {
		t.Errorf("Path, Dir = %q, %q; want %q, %q", cfg.Path, cfg.Dir, path, dir)
	}
	var names []string
	byName := map[string]Server{}
	for _, s := range cfg.Servers {
		names = append(names, s.Name)
		byName[s.Name] = s
	}
	wantNames := []string{"abs", "docs", "envcwd", "ex", "forced", "fs", "httpsse", "legacy", "legacy2", "plain", "remote", "stdio", "typed"}
	if !reflect.DeepEqual(names, wantNames) {
		t.Errorf("servers = %v, want %v (sorted)", names, wantNames)
	}

	docs := byName["docs"]
	if want := []string{"fake-mcp", "docs", "--token=s3cret"}; !reflect.DeepEqual(docs.Args, want) {
		t.Errorf("docs.Args = %q, want %q", docs.Args, want)
	}
	if want := map[string]string{"K": "v", "T": "s3cret"}; !reflect.DeepEqual(docs.Env, want) {
		t.Errorf("docs.Env = %v, want %v", docs.Env, want)
	}
	checks := []struct{ what, got, want string }{
		{"docs.Command", docs.Command, "toolgrade"},
		{"docs.Cwd", docs.Cwd, filepath.Join(dir, "sub")},
		{"docs.Transport", docs.Transport, TransportStdio},
		{"abs.Cwd", byName["abs"].Cwd, "/tmp"},
		{"envcwd.Cwd", byName["envcwd"].Cwd, filepath.Join(dir, "from-env", "deeper")},
		{"plain.Cwd (default: the config's folder)", byName["plain"].Cwd, dir},
		{"remote.Transport", byName["remote"].Transport, TransportStreamable},
		{"remote.Authorization", byName["remote"].Headers["Authorization"], "Bearer s3cret"},
		{"legacy.Transport (/sse suffix)", byName["legacy"].Transport, TransportSSE},
		{"legacy2.Transport (/sse/ suffix)", byName["legacy2"].Transport, TransportSSE},
		{"forced.Transport", byName["forced"].Transport, TransportSSE},
		{"httpsse.Transport (explicit http wins)", byName["httpsse"].Transport, TransportStreamable},
		{"typed.Transport", byName["typed"].Transport, TransportStreamable},
		{"stdio.Transport", byName["stdio"].Transport, TransportStdio},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.what, c.got, c.want)
		}
	}
	if f := byName["fs"].ToolFilter; f == nil || f.Mode != FilterInclude || !reflect.DeepEqual(f.Tools, []string{"read_text_file"}) {
		t.Errorf("fs.ToolFilter = %+v", f)
	}
	if f := byName["ex"].ToolFilter; f == nil || f.Mode != FilterExclude || len(f.Tools) != 2 {
		t.Errorf("ex.ToolFilter = %+v", f)
	}
	if byName["plain"].ToolFilter != nil {
		t.Errorf("plain.ToolFilter = %+v, want nil", byName["plain"].ToolFilter)
	}
}

func TestParseJSONEscapes(t *testing.T) {
	// JSON escapes YAML does not know ("\/") and tab indentation.
	src := "{\n\t\"mcpServers\": {\n\t\t\"d\": {\"command\": \"a\\/b\\u00e9\\t\"}\n\t}\n}"
	cfg, err := Parse(context.Background(), []byte(src), "s.json")
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Servers[0].Command; got != "a/bé\t" {
		t.Errorf("command = %q", got)
	}
}

func TestParseNodeEmbeddedInYAML(t *testing.T) {
	src := `name: suite
servers:
  mcpServers:
    docs:
      command: toolgrade
      args: [fake-mcp, docs]
    bad:
      command: x
      args: [fake-mcp, 3]
`
	var doc struct {
		Servers yaml.Node `yaml:"servers"`
	}
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	_, err := ParseNode(&doc.Servers, "suite.yaml", "/work")
	want := `suite.yaml:9:24: mcpServers.bad.args: must be a list of strings; item 1 is the number 3`
	if err == nil || err.Error() != want {
		t.Fatalf("got %v\nwant %s", err, want)
	}

	src = strings.Replace(src, "[fake-mcp, 3]", "[fake-mcp]", 1)
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	cfg, err := ParseNode(&doc.Servers, "suite.yaml", "/work")
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Servers) != 2 || cfg.Servers[1].Name != "docs" || cfg.Servers[1].Cwd != "/work" {
		t.Errorf("servers = %+v", cfg.Servers)
	}
}

func TestParseYAMLSyntaxError(t *testing.T) {
	_, err := Parse(context.Background(), []byte("mcpServers:\n  docs: [unclosed\n"), "servers.yaml")
	// At the unclosed bracket (yaml.v3 says line 1: it counts a parser
	// error's line from 0).
	want := "servers.yaml:2:9: YAML: did not find expected ',' or ']' (this [ is never closed)\n" +
		"    2 |   docs: [unclosed\n" +
		"      |         ^"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
}

func TestToolFilterAllows(t *testing.T) {
	inc := &ToolFilter{Mode: FilterInclude, Tools: []string{"a"}}
	exc := &ToolFilter{Mode: FilterExclude, Tools: []string{"a"}}
	var none *ToolFilter
	for _, c := range []struct {
		f    *ToolFilter
		tool string
		want bool
	}{
		{inc, "a", true}, {inc, "b", false},
		{exc, "a", false}, {exc, "b", true},
		{none, "a", true},
	} {
		if got := c.f.Allows(c.tool); got != c.want {
			t.Errorf("%+v.Allows(%q) = %v", c.f, c.tool, got)
		}
	}
}

// TestClaudeDesktopConfig: a real claude_desktop_config.json keeps its own
// settings beside mcpServers and marks servers "disabled".
func TestClaudeDesktopConfig(t *testing.T) {
	path := filepath.Join("testdata", "claude_desktop_config.json")
	cfg, err := Load(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Servers) != 1 || cfg.Servers[0].Name != "docs" || cfg.Servers[0].Command != "toolgrade" {
		t.Errorf("servers = %+v, want only docs", cfg.Servers)
	}
	if !reflect.DeepEqual(cfg.Disabled, []string{"filesystem"}) {
		t.Errorf("disabled = %v, want [filesystem]", cfg.Disabled)
	}
	want := []string{path + ":2:3: ignoring top-level keys other than mcpServers: globalShortcut, preferences, theme"}
	if !reflect.DeepEqual(cfg.Warnings, want) {
		t.Errorf("warnings:\n got %q\nwant %q", cfg.Warnings, want)
	}
}

func TestServerEntryErrorsStay(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`{"mcpServers": {"d": {"command": "x", "disable": true}}}`,
			`s.json:1:39: mcpServers.d: unknown field "disable" (did you mean "disabled"?)`},
		{`{"mcpServers": {"d": {"command": "x", "disabled": "yes"}}}`,
			`s.json:1:51: mcpServers.d.disabled: must be true or false, not the string "yes"`},
		{`{"mcpServers": {"d": {"command": "x"}}, "mcpServer": {}}`,
			`s.json:1:41: unknown field "mcpServer" (did you mean "mcpServers"?)`},
	} {
		_, err := Parse(context.Background(), []byte(tc.src), "s.json")
		if err == nil || err.Error() != tc.want {
			t.Errorf("got %v\nwant %s", err, tc.want)
		}
	}
	cfg, err := Parse(context.Background(), []byte(`{"mcpServers": {"d": {"command": "x"}}}`), "s.json")
	if err != nil || len(cfg.Warnings) != 0 || len(cfg.Disabled) != 0 {
		t.Errorf("plain config: %+v, %v; want no warnings, nothing disabled", cfg, err)
	}
}

// A server disabled because its token is not set still parses: its
// ${env:...} references are not expanded.
func TestDisabledServerNeedsNoEnv(t *testing.T) {
	os.Unsetenv("TOOLGRADE_TEST_UNSET")
	src := `{"mcpServers": {
  "off": {"url": "https://h/mcp", "headers": {"Authorization": "Bearer ${env:TOOLGRADE_TEST_UNSET}"}, "disabled": true},
  "on": {"command": "x", "args": ["${env:TOOLGRADE_TEST_UNSET}"]}
}}`
	_, err := Parse(context.Background(), []byte(src), "s.json")
	if want := "s.json:3:35: mcpServers.on.args[0]: environment variable TOOLGRADE_TEST_UNSET is not set"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("got %v, want %s...", err, want)
	}
	cfg, err := Parse(context.Background(), []byte(strings.Replace(src, `"x", "args"`, `"x", "disabled": true, "args"`, 1)), "s.json")
	if err != nil || len(cfg.Servers) != 0 || len(cfg.Disabled) != 2 {
		t.Fatalf("got %+v, %v; want both servers disabled", cfg, err)
	}
}
