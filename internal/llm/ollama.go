package llm

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/termtext"
)

// Ollama is one Ollama server, with the model checks and warm-up the runner
// needs.
type Ollama struct {
	Client *api.Client
	Base   *url.URL
	// Source says where Base came from, for error hints ("--ollama",
	// "OLLAMA_HOST"); empty: "the default".
	Source string
	// Timeout bounds each check (Ping, Version, Check): a server that
	// accepts connections and never answers must not hang start-up. Zero:
	// no limit.
	Timeout time.Duration
	// Idle bounds the silence of a warm-up or unload request (see
	// IdleChatter); zero: no limit.
	Idle time.Duration
}

// TimeoutError is a check that Ollama accepted and never answered.
type TimeoutError struct {
	URL   string
	What  string
	After time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("Ollama at %s did not answer %s within %s (is it hung? restart it, or raise --ollama-timeout)", e.URL, e.What, termtext.Duration(e.After))
}

// check runs one start-up check under o.Timeout, turning its deadline into
// a *TimeoutError.
func (o *Ollama) check(ctx context.Context, what string, fn func(context.Context) error) error {
	if o.Timeout <= 0 {
		return fn(ctx)
	}
	cctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	err := fn(cctx)
	if err != nil && ctx.Err() == nil && errors.Is(cctx.Err(), context.DeadlineExceeded) {
		return &TimeoutError{URL: o.Base.String(), What: what, After: o.Timeout}
	}
	return err
}

// Version checks that Ollama answers and returns its version.
func (o *Ollama) Version(ctx context.Context) (string, error) {
	var v string
	err := o.check(ctx, "its version request", func(ctx context.Context) error {
		var err error
		v, err = Ping(ctx, o.Client, o.Base, cmp.Or(o.Source, "the default"))
		return err
	})
	return v, err
}

// Ping reports whether Ollama answers at all.
func (o *Ollama) Ping(ctx context.Context) error {
	return o.check(ctx, "a ping", o.Client.Heartbeat)
}

// Check confirms that model is pulled and can call tools.
func (o *Ollama) Check(ctx context.Context, model string) (*Model, error) {
	var m *Model
	err := o.check(ctx, "about model "+model, func(ctx context.Context) error {
		var err error
		m, err = CheckModel(ctx, o.Client, o.Base, model)
		return err
	})
	return m, err
}

// Find confirms that model is pulled, whatever it can do (see FindModel).
func (o *Ollama) Find(ctx context.Context, model string) (*Model, error) {
	var m *Model
	err := o.check(ctx, "about model "+model, func(ctx context.Context) error {
		var err error
		m, err = FindModel(ctx, o.Client, o.Base, model)
		return err
	})
	return m, err
}

func (o *Ollama) chatter() bridge.Chatter { return &IdleChatter{Next: o.Client, Idle: o.Idle} }

// Warmup loads model with a chat request that has no messages: Ollama loads
// the model and answers done_reason "load" without metrics, so the load time
// returned is the request's wall time. The options (num_ctx among them) are
// those the trials send: a model loaded without them would be loaded again
// by the first trial, and /api/ps would list its memory at another context.
func (o *Ollama) Warmup(ctx context.Context, model string, keepAlive *api.Duration, options map[string]any) (time.Duration, error) {
	stream := false
	start := time.Now()
	err := o.chatter().Chat(ctx, &api.ChatRequest{Model: model, Messages: []api.Message{}, Stream: &stream, KeepAlive: keepAlive, Options: options},
		func(api.ChatResponse) error { return nil })
	return time.Since(start), err
}

// Unload asks Ollama to free model now: a chat request with no messages and
// keep_alive 0.
func (o *Ollama) Unload(ctx context.Context, model string) error {
	stream := false
	return o.chatter().Chat(ctx, &api.ChatRequest{Model: model, Messages: []api.Message{}, Stream: &stream, KeepAlive: &api.Duration{}},
		func(api.ChatResponse) error { return nil })
}

// LoadedContext returns the context length Ollama loaded model with (from
// /api/ps), or 0 when it does not say: most library models set no num_ctx
// of their own, so /api/show alone cannot tell when a prompt was cut.
func (o *Ollama) LoadedContext(ctx context.Context, model string) (int, error) {
	return LoadedContext(ctx, o.Client, model)
}

// Loaded is what /api/ps reports of model once loaded (see LoadedSize),
// under o.Timeout; nil when it is not listed, by name nor by digest.
func (o *Ollama) Loaded(ctx context.Context, model, digest string) (*record.Loaded, error) {
	var l *record.Loaded
	err := o.check(ctx, "which models are loaded", func(ctx context.Context) error {
		var err error
		l, err = LoadedSize(ctx, o.Client, model, digest)
		return err
	})
	return l, err
}
