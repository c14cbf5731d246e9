package simuser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/ollama/ollama/api"
)

// Chatter sends one chat request, streaming its reply to fn: the run's
// Ollama client (bridge.Chatter's and judge.Chatter's shape).
type Chatter interface {
	Chat(ctx context.Context, req *api.ChatRequest, fn api.ChatResponseFunc) error
}

// User is a simulated user pursuing Goal as Persona, its messages written
// by Model. Set Chat, Model and Goal; the rest may stay zero.
type User struct {
	Chat Chatter
	// Model is the user model (the case's user.model, else
	// defaults.user_model).
	Model string
	// Goal is what the user wants done; Persona who the user is (empty:
	// nobody in particular).
	Goal, Persona string
	// First, when set, is the user's first message as written: Next
	// returns it, without asking the model, while convo holds no user
	// message.
	First string
	// Options are the request's options as given (temperature, seed,
	// num_ctx); nil sends none. Give each trial its seed (TrialSeed), so
	// a trial run again asks the same questions and repeats differ.
	Options map[string]any
	// Think is the request's think value; nil leaves the model's default.
	Think *api.ThinkValue
	// OnTurn, when set, is told every request to the user model: what it
	// cost and what came of it, failures included.
	OnTurn func(Turn)
	// Now is the clock latencies are measured with; nil: time.Now.
	Now func() time.Time
}

// Turn is one request to the user model, for the account of what the user
// model took.
type Turn struct {
	Model string `json:"model"`
	// Raw is the reply's content as it came; Read how it was read when it
	// was not the JSON asked for (see Read).
	Raw  string `json:"raw"`
	Read string `json:"read,omitempty"`
	// Message and Done are what was read.
	Message string `json:"message"`
	Done    bool   `json:"done,omitempty"`
	// PromptTokens and EvalTokens are Ollama's prompt_eval_count and
	// eval_count.
	PromptTokens int `json:"prompt_tokens"`
	EvalTokens   int `json:"eval_tokens"`
	// Latency is the request's wall time, to its last byte.
	Latency time.Duration `json:"latency_ns"`
	// Error is why the turn failed; empty when it did not.
	Error string `json:"error,omitempty"`
}

// Next asks the user model for the user's next message after convo (the
// user's and the assistant's messages so far). done says the user is
// finished: the conversation ends there, and msg, if any, is the user's
// closing words, not a question to answer. The error is non-nil exactly
// when no message could be had: an *Error, saying what to do.
func (u *User) Next(ctx context.Context, convo []api.Message) (msg string, done bool, err error) {
	if u.First != "" && !hasUser(convo) {
		return u.First, false, nil
	}
	req := u.Request(convo)
	now := u.Now
	if now == nil {
		now = time.Now
	}
	start := now()
	var b strings.Builder
	var met api.Metrics
	err = u.Chat.Chat(ctx, req, func(r api.ChatResponse) error {
		b.WriteString(r.Message.Content)
		if r.Done {
			met = r.Metrics
		}
		return nil
	})
	t := Turn{Model: u.Model, Raw: b.String(), PromptTokens: met.PromptEvalCount, EvalTokens: met.EvalCount, Latency: now().Sub(start)}
	if err == nil {
		t.Message, t.Done, t.Read, err = Read(t.Raw)
	}
	if err != nil {
		err = &Error{Model: u.Model, Err: err}
		t.Error = err.Error()
	}
	if u.OnTurn != nil {
		u.OnTurn(t)
	}
	return t.Message, t.Done, err
}

// Request is the chat request Next sends after convo: the user model's
// conversation (see Messages), no tools, the structured-output format and
// the options.
func (u *User) Request(convo []api.Message) *api.ChatRequest {
	return &api.ChatRequest{
		Model:    u.Model,
		Messages: Messages(u.Goal, u.Persona, convo),
		Format:   json.RawMessage(Format),
		Options:  maps.Clone(u.Options),
		Think:    u.Think,
	}
}

func hasUser(convo []api.Message) bool {
	for _, m := range convo {
		if m.Role == "user" {
			return true
		}
	}
	return false
}

// TrialSeed is the user model's seed for one trial: base (the suite's
// seed) mixed with the case and the repeat, so the same trial gets the
// same seed on every run and on resume, and its repeats differ.
func TrialSeed(base int64, caseID string, repeat int) int64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d\x00%s\x00%d", base, caseID, repeat)
	return int64(h.Sum64() >> 1) // non-negative, as Ollama reads a seed
}

// Error is a request to the user model that gave no message: Ollama
// unreachable, the model not pulled, a failure of Ollama's, or a reply
// with no message. It unwraps to the cause (an api.StatusError, a
// *url.Error, a *NoMessageError), so a caller can tell an Ollama that is
// down from a model that answered badly.
type Error struct {
	Model string
	Err   error
}

func (e *Error) Unwrap() error { return e.Err }

func (e *Error) Error() string {
	who := fmt.Sprintf("the simulated user's model %q", e.Model)
	var se api.StatusError
	var ue *url.Error
	var ne net.Error
	var nm *NoMessageError
	switch {
	case errors.As(e.Err, &se) && se.StatusCode == http.StatusNotFound:
		return fmt.Sprintf("%s is not on Ollama (%s)\n  run: ollama pull %s, or name another in the case's user.model or the suite's defaults.user_model",
			who, statusText(se), e.Model)
	case errors.As(e.Err, &se):
		return fmt.Sprintf("%s failed on Ollama: %s", who, statusText(se))
	case errors.As(e.Err, &ue):
		return fmt.Sprintf("cannot reach Ollama for %s: %v\n  start it with `ollama serve`, or set OLLAMA_HOST (or --ollama) to where it listens", who, ue.Err)
	case errors.As(e.Err, &ne):
		return fmt.Sprintf("cannot reach Ollama for %s: %v\n  start it with `ollama serve`, or set OLLAMA_HOST (or --ollama) to where it listens", who, ne)
	case errors.As(e.Err, &nm):
		return fmt.Sprintf("%s: %v", who, nm)
	}
	return fmt.Sprintf("asking %s: %v", who, e.Err)
}

// statusText is Ollama's error message, else the HTTP status.
func statusText(se api.StatusError) string {
	if se.ErrorMessage != "" {
		return se.ErrorMessage
	}
	return fmt.Sprintf("HTTP %d", se.StatusCode)
}
