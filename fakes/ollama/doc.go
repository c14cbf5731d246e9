// Package fakeollama is a scripted stand-in for an Ollama 0.17.4 server.
//
// It speaks the real wire format (every body is encoded with the types of
// github.com/ollama/ollama/api) and reproduces the behaviours captured from a
// real server in testdata/ollama-v0.17.4: tool calls streamed one per done:false chunk,
// a final done line without tool calls, "stop" as the done reason of tool-call
// turns, fresh call ids on every response, the empty answer for a call to a
// tool that was not offered, raw <tool_call> text when no tools are offered,
// and the real error texts for missing capabilities and unknown models.
//
// A [Script] (YAML, see [ParseScript]) declares the models and the rules that
// decide each answer; [New] turns it into an http.Handler.
package fakeollama
