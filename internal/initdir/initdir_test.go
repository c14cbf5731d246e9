package initdir

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestClaudeDesktopConfigIsWhereTheAppKeepsIt(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, c := range []struct {
		goos string
		env  map[string]string
		want string
	}{
		{"linux", nil, "/h/.config/Claude/claude_desktop_config.json"},
		{"linux", map[string]string{"XDG_CONFIG_HOME": "/x"}, "/x/Claude/claude_desktop_config.json"},
		{"darwin", map[string]string{"XDG_CONFIG_HOME": "/x"}, "/h/Library/Application Support/Claude/claude_desktop_config.json"},
		{"windows", map[string]string{"APPDATA": "/a"}, "/a/Claude/claude_desktop_config.json"},
	} {
		if got := ClaudeDesktopConfig(c.goos, "/h", env(c.env)); got != filepath.FromSlash(c.want) {
			t.Errorf("%s %v: %s, want %s", c.goos, c.env, got, c.want)
		}
	}
}

// A JSON source gives only its mcpServers, indented; a YAML one is copied
// as it is, as servers.yaml; a bad one is an error at its file:line:col.
func TestReadServers(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	j := write("c.json", `{"globalShortcut": "x", "mcpServers": {"a": {"command": "a-server", "env": {"TOKEN": "t"}}, "b": {"url": "http://127.0.0.1:1/mcp"}}}`)
	s, err := ReadServers(context.Background(), j, "out", false)
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "servers.json" || strings.Contains(string(s.Data), "globalShortcut") || !strings.Contains(string(s.Data), "{\n  \"mcpServers\": {") ||
		len(s.WithSecrets) != 1 || s.WithSecrets[0] != "a" || len(s.Config.Servers) != 2 {
		t.Errorf("%+v\n%s", s, s.Data)
	}
	y := write("s.yaml", "mcpServers:\n  a: {command: a-server}\n")
	if s, err := ReadServers(context.Background(), y, "out", false); err != nil || s.Name != "servers.yaml" || string(s.Data) != "mcpServers:\n  a: {command: a-server}\n" {
		t.Errorf("%v %+v", err, s)
	}
	bad := write("bad.json", "{\"mcpServers\": {\"a\": {\"comand\": \"x\"}}}")
	if _, err := ReadServers(context.Background(), bad, "out", false); err == nil || !strings.Contains(err.Error(), bad+":1:") || !strings.Contains(err.Error(), `did you mean "command"?`) {
		t.Errorf("bad: %v", err)
	}
}

// TestReadServersKeepsFolders: copied into another folder, a stdio server
// keeps the folder it ran in (its file's, or its relative cwd resolved
// there), so its relative paths still resolve; a server with an absolute
// cwd, a remote one and the order of the file are left as they were. A
// YAML source, copied as it is, names the servers whose folder changes.
func TestReadServersKeepsFolders(t *testing.T) {
	src := t.TempDir()
	p := filepath.Join(src, "servers.json")
	os.WriteFile(p, []byte(`{"mcpServers": {"z": {"command": "node", "args": ["./server.js"]}, "rel": {"command": "python", "args": ["s.py"], "cwd": "tools"}, "abs": {"command": "x", "cwd": "/opt"}, "web": {"url": "http://127.0.0.1:1/mcp"}}}`), 0o644)
	out := filepath.Join(t.TempDir(), "eval")
	s, err := ReadServers(context.Background(), p, out, true)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.Pinned, []string{"z", "rel"}) {
		t.Errorf("pinned %q, want z and rel\n%s", s.Pinned, s.Data)
	}
	got := map[string]string{}
	for _, sv := range s.Config.Servers {
		got[sv.Name] = sv.Cwd
	}
	if got["z"] != src || got["rel"] != filepath.Join(src, "tools") || got["abs"] != "/opt" {
		t.Errorf("folders in the copy %v; want z in %s, rel in its tools, abs in /opt\n%s", got, src, s.Data)
	}
	if i, j := strings.Index(string(s.Data), `"z"`), strings.Index(string(s.Data), `"web"`); i < 0 || j < i {
		t.Errorf("the servers' order changed:\n%s", s.Data)
	}
	if !strings.Contains(Next("eval/servers.json", "eval/suite.yaml", "", s), "keeps the folder z, rel ran in, as cwd") {
		t.Errorf("next: %s", Next("eval/servers.json", "eval/suite.yaml", "", s))
	}
	y := filepath.Join(src, "servers.yaml")
	os.WriteFile(y, []byte("mcpServers:\n  z: {command: node, args: [./server.js]}\n"), 0o644)
	if s, err := ReadServers(context.Background(), y, out, true); err != nil || !slices.Equal(s.Moved, []string{"z"}) || len(s.Pinned) != 0 {
		t.Errorf("YAML: %v, moved %q, pinned %q", err, s.Moved, s.Pinned)
	}
}
