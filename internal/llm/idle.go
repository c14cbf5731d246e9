package llm

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/toolgrade/toolgrade/internal/bridge"
)

// IdleChatter is a bridge.Chatter whose requests fail when no chunk arrives
// for Idle: a stalled Ollama then costs one request (an infrastructure
// error, retried) instead of the whole run.
type IdleChatter struct {
	Next bridge.Chatter
	// Idle is the longest wait for the next chunk (or the first); zero or
	// negative: no limit.
	Idle time.Duration
}

// IdleError is a request that IdleChatter ended because Ollama went silent.
type IdleError struct{ Idle time.Duration }

func (e *IdleError) Error() string { return fmt.Sprintf("no response from Ollama for %s", e.Idle) }

// Chat sends req through Next, resetting the idle timer on every chunk.
func (c *IdleChatter) Chat(ctx context.Context, req *api.ChatRequest, fn api.ChatResponseFunc) error {
	if c.Idle <= 0 {
		return c.Next.Chat(ctx, req, fn)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var stalled atomic.Bool
	timer := time.AfterFunc(c.Idle, func() {
		stalled.Store(true)
		cancel()
	})
	defer timer.Stop()
	err := c.Next.Chat(ctx, req, func(r api.ChatResponse) error {
		if !timer.Stop() {
			return &IdleError{Idle: c.Idle} // it fired as this chunk came
		}
		// The time fn takes is ours, not Ollama's: the timer restarts after.
		defer timer.Reset(c.Idle)
		return fn(r)
	})
	if stalled.Load() {
		// The request was cut by the timer, whatever error its cut caused.
		return &IdleError{Idle: c.Idle}
	}
	return err
}
