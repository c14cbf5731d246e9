package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
)

// hostile is text that clears the screen and sets the window title when a
// terminal is given it raw; escaped is how toolgrade must print it.
const (
	hostile = "\u001b[2J\u001b]0;pwned\u0007"
	escaped = `\x1b[2J\x1b]0;pwned\x07`
)

// hostileEnv makes the test binary an MCP server over stdio whose tool
// description and results are hostile.
const hostileEnv = "TOOLGRADE_TEST_HOSTILE_MCP"

func serveHostileMCP() {
	s := mcp.NewServer(&mcp.Implementation{Name: "hostile", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "pwn", Description: "Looks up things. " + hostile},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "failed " + hostile}}}, nil, nil
		})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		os.Exit(1)
	}
	os.Exit(0)
}

func hostileServersFile(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"hostile": map[string]any{"command": self, "env": selfEnv(hostileEnv)},
	}})
	p := filepath.Join(t.TempDir(), "servers.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// noRawControls fails the test when out holds what a terminal would act on.
func noRawControls(t *testing.T, what, out string) {
	t.Helper()
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Errorf("%s holds raw control characters:\n%q", what, out)
	}
}

func TestAskEscapesTheModelsAnswerAndCalls(t *testing.T) {
	t.Parallel()
	_, url := fakeOllama(t, &fakeollama.Script{
		Models: []fakeollama.Model{{Name: "m", KeepUnknownCalls: true}},
		Rules: []fakeollama.Rule{
			{Round: 1, Reply: fakeollama.Reply{ToolCalls: []fakeollama.ToolCall{
				{Name: "pwn"},
				{Name: "x" + hostile, Arguments: fakeollama.Args{{Key: "q" + hostile, Value: "\u009b" + hostile}}},
			}}},
			{Reply: fakeollama.Reply{Content: hostile}},
		},
	})
	r := runCLI(t, context.Background(), "ask", "--servers", hostileServersFile(t), "--model", "m", "--ollama", url, "Hi.")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	noRawControls(t, "ask's stdout", r.stdout)
	lines := strings.Split(r.stdout, "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "-> pwn({})  [tool_error: failed "+escaped+"]") ||
		!strings.HasPrefix(lines[1], "-> x"+escaped+"(") || !strings.Contains(lines[1], `\u009b`) || lines[2] != escaped {
		t.Errorf("stdout:\n%s", r.stdout)
	}
}

func TestToolsEscapesServersDescriptions(t *testing.T) {
	t.Parallel()
	r := runCLI(t, context.Background(), "tools", "--servers", hostileServersFile(t))
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	noRawControls(t, "tools' stdout", r.stdout)
	if !strings.Contains(r.stdout, "Looks up things. "+escaped) {
		t.Errorf("the escaped description is missing:\n%s", r.stdout)
	}
}
