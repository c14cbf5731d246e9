package bridge

import (
	"encoding/json"

	"github.com/ollama/ollama/api"
	"github.com/toolgrade/toolgrade/internal/record"
)

// accumulator folds the chunks of one /api/chat stream into one response.
// Real Ollama sends each tool call in its own done:false chunk and a done line
// with only metrics, so content, thinking and calls are gathered over all
// chunks, never taken from the last one.
type accumulator struct {
	resp    record.Response
	metrics record.Metrics
	calls   []api.ToolCall
	done    bool
}

func (a *accumulator) add(c api.ChatResponse) {
	a.resp.Chunks++
	a.resp.Content += c.Message.Content
	a.resp.Thinking += c.Message.Thinking
	for _, tc := range c.Message.ToolCalls {
		a.calls = append(a.calls, tc)
		a.resp.ToolCalls = append(a.resp.ToolCalls, recordCall(tc))
	}
	if c.Done {
		a.done = true
		a.resp.DoneReason = c.DoneReason
		a.metrics = record.Metrics{
			TotalDuration:      c.TotalDuration,
			LoadDuration:       c.LoadDuration,
			PromptEvalCount:    c.PromptEvalCount,
			PromptEvalDuration: c.PromptEvalDuration,
			EvalCount:          c.EvalCount,
			EvalDuration:       c.EvalDuration,
		}
	}
}

// message is the assistant message to send back in the next round: content,
// thinking and the tool calls exactly as received.
func (a *accumulator) message() api.Message {
	return api.Message{
		Role:      "assistant",
		Content:   a.resp.Content,
		Thinking:  a.resp.Thinking,
		ToolCalls: a.calls,
	}
}

func recordCall(tc api.ToolCall) record.ToolCall {
	args, err := tc.Function.Arguments.MarshalJSON()
	if err != nil || len(args) == 0 {
		args = []byte("{}")
	}
	return record.ToolCall{
		ID:        tc.ID,
		Index:     tc.Function.Index,
		Name:      tc.Function.Name,
		Arguments: json.RawMessage(args),
	}
}

// recordMessages converts chat messages to their record form.
func recordMessages(msgs []api.Message) []record.Message {
	out := make([]record.Message, 0, len(msgs))
	for _, m := range msgs {
		rm := record.Message{
			Role:       m.Role,
			Content:    m.Content,
			Thinking:   m.Thinking,
			ToolName:   m.ToolName,
			ToolCallID: m.ToolCallID,
		}
		for _, tc := range m.ToolCalls {
			rm.ToolCalls = append(rm.ToolCalls, recordCall(tc))
		}
		out = append(out, rm)
	}
	return out
}
