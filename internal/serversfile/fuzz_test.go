package serversfile

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/srcpos"
)

// FuzzParse checks that no servers file makes Parse panic, read as JSON or
// as YAML; that every error is a *srcpos.Error that starts with the file's
// name; and that a parsed config, written back as an mcpServers JSON file,
// parses to the same servers.
func FuzzParse(f *testing.F) {
	var seeds []string
	for _, glob := range []string{"testdata/*.json", "../../cases/servers/*.json"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, m...)
	}
	for _, p := range seeds {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	doc, err := os.ReadFile("../../docs/servers.md")
	if err != nil {
		f.Fatal(err)
	}
	for _, m := range regexp.MustCompile("(?s)```json\n(.*?)```").FindAllSubmatch(doc, -1) {
		f.Add(m[1])
	}
	for _, s := range []string{
		"",
		"\xef\xbb\xbf{}",
		"mcpServers:\n  a: {url: 'http://h/sse'}\n  b: &x {command: c, disabled: true}\n  c: *x\n",
		`{"mcpServers": {"a": {"url": "https://u:p@h/x?k=v", "type": "http", "headers": {"A": "${env:"}}}}`,
		`{"mcpServers": {"a": {"command": "c", "cwd": "rel", "toolFilter": {"mode": "exclude", "tools": []}, "env": {}}}, "x": 1}`,
		`{"mcpServer": {}}`,
		"[1, 2",
		`{"mcpServers": {"a.b-c_d": {"command": "\u0000", "args": ["\/"]}}} {}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// Parse touches no file: the names only pick the syntax and name
		// the file in errors.
		for _, path := range []string{"fuzz.json", "fuzz.yaml"} {
			cfg, err := Parse(context.Background(), data, path)
			if err != nil {
				var pe *srcpos.Error
				if !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), path) {
					t.Fatalf("error %T does not name %s: %v", err, path, err)
				}
				continue
			}
			again, err := Parse(context.Background(), configJSON(t, cfg), path)
			if err != nil {
				t.Fatalf("%v\nof the config written back:\n%s", err, configJSON(t, cfg))
			}
			if !reflect.DeepEqual(again.Servers, cfg.Servers) || !reflect.DeepEqual(again.Disabled, cfg.Disabled) {
				t.Fatalf("written back and parsed again, %+v %q becomes %+v %q", cfg.Servers, cfg.Disabled, again.Servers, again.Disabled)
			}
		}
	})
}

// configJSON writes cfg back as an mcpServers file: each field a server
// has (an empty list or object too), and each disabled server with a
// placeholder command, since a Config keeps only its name.
func configJSON(t *testing.T, cfg *Config) []byte {
	servers := map[string]map[string]any{}
	for _, s := range cfg.Servers {
		e := map[string]any{"transport": s.Transport}
		for k, v := range map[string]string{"command": s.Command, "cwd": s.Cwd, "url": s.URL} {
			if v != "" {
				e[k] = v
			}
		}
		if s.Args != nil {
			e["args"] = s.Args
		}
		if s.Env != nil {
			e["env"] = s.Env
		}
		if s.Headers != nil {
			e["headers"] = s.Headers
		}
		if s.InheritEnv != nil {
			e["inheritEnv"] = s.InheritEnv
		}
		if s.PerTrial {
			e["perTrial"] = true
		}
		if s.TrialTemplate != "" {
			e["trialTemplate"] = s.TrialTemplate
		}
		if s.ToolFilter != nil {
			e["toolFilter"] = map[string]any{"mode": s.ToolFilter.Mode, "tools": s.ToolFilter.Tools}
		}
		servers[s.Name] = e
	}
	for _, name := range cfg.Disabled {
		servers[name] = map[string]any{"command": "x", "disabled": true}
	}
	b, err := json.Marshal(map[string]any{"mcpServers": servers})
	if err != nil {
		t.Fatal(err)
	}
	return b
}
