package toolbox

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgrade/toolgrade/internal/mcpclient"
	"github.com/toolgrade/toolgrade/internal/serversfile"
)

// fakeTool is one tool of a fake server; an empty schema is
// {"type":"object"}.
type fakeTool struct {
	name, desc, schema string
}

// fakeServer is a config entry for an in-memory MCP server whose tools
// answer with the arguments they received.
func fakeServer(name string, tools ...fakeTool) serversfile.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "fake", Version: "1"}, nil)
	for _, ft := range tools {
		schema := ft.schema
		if schema == "" {
			schema = `{"type":"object"}`
		}
		srv.AddTool(&mcp.Tool{Name: ft.name, Description: ft.desc, InputSchema: json.RawMessage(schema)},
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "args=" + string(req.Params.Arguments)}}}, nil
			})
	}
	return serversfile.Server{Name: name, Dial: func(ctx context.Context) (mcp.Transport, error) {
		ct, st := mcp.NewInMemoryTransports()
		if _, err := srv.Connect(ctx, st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}}
}

// mustConnect connects the servers for the length of the test.
func mustConnect(t *testing.T, opts *mcpclient.Options, srvs ...serversfile.Server) *mcpclient.Catalog {
	t.Helper()
	c, err := mcpclient.Connect(context.Background(), &serversfile.Config{Servers: srvs}, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return c
}
