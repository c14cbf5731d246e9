package author

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ollama/ollama/api"
	"github.com/toolgrade/toolgrade/internal/toolschema"
)

// systemPrompt opens every request: who the author is and what it answers.
const systemPrompt = "You write test cases for an evaluation of how well AI assistants choose and call tools. " +
	"Write questions the way real users ask them: plain language, without naming any tool. " +
	"Reply with JSON only, in the shape you are asked for."

// Kind is what one request asks the author for.
type Kind string

// The kinds of request, in the order Generate sends them.
const (
	// KindTool asks for questions that need exactly one tool.
	KindTool Kind = "tool"
	// KindNoTool asks for questions no tool answers.
	KindNoTool Kind = "no_tool"
	// KindPair asks for questions that tell two confusable tools apart.
	KindPair Kind = "pair"
)

// ask is one request to the author model before it is sent.
type ask struct {
	kind Kind
	// tools are the tool the questions need, or the pair to tell apart;
	// none for KindNoTool.
	tools    []string
	messages []api.Message
	format   json.RawMessage
}

// toolAsk asks for n questions that need exactly tool t, showing the others.
func toolAsk(t toolschema.Tool, others []toolschema.Tool, n int) ask {
	var b strings.Builder
	fmt.Fprintf(&b, "Write %d different questions a user might ask an assistant that need the tool `%s` and no other tool, "+
		"each with the arguments that question implies for the call.\n\n", n, t.Exposed)
	fmt.Fprintf(&b, "The tool `%s`: %s\nIts input schema (JSON Schema): %s\n", t.Exposed, oneLine(t.Description), compactJSON(t.InputSchema))
	writeOthers(&b, "The other tools, which these questions must not need:", others)
	b.WriteString("\nVary the wording and the arguments. The arguments must be valid against the input schema.\n" +
		`Reply as {"questions": [{"question": "...", "arguments": {...}}]}.`)
	return ask{kind: KindTool, tools: []string{t.Exposed}, messages: messages(b.String()), format: questionsFormat(false, nil)}
}

// noToolAsk asks for n questions none of the tools answers.
func noToolAsk(tools []toolschema.Tool, n int) ask {
	var b strings.Builder
	fmt.Fprintf(&b, "Write %d different questions a user might ask an assistant that none of the tools below can answer or help with, "+
		"so the assistant should answer without calling any tool.\n\n", n)
	writeOthers(&b, "The tools:", tools)
	b.WriteString("\nMake some of them close to the tools' subjects, so that telling them apart takes care.\n" +
		`Reply as {"questions": [{"question": "..."}]}.`)
	return ask{kind: KindNoTool, messages: messages(b.String()), format: noToolFormat()}
}

// pairAsk asks for n questions that tell the tools a and b apart: each needs
// one of them, and which one is not obvious from a few shared words.
func pairAsk(a, b toolschema.Tool, n int) ask {
	var s strings.Builder
	fmt.Fprintf(&s, "The tools `%s` and `%s` are easy to confuse. Write %d different questions a user might ask that tell the tools `%s` and `%s` apart: "+
		"each needs exactly one of them, some the first and some the second, with the arguments that question implies for the call.\n\n",
		a.Exposed, b.Exposed, n, a.Exposed, b.Exposed)
	for _, t := range []toolschema.Tool{a, b} {
		fmt.Fprintf(&s, "The tool `%s`: %s\nIts input schema (JSON Schema): %s\n", t.Exposed, oneLine(t.Description), compactJSON(t.InputSchema))
	}
	s.WriteString("\nName the tool each question needs. The arguments must be valid against that tool's input schema.\n" +
		`Reply as {"questions": [{"question": "...", "tool": "...", "arguments": {...}}]}.`)
	return ask{kind: KindPair, tools: []string{a.Exposed, b.Exposed}, messages: messages(s.String()), format: questionsFormat(true, []string{a.Exposed, b.Exposed})}
}

func messages(user string) []api.Message {
	return []api.Message{{Role: "system", Content: systemPrompt}, {Role: "user", Content: user}}
}

func writeOthers(b *strings.Builder, title string, tools []toolschema.Tool) {
	b.WriteString(title + "\n")
	if len(tools) == 0 {
		b.WriteString("(none)\n")
	}
	for _, t := range tools {
		fmt.Fprintf(b, "- `%s`: %s\n", t.Exposed, oneLine(t.Description))
	}
}

// questionsFormat is the JSON schema of the reply Ollama's structured
// outputs hold the model to: {questions: [{question, arguments}]}, and the
// tool among names when withTool. The arguments are any object here: the
// tool's own schema is in the prompt and checked after, since not every
// JSON Schema keyword is one Ollama's grammar can enforce.
func questionsFormat(withTool bool, names []string) json.RawMessage {
	item := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"question":  map[string]any{"type": "string"},
			"arguments": map[string]any{"type": "object"},
		},
		"required": []string{"question", "arguments"},
	}
	if withTool {
		item["properties"].(map[string]any)["tool"] = map[string]any{"type": "string", "enum": names}
		item["required"] = []string{"question", "tool", "arguments"}
	}
	return schemaOf(item)
}

func noToolFormat() json.RawMessage {
	return schemaOf(map[string]any{
		"type":       "object",
		"properties": map[string]any{"question": map[string]any{"type": "string"}},
		"required":   []string{"question"},
	})
}

func schemaOf(item map[string]any) json.RawMessage {
	b, _ := json.Marshal(map[string]any{
		"type":       "object",
		"properties": map[string]any{"questions": map[string]any{"type": "array", "items": item}},
		"required":   []string{"questions"},
	})
	return b
}

// oneLine is a description on one line, as the prompt lists it.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return "(no description)"
	}
	return s
}

func compactJSON(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
