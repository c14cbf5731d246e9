package initdir

import (
	"os"
	"path/filepath"
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
	s, err := ReadServers(j, "out")
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "servers.json" || strings.Contains(string(s.Data), "globalShortcut") || !strings.Contains(string(s.Data), "{\n  \"mcpServers\": {") ||
		len(s.WithSecrets) != 1 || s.WithSecrets[0] != "a" || len(s.Config.Servers) != 2 {
		t.Errorf("%+v\n%s", s, s.Data)
	}
	y := write("s.yaml", "mcpServers:\n  a: {command: a-server}\n")
	if s, err := ReadServers(y, "out"); err != nil || s.Name != "servers.yaml" || string(s.Data) != "mcpServers:\n  a: {command: a-server}\n" {
		t.Errorf("%v %+v", err, s)
	}
	bad := write("bad.json", "{\"mcpServers\": {\"a\": {\"comand\": \"x\"}}}")
	if _, err := ReadServers(bad, "out"); err == nil || !strings.Contains(err.Error(), bad+":1:") || !strings.Contains(err.Error(), `did you mean "command"?`) {
		t.Errorf("bad: %v", err)
	}
}
