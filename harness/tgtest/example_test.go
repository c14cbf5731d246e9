package tgtest_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/harness/tgtest"
)

// weatherDescription is the description of the weather tool under test; the
// failure test swaps in a bad one.
const weatherDescription = "Looks up the weather forecast for a city."

// newServer is the MCP server under test: two tools, weather and add.
func newServer(weather string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "example", Version: "1.0.0"}, nil)
	type city struct {
		City string `json:"city" jsonschema:"the city's name"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "weather", Description: weather},
		func(ctx context.Context, req *mcp.CallToolRequest, in city) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Sunny in " + in.City}}}, nil, nil
		})
	type pair struct {
		A float64 `json:"a"`
		B float64 `json:"b"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "Adds two numbers."},
		func(ctx context.Context, req *mcp.CallToolRequest, in pair) (*mcp.CallToolResult, any, error) {
			sum := strconv.FormatFloat(in.A+in.B, 'g', -1, 64)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: sum}}}, nil, nil
		})
	return s
}

// script plays a model that finds the weather tool only when its
// description speaks of the weather forecast, and calls add otherwise.
const script = `
models: [{name: small}]
rules:
  - user: {contains: weather}
    tool_result: {regex: "."}
    reply: {content: It is sunny in Paris.}
  - user: {contains: weather}
    tools: {contains: weather forecast}
    reply: {tool_calls: [{name: weather, arguments: {city: Paris}}]}
  - user: {contains: weather}
    reply: {tool_calls: [{name: add, arguments: {a: 1, b: 2}}]}
  - user: {contains: add 2 and 3}
    tool_result: {regex: "."}
    reply: {content: "5"}
  - user: {contains: add 2 and 3}
    reply: {tool_calls: [{name: add, arguments: {a: 2, b: 3}}]}
  - user: {contains: joke}
    reply: {content: "Why did the tool cross the road?"}
`

// cases are what the server's tools should make a model do.
var cases = []tgtest.Case{
	{ID: "weather", Ask: "What is the weather in Paris?", Tool: "weather",
		Args: tgtest.Args{"city": tgtest.Contains("paris")}},
	{ID: "add", Ask: "Please add 2 and 3.", Tool: "add",
		Args: tgtest.Args{"a": tgtest.Equals(2), "b": tgtest.Equals(3)}},
	{ID: "joke", Ask: "Tell me a joke.", NoTool: true},
}

func fakeScript(t testing.TB) *fakeollama.Script {
	t.Helper()
	s, err := fakeollama.ParseScript([]byte(script), "script.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestExample runs three cases against an in-process server and the fake
// Ollama. Against a real Ollama, leave Fake nil and name a pulled model:
// the cases then run against OLLAMA_HOST, and skip when it is not there.
func TestExample(t *testing.T) {
	tgtest.Run(t, newServer(weatherDescription), cases, &tgtest.Options{
		Models: []string{"small"},
		Fake:   fakeScript(t),
	})
}
