// Package initdir is `toolgrade init`: a folder made ready for a first
// suite, with a servers file (from an mcpServers file, or the user's Claude
// Desktop config where the app keeps it) and a starter suite, either drafted
// by an author model (internal/author) or one commented example case per
// tool that does not pass validation until a question is written, so no
// placeholder ever runs as a test. It never replaces a file.
package initdir

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolgrade/toolgrade/internal/serversfile"
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
	Config *serversfile.Config
	// WithSecrets names the servers whose entries carry env or headers,
	// which may hold credentials.
	WithSecrets []string
	// Pinned names the stdio servers given the cwd they had at the source,
	// which the copy would otherwise change (see ReadServers); Moved, those
	// of a YAML source, copied as it is, whose folder the copy changes.
	Pinned, Moved []string
}

// ReadServers reads src, an mcpServers file or a Claude Desktop config, and
// makes the servers file init writes into dir: of a JSON file only its
// mcpServers object, indented (a Claude Desktop config's own settings are
// left behind). With keepFolders, a stdio server keeps the folder it runs
// in at the source: one without cwd (it ran in src's folder) or with a
// relative one gets src's as its cwd in the copy, so its relative command
// and arguments still resolve (Pinned names them). Errors are at src's
// file:line:col.
func ReadServers(ctx context.Context, src, dir string, keepFolders bool) (*Servers, error) {
	data, err := os.ReadFile(src)
	if err != nil {
		return nil, err
	}
	from, err := serversfile.Parse(ctx, data, src)
	if err != nil {
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
		if keepFolders {
			to, err := serversfile.Parse(ctx, data, filepath.Join(dir, s.Name))
			if err != nil {
				return nil, err
			}
			if doc.MCPServers, s.Pinned, err = pinFolders(doc.MCPServers, from, to); err != nil {
				return nil, fmt.Errorf("%s: %w", src, err)
			}
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
	if s.Config, err = serversfile.Parse(ctx, s.Data, filepath.Join(dir, s.Name)); err != nil {
		return nil, err
	}
	if s.Name == "servers.yaml" && keepFolders {
		before, after := cwds(from), cwds(s.Config)
		for _, sv := range s.Config.Servers {
			if b := before[sv.Name]; b != "" && b != after[sv.Name] {
				s.Moved = append(s.Moved, sv.Name)
			}
		}
	}
	for _, sv := range s.Config.Servers {
		if len(sv.Env) > 0 || len(sv.Headers) > 0 {
			s.WithSecrets = append(s.WithSecrets, sv.Name)
		}
	}
	return s, nil
}
