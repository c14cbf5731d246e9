package draft

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgrade/toolgrade/internal/record"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestGolden writes one draft that shows every form (tool:, calls: in any
// order and in sequence, no_tool, a conversation ask, merged questions,
// notes, skips) and compares it with testdata/draft.golden.yaml.
func TestGolden(t *testing.T) {
	dog := call("search", `{"query":"can I bring a dog","top_k":5}`)
	hours, menu := call("get_document", `{"name":"hours.txt"}`), call("get_document", `{"name":"menu.txt"}`)
	chain := conv(6, "good", "Find the dog policy, then open that document.", call("search", `{"query":"dog"}`), call("get_document", `{"name":"faq.txt"}`))
	chain.Transcript.Rounds[1].Response.ToolCalls = []record.ToolCall{call("list_documents", `{}`)}
	failed := conv(7, "weak", "Show me the whole menu.", call("get_document", `{"name":"menu"}`))
	ex := &failed.Transcript.Rounds[0].Executions[0]
	ex.IsError, ex.ErrorKind, ex.Error = true, record.ExecToolError, "no document named menu"
	multi := conv(8, "good", "I'm planning a visit with my dog.", call("search", `{"query":"dog seating"}`))
	multi.Transcript.Messages = append(multi.Transcript.Messages,
		record.Message{Role: "assistant", Content: "Lovely! How can I help?"}, record.Message{Role: "user", Content: "Where can the dog sit?"})
	down := conv(9, "good", "Is it open?")
	down.Transcript.Rounds = nil
	down.Transcript.Failure = &record.Failure{Kind: record.FailureOllama, Message: "connection refused"}
	convs := []Conversation{
		conv(1, "good", "Can I bring my dog?", dog),
		conv(2, "weak", "can I bring my dog", call("search", `{"q":"dog"}`)),
		conv(3, "good", "Can I bring my dogs?", dog),
		conv(4, "good", "Check the hours and the menu.", hours, menu),
		conv(5, "good", "What is the capital of France?"),
		chain, failed, multi, down,
		conv(10, "good", "What's the capital of France?", call("search", `{"query":"capital of France"}`)),
	}
	d := Build(convs, &Options{Name: "traffic", Servers: "servers/docs.json"})
	var b bytes.Buffer
	if err := d.WriteYAML(&b, []string{"rec"}); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "draft.golden.yaml")
	if *update {
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if diff := cmp.Diff(string(want), b.String()); diff != "" {
		t.Errorf("draft differs from %s (-want +got; go test -update rewrites it):\n%s", golden, diff)
	}
	s, _ := parsed(t, d)
	if s.Name != "traffic" || len(s.Cases) != 7 || s.AwaitingReview() != 7 || len(d.Skipped) != 1 {
		t.Errorf("name %q, %d cases, %d awaiting review, %d skipped", s.Name, len(s.Cases), s.AwaitingReview(), len(d.Skipped))
	}
}
