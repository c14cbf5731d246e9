// Package bridge is the loop that lets an Ollama model use MCP tools: it
// offers the tools with every /api/chat request, runs the calls the model
// returns against their servers, feeds the results back as role "tool"
// messages, and repeats until the model answers or the round limit is hit.
package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/toolgrade/toolgrade/internal/record"
)

// DefaultMaxRounds is the round limit when Request.MaxRounds is zero.
const DefaultMaxRounds = 5

// Chatter is the part of Ollama's *api.Client the loop uses.
type Chatter interface {
	Chat(ctx context.Context, req *api.ChatRequest, fn api.ChatResponseFunc) error
}

// Toolbox offers tools and runs them; *mcpclient.Catalog is the real one.
// Call never fails: a failure is a result the model sees, marked as an error.
type Toolbox interface {
	OllamaTools() api.Tools
	Call(ctx context.Context, name string, args json.RawMessage, callID string) record.Execution
}

// Request is one conversation to run.
type Request struct {
	Model string
	// System, when set, is sent as the first message.
	System string
	// Messages are the conversation so far, usually one user message.
	Messages []api.Message
	// Options are Ollama model options (temperature, seed, num_ctx, top_k,
	// top_p, num_predict); nil sends none.
	Options map[string]any
	// Think is sent as is: nil leaves the field out, so a thinking model
	// thinks (Ollama's default).
	Think *api.ThinkValue
	// KeepAlive is how long Ollama keeps the model loaded; nil: its default.
	KeepAlive *api.Duration
	// MaxRounds is how many requests may offer tools; zero: DefaultMaxRounds.
	// When the model still calls tools after that, one last request goes
	// without tools so an answer always comes back.
	MaxRounds int
	// NoExecute stops the conversation at the model's first response: its
	// tool calls are recorded but none is run (the transcript says
	// NotExecuted and has no Executions). False runs them, looping.
	NoExecute bool
	// ClientTools are the caller's own tools, offered after the toolbox's
	// (a toolbox tool of the same name gives way). A response that calls
	// any of them ends the conversation unexecuted, as Ollama would return
	// it, so the caller runs its own tools; nil: none.
	ClientTools api.Tools
}

// Loop runs conversations. Its zero value is not usable: Chat and Tools are
// required.
type Loop struct {
	Chat  Chatter
	Tools Toolbox
	// Now is the clock for wall times; nil: time.Now.
	Now func() time.Time
	// OnChunk, when set, sees every stream chunk as it arrives (for a proxy
	// that streams through); round counts from 1.
	OnChunk func(round int, chunk api.ChatResponse)
}

// Run runs one conversation through the loop. It always returns the
// transcript of what happened; the error is non-nil exactly when the
// transcript's Failure is set (Ollama failed, the stream broke, or ctx ended).
func (l *Loop) Run(ctx context.Context, req Request) (*record.Transcript, error) {
	t, _, err := l.RunTurn(ctx, req)
	return t, err
}

// RunTurn is Run that also returns the conversation as it stands at the
// end: the messages sent (system prompt first, when Request.System is
// set), each assistant message and tool result, and the model's last
// message. A scenario sends it, with the user's next message, as the next
// turn's Request.Messages. On failure the conversation ends with the last
// message that was complete.
func (l *Loop) RunTurn(ctx context.Context, req Request) (*record.Transcript, []api.Message, error) {
	now := l.Now
	if now == nil {
		now = time.Now
	}
	maxRounds := req.MaxRounds
	if maxRounds <= 0 {
		maxRounds = DefaultMaxRounds
	}
	var msgs []api.Message
	if req.System != "" {
		msgs = append(msgs, api.Message{Role: "system", Content: req.System})
	}
	msgs = append(msgs, req.Messages...)

	t := &record.Transcript{Model: req.Model, Messages: recordMessages(msgs), MaxRounds: maxRounds, NotExecuted: req.NoExecute}
	start := now()
	defer func() { t.Wall = now().Sub(start) }()
	tools := withClientTools(l.Tools.OllamaTools(), req.ClientTools)

	for i := 1; ; i++ {
		final := i > maxRounds
		offered := tools
		if final {
			offered = nil
		}
		round, msg, err := l.round(ctx, now, i, req, msgs, offered, final)
		t.Rounds = append(t.Rounds, round)
		if err != nil {
			t.Failure = round.Response.Failure
			return t, msgs, err
		}
		// Without execution the first response is all there is: its calls
		// are what gets scored, and nothing reaches a server.
		if final || len(msg.ToolCalls) == 0 || req.NoExecute || callsClientTool(msg, req.ClientTools) {
			t.Answer = round.Response.Content
			t.RoundLimitHit = final
			return t, append(msgs, msg), nil
		}
		msgs = append(msgs, msg)
		last := &t.Rounds[len(t.Rounds)-1]
		for j, call := range msg.ToolCalls {
			rc := round.Response.ToolCalls[j]
			ex := l.Tools.Call(ctx, rc.Name, rc.Arguments, rc.ID)
			last.Executions = append(last.Executions, ex)
			msgs = append(msgs, api.Message{
				Role:       "tool",
				Content:    ex.Result,
				ToolName:   call.Function.Name,
				ToolCallID: call.ID,
			})
		}
		if err := ctx.Err(); err != nil {
			t.Failure = &record.Failure{Kind: record.FailureCanceled, Message: err.Error()}
			return t, msgs, err
		}
	}
}

// withClientTools offers the toolbox's tools and then the client's; a
// toolbox tool whose name a client tool takes is left out, since the client
// asked for its own.
func withClientTools(tools, client api.Tools) api.Tools {
	if len(client) == 0 {
		return tools
	}
	taken := make(map[string]bool, len(client))
	for _, t := range client {
		taken[t.Function.Name] = true
	}
	out := make(api.Tools, 0, len(tools)+len(client))
	for _, t := range tools {
		if !taken[t.Function.Name] {
			out = append(out, t)
		}
	}
	return append(out, client...)
}

// callsClientTool reports whether msg calls one of the client's tools.
func callsClientTool(msg api.Message, client api.Tools) bool {
	for _, c := range msg.ToolCalls {
		for _, t := range client {
			if t.Function.Name == c.Function.Name {
				return true
			}
		}
	}
	return false
}

// round sends one request and gathers its stream.
func (l *Loop) round(ctx context.Context, now func() time.Time, i int, req Request, msgs []api.Message, tools api.Tools, final bool) (record.Round, api.Message, error) {
	stream := true
	chat := &api.ChatRequest{
		Model:     req.Model,
		Messages:  msgs,
		Stream:    &stream,
		Tools:     tools,
		Options:   req.Options,
		Think:     req.Think,
		KeepAlive: req.KeepAlive,
	}
	r := record.Round{
		Index: i,
		Request: record.Request{
			Messages:  len(msgs),
			ToolsSent: len(tools) > 0,
			Tools:     len(tools),
			Final:     final,
			Options:   req.Options,
			Think:     thinkString(req.Think),
		},
	}
	var acc accumulator
	start := now()
	err := l.Chat.Chat(ctx, chat, func(c api.ChatResponse) error {
		acc.add(c)
		if l.OnChunk != nil {
			l.OnChunk(i, c)
		}
		return nil
	})
	r.Wall = now().Sub(start)
	r.Response = acc.resp
	r.Metrics = acc.metrics
	if err == nil && !acc.done {
		err = errNoDone
	}
	if err != nil {
		r.Response.Failure = classify(ctx, err)
		return r, api.Message{}, fmt.Errorf("round %d: %w", i, err)
	}
	return r, acc.message(), nil
}

// errNoDone is a stream that ended without its done line. Ollama's client
// ignores read errors, so a dropped connection looks like a short stream.
var errNoDone = errors.New("the stream ended before Ollama's done line (connection dropped?)")

// classify sorts a failed round into a failure kind.
func classify(ctx context.Context, err error) *record.Failure {
	f := &record.Failure{Message: err.Error()}
	var se api.StatusError
	var ne net.Error
	var ue *url.Error
	switch {
	case ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		f.Kind = record.FailureCanceled
	case errors.As(err, &se):
		f.Kind = record.FailureOllama
		f.HTTPStatus = se.StatusCode
		if se.ErrorMessage != "" {
			f.Message = se.ErrorMessage
		}
	case errors.As(err, &ue), errors.As(err, &ne):
		f.Kind = record.FailureOllama
	default:
		// No done line, an {"error": ...} line, or a line that is not JSON.
		f.Kind = record.FailureStream
	}
	return f
}

func thinkString(t *api.ThinkValue) string {
	if t == nil || t.Value == nil {
		return ""
	}
	return fmt.Sprint(t.Value)
}

// ParseThink reads a think setting as users write it: "" (unset), true,
// false, low, medium or high.
func ParseThink(s string) (*api.ThinkValue, error) {
	switch s {
	case "":
		return nil, nil
	case "true", "false":
		return &api.ThinkValue{Value: s == "true"}, nil
	case "low", "medium", "high":
		return &api.ThinkValue{Value: s}, nil
	}
	return nil, fmt.Errorf("think %q: must be true, false, low, medium or high", s)
}

// ParseKeepAlive reads a keep_alive duration such as "10m"; "" leaves it unset.
func ParseKeepAlive(s string) (*api.Duration, error) {
	if s == "" {
		return nil, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return nil, fmt.Errorf("keep_alive %q: %v", s, err)
	}
	return &api.Duration{Duration: d}, nil
}
