package author

import (
	"context"
	"strings"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/toolgrade/toolgrade/internal/bridge"
)

// send asks the author model one request through chat (internal/llm's
// client) and records it in an Entry: the reply whole, its timing and
// token counts; err is the request's failure, not a reply's.
func send(ctx context.Context, chat bridge.Chatter, s *Spec, a ask) (*Entry, error) {
	stream := false
	opts := map[string]any{"temperature": 0, "seed": s.Seed}
	req := &api.ChatRequest{Model: s.Model.Name, Messages: a.messages, Format: a.format, Options: opts, Stream: &stream}
	e := &Entry{Format: LogFormat, Kind: a.kind, Tools: a.tools, Model: s.Model.Name, Digest: s.Model.Digest,
		Seed: s.Seed, Options: opts, Request: req, Start: time.Now().UTC()}
	var reply strings.Builder
	err := chat.Chat(ctx, req, func(r api.ChatResponse) error {
		reply.WriteString(r.Message.Content)
		if r.Done {
			e.PromptTokens, e.ReplyTokens = r.PromptEvalCount, r.EvalCount
		}
		return nil
	})
	e.Duration = time.Since(e.Start)
	e.Reply = reply.String()
	if err != nil {
		e.Error = "the request failed: " + err.Error()
	}
	return e, err
}
