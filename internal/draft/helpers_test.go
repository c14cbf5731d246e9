package draft

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/suite"
)

// call is a tool call as a model returns it.
func call(name, args string) record.ToolCall {
	return record.ToolCall{Name: name, Arguments: json.RawMessage(args)}
}

// conv is a conversation the bridge loop would record: the question (after
// a system prompt), a first response with calls, each run with a result,
// and a final answer when there were calls.
func conv(line int, model, question string, calls ...record.ToolCall) Conversation {
	t := &record.Transcript{
		Model:    model,
		Messages: []record.Message{{Role: "system", Content: "You help."}, {Role: "user", Content: question}},
		Rounds: []record.Round{{
			Index:    1,
			Request:  record.Request{ToolsSent: true, Tools: 3},
			Response: record.Response{ToolCalls: calls},
		}},
		MaxRounds: 4,
	}
	for _, c := range calls {
		t.Rounds[0].Executions = append(t.Rounds[0].Executions, record.Execution{Name: c.Name, Arguments: c.Arguments, Result: "ok"})
	}
	if len(calls) > 0 {
		t.Rounds = append(t.Rounds, record.Round{Index: 2, Request: record.Request{ToolsSent: true}, Response: record.Response{Content: "done"}})
	} else {
		t.Rounds[0].Response.Content = "an answer"
	}
	t.Answer = t.Rounds[len(t.Rounds)-1].Response.Content
	return Conversation{Source: Source{File: "rec/transcripts.jsonl", Line: line}, Transcript: t}
}

// parsed writes d and parses it back as a suite, failing the test when the
// draft is not one.
func parsed(t *testing.T, d *Draft) (*suite.Suite, string) {
	t.Helper()
	var b bytes.Buffer
	if err := d.WriteYAML(&b, []string{"rec"}); err != nil {
		t.Fatal(err)
	}
	s, err := suite.Parse(b.Bytes(), "draft.yaml")
	if err != nil {
		t.Fatalf("the draft does not parse: %v\n%s", err, b.String())
	}
	return s, b.String()
}
