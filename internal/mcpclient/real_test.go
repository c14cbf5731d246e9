package mcpclient

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgrade/toolgrade/internal/serversfile"
)

// realFixtures lists the captured tools/list results of real MCP servers
// (testdata/real, see its README), by file name ("notion@2.5.2.json").
func realFixtures(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "real", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures in testdata/real: %v", err)
	}
	return files
}

// realServer serves, over an in-memory transport, exactly the tools of one
// captured tools/list result: each tool's schemas are passed on as the raw
// JSON the real server sent, so their key order survives.
func realServer(t *testing.T, file string) (serversfile.Server, int) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(data, &list); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "real", Version: "1"}, nil)
	for i, raw := range list.Tools {
		var tool mcp.Tool
		var schemas struct {
			InputSchema  json.RawMessage `json:"inputSchema"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		}
		if err := json.Unmarshal(raw, &tool); err != nil {
			t.Fatalf("%s: tool %d: %v", file, i, err)
		}
		if err := json.Unmarshal(raw, &schemas); err != nil {
			t.Fatalf("%s: tool %d: %v", file, i, err)
		}
		tool.InputSchema = schemas.InputSchema
		if schemas.OutputSchema != nil {
			tool.OutputSchema = schemas.OutputSchema
		} else {
			tool.OutputSchema = nil
		}
		srv.AddTool(&tool, echo)
	}
	name := strings.TrimSuffix(filepath.Base(file), ".json")
	name, _, _ = strings.Cut(name, "@")
	return inMemory(name, srv), len(list.Tools)
}

// Every captured real server's catalog converts without a failure, keeps
// every tool, and converts to the same bytes each time.
func TestRealServersConvert(t *testing.T) {
	for _, file := range realFixtures(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			var first []byte
			for i := range 2 {
				srv, n := realServer(t, file)
				c, err := Connect(context.Background(), &serversfile.Config{Servers: []serversfile.Server{srv}}, nil)
				if err != nil {
					t.Fatal(err)
				}
				for _, f := range c.Failed() {
					t.Errorf("server %s failed: %v", f.Name, f.Err)
				}
				if got := len(c.Tools()); got != n {
					t.Errorf("%d tools converted, the capture has %d", got, n)
				}
				out, err := json.Marshal(c.OllamaTools())
				if err != nil {
					t.Fatal(err)
				}
				if err := c.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
				if i == 0 {
					first = out
				} else if string(out) != string(first) {
					t.Errorf("the second conversion differs from the first:\n%s\n%s", first, out)
				}
			}
		})
	}
}
