package fakeollama

import (
	"cmp"
	"iter"
	"slices"
	"unicode"

	"github.com/ollama/ollama/api"
	"github.com/toolgrade/toolgrade/internal/pyjson"
)

// piece is one streamed chunk of an answer: some thinking, some content, or
// one tool call.
type piece struct {
	thinking, content string
	call              *api.ToolCall
}

// answer is a reply made concrete for one request.
type answer struct {
	pieces     []piece
	evalCount  int // generated tokens: each piece, the two think tags, 4 per call (as its raw text streams), and the end of sequence
	doneReason string
}

// compose turns a reply into the pieces Ollama would stream: thinking (when
// think is on), then one piece per tool call (or the calls' raw text when
// no tools were offered), then the content. A call to a tool that was not
// offered, or the empty fault, swallows the calls and the content.
func (s *Server) compose(rep Reply, fault Fault, think, keepUnknown bool, tools api.Tools) *answer {
	a := &answer{doneReason: cmp.Or(rep.DoneReason, "stop")}
	n := max(rep.Chunks, 1)
	if think && rep.Thinking != "" {
		parts := splitWords(rep.Thinking, n)
		for _, p := range parts {
			a.pieces = append(a.pieces, piece{thinking: p})
		}
		a.evalCount += len(parts) + 2 // and the two think tags
	}

	offered := len(tools) > 0
	swallow := fault == FaultEmpty
	for _, c := range rep.ToolCalls {
		if offered && !keepUnknown && !slices.ContainsFunc(tools, func(t api.Tool) bool { return t.Function.Name == c.Name }) {
			swallow = true
		}
	}
	content := rep.Content
	if u := rep.UserReply; u != nil {
		content = pyDumps(Args{{"message", u.Message}, {"done", u.Done}})
	}
	var contentParts []string
	if content != "" {
		contentParts = splitWords(content, n)
	}
	a.evalCount += 4*len(rep.ToolCalls) + len(contentParts) + 1
	if swallow {
		return a
	}

	for i, c := range rep.ToolCalls {
		if !offered {
			for _, t := range rawCall(c) {
				a.pieces = append(a.pieces, piece{content: t})
			}
			continue
		}
		a.pieces = append(a.pieces, piece{call: &api.ToolCall{
			ID: s.callID(),
			Function: api.ToolCallFunction{
				Index:     i,
				Name:      c.Name,
				Arguments: c.Arguments.toAPI(),
			},
		}})
	}
	for _, p := range contentParts {
		a.pieces = append(a.pieces, piece{content: p})
	}
	return a
}

// toAPI converts the arguments, keeping their order.
func (args Args) toAPI() api.ToolCallFunctionArguments {
	out := api.NewToolCallFunctionArguments()
	for _, a := range args {
		out.Set(a.Key, a.Value)
	}
	return out
}

// splitWords cuts s into about n pieces at word boundaries; each piece but
// the first starts with the whitespace before its first word, as model
// tokens do. The pieces join back to s.
func splitWords(s string, n int) []string {
	var cuts []int  // where the whitespace before each word (but the first) starts
	inSpace := true // leading whitespace is not a boundary
	for i, r := range s {
		switch space := unicode.IsSpace(r); {
		case space && !inSpace:
			cuts = append(cuts, i)
			inSpace = true
		case !space:
			inSpace = false
		}
	}
	if inSpace && len(cuts) > 0 { // trailing whitespace is not a word
		cuts = cuts[:len(cuts)-1]
	}
	words := len(cuts) + 1
	k := min(n, words)
	out := make([]string, 0, k)
	start := 0
	for j := 1; j < k; j++ {
		w := (j*words + k - 1) / k // the first word of piece j
		out = append(out, s[start:cuts[w-1]])
		start = cuts[w-1]
	}
	return append(out, s[start:])
}

// rawCall is a tool call as the model writes it, in the four pieces it
// streams when no tools are offered:
// <tool_call>, {"name": "search", , "arguments": {...}}, </tool_call>.
// Models write JSON as Python's json.dumps does, their own text unescaped.
func rawCall(c ToolCall) []string {
	return []string{
		"<tool_call>",
		`{"name": ` + pyDumps(c.Name) + `, `,
		`"arguments": ` + pyDumps(c.Arguments) + `}`,
		"</tool_call>",
	}
}

// pyDumps is v as a model writes it; a script's values are checked to be
// JSON when it is loaded, so the error cannot happen.
func pyDumps(v any) string {
	s, err := pyjson.Dumps(v, &pyjson.Options{KeepNonASCII: true})
	if err != nil {
		return "null"
	}
	return s
}

// Members are the arguments in the order they were written, for pyjson.
func (args Args) Members() iter.Seq2[string, any] {
	return func(yield func(string, any) bool) {
		for _, a := range args {
			if !yield(a.Key, a.Value) {
				return
			}
		}
	}
}
