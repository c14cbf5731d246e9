package score

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
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

// capture is one exchange recorded from a real Ollama v0.17.4 server (see
// shared/ollama/README.md).
type capture struct {
	Name          string   `json:"name"`
	ResponseLines []string `json:"response_lines"`
}

// TestCallInTextCaptures runs the detector over the content of every response
// captured from a real Ollama: the responses of the exchanges where the model
// wrote its call as text (README items 5 and 10) must be flagged, and no
// other.
func TestCallInTextCaptures(t *testing.T) {
	path := findShared(t, filepath.Join("ollama", "captures-v0.17.4.jsonl"))
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	flagged, answers := 0, 0
	for sc.Scan() {
		var c capture
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		inText := strings.Contains(c.Name, "no tools offered") || strings.Contains(c.Name, "Answer in JSON") || strings.HasPrefix(c.Name, "row C")
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
	if err := sc.Err(); err != nil {
		t.Fatal(err)
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

// findShared finds the project's shared/ folder, which sits beside the
// checkout (../shared) for developers and CI alike.
func findShared(t *testing.T, rel string) string {
	t.Helper()
	dir, _ := os.Getwd()
	for d := dir; ; d = filepath.Dir(d) {
		p := filepath.Join(d, "shared", rel)
		if _, err := os.Stat(p); err == nil {
			return p
		}
		if filepath.Dir(d) == d {
			t.Fatalf("shared/%s not found above %s: the captures of a real Ollama are needed", rel, dir)
		}
	}
}
