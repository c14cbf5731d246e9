package llm

import (
	"context"
	"net/url"
	"time"

	"github.com/ollama/ollama/api"
)

// Ollama is one Ollama server, with the model checks and warm-up the runner
// needs.
type Ollama struct {
	Client *api.Client
	Base   *url.URL
}

// Check confirms that model is pulled and can call tools.
func (o *Ollama) Check(ctx context.Context, model string) (*Model, error) {
	return CheckModel(ctx, o.Client, o.Base, model)
}

// Warmup loads model with a chat request that has no messages: Ollama loads
// the model and answers done_reason "load" without metrics, so the load time
// returned is the request's wall time.
func (o *Ollama) Warmup(ctx context.Context, model string, keepAlive *api.Duration) (time.Duration, error) {
	stream := false
	start := time.Now()
	err := o.Client.Chat(ctx, &api.ChatRequest{Model: model, Messages: []api.Message{}, Stream: &stream, KeepAlive: keepAlive},
		func(api.ChatResponse) error { return nil })
	return time.Since(start), err
}

// Unload asks Ollama to free model now: a chat request with no messages and
// keep_alive 0.
func (o *Ollama) Unload(ctx context.Context, model string) error {
	stream := false
	return o.Client.Chat(ctx, &api.ChatRequest{Model: model, Messages: []api.Message{}, Stream: &stream, KeepAlive: &api.Duration{}},
		func(api.ChatResponse) error { return nil })
}
