package score

import (
	"encoding/json"
	"strings"
	"testing"

	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
)

func TestCallInText(t *testing.T) {
	tests := []struct {
		content string
		want    bool
	}{
		// Calls written as text.
		{`<tool_call>{"name": "search", "arguments": {"query": "dog"}}</tool_call>`, true},
		{`<tool_call>{"name": "search", "arguments": {"query": </tool_call>`, true}, // broken JSON inside the tags
		{`Let me look. <TOOL_CALL>{"name": "search"}`, true},
		{`{"name": "search", "arguments": {"query": "json"}}`, true},
		{"```json\n{\"name\": \"search\", \"parameters\": {\"query\": \"dog\"}}\n```", true},
		{`Sure: {"arguments": {"query": "dog"}, "name": "search"}`, true}, // keys in any order
		{`{"name": "search", "arguments": {"query": `, true},              // cut JSON, no tags
		{`{'name': 'search', 'arguments': {'query': 'dog'}}`, true},       // Python-style
		{`[{"name": "get_document", "arguments": {"name": "menu.txt"}}, {"name": "get_document", "arguments": {"name": "hours.txt"}}]`, true},
		{`{"type": "function", "function": {"name": "search", "arguments": "{\"query\": \"dog\"}"}}`, true},
		{`{"tool_calls": [{"function": {"name": "search", "arguments": {}}}]}`, true},
		{`[TOOL_CALLS][{"name": "search", "arguments": {"query": "dog"}}]`, true},
		{`<|python_tag|>search.call(query="dog")`, true},
		{`<function=search>{"query": "dog"}</function>`, true},
		{"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>search", true},

		// Answers.
		{"", false},
		{"Yes. Dogs are welcome on the terrace.", false},
		{"I do not know.", false},
		{`The tool takes a "name" and "arguments".`, false},
		{`{"name": "Paris", "country": "France"}`, false},
		{`Use {"query": "dog"} as the arguments.`, false},
		{"```go\nfunc f() { if x { return } }\n```", false},
		{strings.Repeat("{", 10000), false},
		{strings.Repeat(`{"a": `, 200) + "1" + strings.Repeat("}", 200), false},
	}
	for _, tt := range tests {
		if got := CallInText(tt.content); got != tt.want {
			t.Errorf("CallInText(%.80q) = %v, want %v", tt.content, got, tt.want)
		}
	}
}

// TestCallInTextCaptures runs the detector over the content of every response
// captured from a real Ollama: the responses of the exchanges where the model
// wrote its call as text (README items 5 and 10) must be flagged, and no
// other.
func TestCallInTextCaptures(t *testing.T) {
	caps, err := fakeollama.ReadCaptures()
	if err != nil {
		t.Fatal(err)
	}
	flagged, answers := 0, 0
	for _, c := range caps {
		// format: "json" let the scripted model write its call as a JSON
		// object in content, as "Answer in JSON." does without it.
		inText := strings.Contains(c.Name, "no tools offered") || strings.Contains(c.Name, "Answer in JSON") || strings.HasPrefix(c.Name, "row C") ||
			strings.Contains(c.Name, `format: "json"`)
		for _, content := range responseContents(c.ResponseLines) {
			got := CallInText(content)
			switch {
			case inText && content != "" && !got:
				t.Errorf("%s: call written as text not detected: %q", c.Name, content)
			case !inText && got:
				t.Errorf("%s: answer taken for a call: %q", c.Name, content)
			}
			if got {
				flagged++
			} else if content != "" {
				answers++
			}
		}
	}
	if flagged < 8 || answers < 20 {
		t.Errorf("only %d calls in text and %d answers in the captures", flagged, answers)
	}
}

// responseContents returns the content of each response in a capture's body:
// Ollama's NDJSON (a response ends with done:true) and the OpenAI-compatible
// bodies, whole or streamed as server-sent events.
func responseContents(lines []string) []string {
	var out []string
	var cur strings.Builder
	open := false
	for _, line := range lines {
		line = strings.TrimPrefix(strings.TrimSpace(line), "data: ")
		if line == "" || line == "[DONE]" {
			continue
		}
		var r struct {
			Message *struct {
				Content string `json:"content"`
			} `json:"message"`
			Done    bool `json:"done"`
			Choices []struct {
				Message *struct {
					Content string `json:"content"`
				} `json:"message"`
				Delta *struct {
					Content string `json:"content"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
		}
		if json.Unmarshal([]byte(line), &r) != nil {
			continue
		}
		end := false
		switch {
		case r.Message != nil:
			cur.WriteString(r.Message.Content)
			open, end = true, r.Done
		case len(r.Choices) > 0 && r.Choices[0].Message != nil:
			cur.WriteString(r.Choices[0].Message.Content)
			open, end = true, true
		case len(r.Choices) > 0 && r.Choices[0].Delta != nil:
			cur.WriteString(r.Choices[0].Delta.Content)
			open, end = true, r.Choices[0].FinishReason != nil
		}
		if end {
			out = append(out, cur.String())
			cur.Reset()
			open = false
		}
	}
	if open {
		out = append(out, cur.String())
	}
	return out
}
