package llm

import (
	"context"
	"fmt"
	"maps"
	"strings"

	"github.com/ollama/ollama/api"
	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/termtext"
)

// measureQuestion is the whole conversation of a measuring request: one
// short user message, so that what differs between the two requests is the
// tools.
const measureQuestion = "Hi"

// PromptSize is what a tool catalog costs in the prompt of one model, as
// the model's own tokenizer and template count it.
type PromptSize struct {
	// WithTools is prompt_eval_count of the minimal conversation sent with
	// the tools; WithoutTools of the same conversation without them.
	WithTools    int `json:"with_tools"`
	WithoutTools int `json:"without_tools"`
	// NumCtx is the context size the requests ran with (the num_ctx option
	// when given, else the model's); 0: unknown.
	NumCtx int `json:"num_ctx"`
}

// Tools is the tools' share of the prompt: the difference between the two
// requests, never below zero.
func (p PromptSize) Tools() int { return max(p.WithTools-p.WithoutTools, 0) }

// Fits reports whether the prompt with the tools stayed below num_ctx.
// Ollama cuts a longer prompt to num_ctx and counts only what it kept, so a
// count that reached num_ctx means the prompt did not fit and Tools is a
// lower bound. Unknown (NumCtx 0) counts as fitting.
func (p PromptSize) Fits() bool { return p.NumCtx == 0 || p.WithTools < p.NumCtx }

// MeasureRequest is what MeasureTools sends.
type MeasureRequest struct {
	Model string
	Tools api.Tools
	// System, when set, is sent as a system message in both requests.
	System string
	// Options are sent with both requests (num_ctx among them); num_predict
	// is always 1.
	Options map[string]any
	// NumCtx is the model's own context size, used when Options has no
	// num_ctx; 0: unknown.
	NumCtx int
	// Running, when set and the context size is still unknown, is asked
	// (/api/ps) for the context the model was loaded with: most library
	// models set no num_ctx, so /api/show does not say, and Ollama picks one
	// at load. *api.Client is one; nil leaves it unknown.
	Running RunningLister
}

// RunningLister lists the loaded models, as /api/ps does.
type RunningLister interface {
	ListRunning(ctx context.Context) (*api.ProcessResponse, error)
}

// MeasureTools measures how many prompt tokens req.Tools take on req.Model:
// two non-streaming /api/chat requests with one short user message and a
// one-token generation, through the model's own template, with the tools
// and without them, reading prompt_eval_count of each.
func MeasureTools(ctx context.Context, c bridge.Chatter, req MeasureRequest) (PromptSize, error) {
	size := PromptSize{NumCtx: NumCtx(req.Options, req.NumCtx)}
	var err error
	if size.WithTools, err = promptCount(ctx, c, req, req.Tools); err != nil {
		return size, err
	}
	if size.WithoutTools, err = promptCount(ctx, c, req, nil); err != nil {
		return size, err
	}
	if size.NumCtx == 0 && req.Running != nil {
		size.NumCtx, err = LoadedContext(ctx, req.Running, req.Model)
	}
	return size, err
}

// LoadedContext is the context length /api/ps reports for model, the one
// Ollama loaded it with; 0 when the model is not listed (it may already be
// unloaded) or Ollama does not say.
func LoadedContext(ctx context.Context, l RunningLister, model string) (int, error) {
	m, err := running(ctx, l, model, "")
	if err != nil || m == nil {
		return 0, err
	}
	return m.ContextLength, nil
}

// LoadedSize is what /api/ps lists for model once it is loaded: the memory
// it takes (and how much of it is on the GPU) and its context length; nil
// when the model is not listed (it may already be unloaded). digest, when
// known, finds the model's weights loaded under another name: Ollama keeps
// one runner per weights file and lists it under the name that loaded it.
func LoadedSize(ctx context.Context, l RunningLister, model, digest string) (*record.Loaded, error) {
	m, err := running(ctx, l, model, digest)
	if err != nil || m == nil {
		return nil, err
	}
	return &record.Loaded{Size: m.Size, SizeVRAM: m.SizeVRAM, ContextLength: m.ContextLength}, nil
}

// running is model's entry in /api/ps, by name, else by digest (when
// given); nil when it is not listed.
func running(ctx context.Context, l RunningLister, model, digest string) (*api.ProcessModelResponse, error) {
	ps, err := l.ListRunning(ctx)
	if err != nil {
		return nil, fmt.Errorf("asking Ollama how %q is loaded: %w", model, unwrapURL(err))
	}
	for i, m := range ps.Models {
		if SameModel(m.Name, model) || SameModel(m.Model, model) {
			return &ps.Models[i], nil
		}
	}
	for i, m := range ps.Models {
		if digest != "" && sameDigest(m.Digest, digest) {
			return &ps.Models[i], nil
		}
	}
	return nil, nil
}

// sameDigest compares two digests with or without their "sha256:".
func sameDigest(a, b string) bool {
	return strings.EqualFold(strings.TrimPrefix(a, "sha256:"), strings.TrimPrefix(b, "sha256:"))
}

// promptCount sends one measuring request and returns its prompt_eval_count.
func promptCount(ctx context.Context, c bridge.Chatter, req MeasureRequest, tools api.Tools) (int, error) {
	opts := maps.Clone(req.Options)
	if opts == nil {
		opts = map[string]any{}
	}
	opts["num_predict"] = 1
	var msgs []api.Message
	if req.System != "" {
		msgs = append(msgs, api.Message{Role: "system", Content: req.System})
	}
	msgs = append(msgs, api.Message{Role: "user", Content: measureQuestion})
	stream := false
	what := "without tools"
	if tools != nil {
		what = "with " + termtext.Count(len(tools), "tool")
	}
	var count int
	var done bool
	err := c.Chat(ctx, &api.ChatRequest{Model: req.Model, Messages: msgs, Tools: tools, Stream: &stream, Options: opts},
		func(r api.ChatResponse) error {
			if r.Done {
				count, done = r.PromptEvalCount, true
			}
			return nil
		})
	if err != nil {
		return 0, fmt.Errorf("measuring the prompt of %q %s: %w", req.Model, what, unwrapURL(err))
	}
	if !done || count <= 0 {
		return 0, fmt.Errorf("measuring the prompt of %q %s: Ollama reported no prompt_eval_count", req.Model, what)
	}
	return count, nil
}

// NumCtx is the context length a request with options runs with: its
// num_ctx option (as -o, a suite or a variant gives it), else the model's
// own (model); 0 when neither is known. A fractional num_ctx is cut, as
// Ollama reads it.
func NumCtx(options map[string]any, model int) int {
	switch n := options["num_ctx"].(type) {
	case int:
		if n > 0 {
			return n
		}
	case int64:
		if n > 0 {
			return int(n)
		}
	case float64:
		if n >= 1 {
			return int(n)
		}
	}
	return model
}
