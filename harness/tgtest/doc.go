// Package tgtest makes `go test` fail when a model picks the wrong tool of an
// MCP server: it runs cases (written in Go, or a suite file) against an
// in-process go-sdk *mcp.Server and an Ollama (a real one from OLLAMA_HOST,
// or the fake of fakes/ollama given a script), through the same bridge loop,
// runner and scorer as `toolgrade run`, and reports each case as a subtest.
//
// A failing trial is reported with t.Errorf naming its outcome, the scorer's
// detail and the calls the model made. When no Ollama answers, or a model is
// not pulled, the subtests are skipped with a message saying what was tried,
// so a machine without Ollama runs `go test ./...` clean.
//
// A suite's cases may bring their own tools (a case's tools:), as with
// `toolgrade run`: inline definitions, scored without execution, or a
// subset of the server's tools by name, run on the server.
//
//	func TestToolChoice(t *testing.T) {
//		tgtest.Run(t, newServer(), []tgtest.Case{
//			{Ask: "What's the weather in Paris?", Tool: "weather",
//				Args: suite.ArgMatchers{{Key: "city", Kind: suite.MatchContains, Substring: "Paris"}}},
//			{Ask: "Tell me a joke", NoTool: true},
//		}, &tgtest.Options{Models: []string{"qwen3:1.7b"}})
//	}
package tgtest
