package score

import (
	"encoding/json"
	"regexp"
	"strings"
)

// callTags are the markers chat templates wrap tool calls in. When one shows
// up in content, the model meant to call a tool but the server did not parse
// the call (no tools offered, a template mismatch, a broken call).
var callTags = []string{
	"<tool_call>",                  // Qwen, Hermes and most template-based models
	"</tool_call>",                 // a call whose opening tag was cut
	"<|tool_call|>",                // Phi
	"[tool_calls]",                 // Mistral (compared lower-cased)
	"<|python_tag|>",               // Llama 3.1
	"<function=",                   // Llama 3.x custom tool format
	"<functioncall>",               // older fine-tunes
	"<function_call>",              //
	"<|tool▁call▁begin|>",          // DeepSeek, whose bars are fullwidth (folded below)
	"<|tool_calls_section_begin|>", // Kimi
	"<start_function_call>",        // FunctionGemma
}

// callPrefixRE finds the start of a call written as a JSON object, even when
// the JSON is then cut or broken: {"name": "...", "arguments": or
// "parameters":, single quotes tolerated (Python-style dicts).
var callPrefixRE = regexp.MustCompile(`\{\s*["']name["']\s*:\s*["'][^"'\n]*["']\s*,\s*["'](?:arguments|parameters)["']\s*:`)

// maxJSONTries bounds how many '{' or '[' CallInText tries to decode from, so
// long answers full of braces stay cheap.
const maxJSONTries = 64

// CallInText reports whether content is (or contains) a tool call written as
// text instead of made: a model's tool-call tag, or a JSON object with "name"
// and "arguments" (or "parameters"), bare or in a ```json fence, also nested
// as OpenAI's {"function": {...}} or in a list.
func CallInText(content string) bool {
	lower := strings.ToLower(strings.ReplaceAll(content, "｜", "|"))
	for _, tag := range callTags {
		if strings.Contains(lower, tag) {
			return true
		}
	}
	if callPrefixRE.MatchString(content) {
		return true
	}
	tries := 0
	for i := 0; i < len(content) && tries < maxJSONTries; i++ {
		if content[i] != '{' && content[i] != '[' {
			continue
		}
		tries++
		var v any
		if json.NewDecoder(strings.NewReader(content[i:])).Decode(&v) == nil && isCall(v, 0) {
			return true
		}
	}
	return false
}

// isCall reports whether a decoded JSON value has the shape of a tool call
// or of a list or wrapper of them.
func isCall(v any, depth int) bool {
	if depth > 3 {
		return false
	}
	switch x := v.(type) {
	case map[string]any:
		if _, ok := x["name"].(string); ok {
			if _, ok := x["arguments"]; ok {
				return true
			}
			if _, ok := x["parameters"]; ok {
				return true
			}
		}
		for _, k := range []string{"function", "tool_call", "tool_calls", "function_call"} {
			if w, ok := x[k]; ok && isCall(w, depth+1) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if isCall(e, depth+1) {
				return true
			}
		}
	}
	return false
}
