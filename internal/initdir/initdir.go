// Package initdir is `toolgrade init`: a folder made ready for a first
// suite, with a servers file (from an mcpServers file, or the user's Claude
// Desktop config where the app keeps it) and a starter suite, either drafted
// by an author model (internal/author) or one commented example case per
// tool that does not pass validation until a question is written, so no
// placeholder ever runs as a test. It never replaces a file.
package initdir

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolgrade/toolgrade/internal/servers"
)

// SuiteFile is the starter suite's name in the folder.
const SuiteFile = "suite.yaml"

// ClaudeDesktopConfig is where Claude Desktop keeps its config for goos
// under home: macOS ~/Library/Application Support/Claude, Linux (and the
// other Unixes) $XDG_CONFIG_HOME/Claude, else ~/.config/Claude; Windows
// %APPDATA%\Claude.
func ClaudeDesktopConfig(goos, home string, getenv func(string) string) string {
	const name = "claude_desktop_config.json"
	switch goos {
	case "darwin":
		return filepath.Join(home, "Library", "Application Support", "Claude", name)
	case "windows":
		if d := getenv("APPDATA"); d != "" {
			return filepath.Join(d, "Claude", name)
		}
		return filepath.Join(home, "AppData", "Roaming", "Claude", name)
	}
	if d := getenv("XDG_CONFIG_HOME"); d != "" {
		return filepath.Join(d, "Claude", name)
	}
	return filepath.Join(home, ".config", "Claude", name)
}

// Servers is the servers file init writes, read from an mcpServers file.
type Servers struct {
	// Name is the file's name in the folder: servers.json, or servers.yaml
	// for a YAML source (copied as it is).
	Name string
	Data []byte
	// Config is the servers as toolgrade reads them.
	Config *servers.Config
	// WithSecrets names the servers whose entries carry env or headers,
	// which may hold credentials.
	WithSecrets []string
}

// ReadServers reads src, an mcpServers file or a Claude Desktop config, and
// makes the servers file init writes into dir: of a JSON file only its
// mcpServers object, indented (a Claude Desktop config's own settings are
// left behind). Errors are at src's file:line:col.
func ReadServers(src, dir string) (*Servers, error) {
	data, err := os.ReadFile(src)
	if err != nil {
		return nil, err
	}
	if _, err := servers.Parse(data, src); err != nil {
		return nil, err
	}
	s := &Servers{Name: "servers.json", Data: data}
	trimmed := bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
	if ext := strings.ToLower(filepath.Ext(src)); ext == ".yaml" || ext == ".yml" || !bytes.HasPrefix(trimmed, []byte("{")) {
		s.Name = "servers.yaml"
	} else {
		var doc struct {
			MCPServers json.RawMessage `json:"mcpServers"`
		}
		if err := json.Unmarshal(trimmed, &doc); err != nil {
			return nil, fmt.Errorf("%s: %w", src, err)
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(map[string]json.RawMessage{"mcpServers": doc.MCPServers}); err != nil {
			return nil, err
		}
		s.Data = b.Bytes()
	}
	// Read again as written, from where it will be: a stdio server's
	// default folder is the file's.
	if s.Config, err = servers.Parse(s.Data, filepath.Join(dir, s.Name)); err != nil {
		return nil, err
	}
	for _, sv := range s.Config.Servers {
		if len(sv.Env) > 0 || len(sv.Headers) > 0 {
			s.WithSecrets = append(s.WithSecrets, sv.Name)
		}
	}
	return s, nil
}
