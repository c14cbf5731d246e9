// Package tgtest makes `go test` fail when a model picks the wrong tool of an
// MCP server: it runs cases (written in Go, or a suite file) against an
// in-process go-sdk *mcp.Server and an Ollama (a real one from OLLAMA_HOST,
// or the fake of fakes/ollama given a script), through the same bridge loop,
// runner and scorer as `toolgrade run`, and reports each case as a subtest
// named by its ID, or its question when it has none.
//
//	func TestToolChoice(t *testing.T) {
//		tgtest.Run(t, newServer(), []tgtest.Case{
//			{Ask: "What's the weather in Paris?", Tool: "weather",
//				Args: tgtest.Args{"city": tgtest.Contains("paris")}},
//			{Ask: "Tell me a joke", NoTool: true},
//		}, &tgtest.Options{Models: []string{"qwen3:1.7b"}, Repeat: 10, MinPass: 0.5})
//	}
//
// A case's expectations are the matchers of a suite file (Equals, Contains,
// Regex, OneOf, Number, Any, Absent, BFCL). A failing trial is reported with
// t.Errorf naming its outcome, the scorer's detail and the calls the model
// made. With Options.MinPass the repeats of a case are judged together, on
// the lower bound of their pass rate's 95% Wilson interval as a gate judges
// a run, so a stochastic model may miss a repeat and still pass.
//
// When no Ollama answers, or a model is not pulled, the subtests are
// skipped with a message saying what was tried, so a machine without Ollama
// runs `go test ./...` clean.
//
// A suite file's cases (LoadSuite, then RunSuite) may bring their own tools
// (a case's tools:), as with `toolgrade run`: inline definitions, scored
// without execution, or a subset of the server's tools by name, run on the
// server.
package tgtest
