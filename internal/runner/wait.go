package runner

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"sync"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/toolgrade/toolgrade/internal/backoff"
	"github.com/toolgrade/toolgrade/internal/termtext"
)

// DefaultWaitOllama is how long a run waits for an unreachable Ollama when
// Config.WaitOllama is zero.
const DefaultWaitOllama = 2 * time.Minute

// maxWaits bounds the waits of one trial (or warm-up): an Ollama that answers
// pings but refuses every chat would otherwise hold the run for ever.
const maxWaits = 3

// OllamaDownError stops a run whose Ollama stayed unreachable for the whole
// wait. The trials it interrupted are not written, so a resume runs them.
type OllamaDownError struct {
	Waited time.Duration
	Err    error // the last ping's error
}

func (e *OllamaDownError) Error() string {
	return fmt.Sprintf("Ollama stayed unreachable for %s (--wait-ollama): %v", termtext.Duration(e.Waited), e.Err)
}

func (e *OllamaDownError) Unwrap() error { return e.Err }

// Unreachable reports whether err means Ollama could not be reached at all
// (connection refused, no route, DNS: a *url.Error or net.Error), as opposed
// to an answer with an error status or a stream that broke.
func Unreachable(err error) bool {
	var se api.StatusError
	if err == nil || errors.As(err, &se) {
		return false
	}
	var ue *url.Error
	var ne net.Error
	return errors.As(err, &ue) || errors.As(err, &ne)
}

// pause holds a run's workers while one of them waits for Ollama to answer
// again, so that an outage does not turn every remaining trial into an
// infra_error.
type pause struct {
	r     *Runner
	limit time.Duration // negative: never wait
	ping  func(context.Context) error
	// onWait is told the time left before each pause between pings; nil
	// for a host of a pool, which says what it does through OnHost.
	onWait func(left time.Duration)
	// extend, when set, is asked once the wait is over: true starts it
	// again. A host of a pool keeps being pinged while another host of
	// the model still runs trials.
	extend func() bool

	mu   sync.Mutex
	done chan struct{} // closed when the wait in progress ends; nil when none
	err  error         // set once a wait ran out: the host is given up
}

// busy reports whether a wait is in progress or has failed: a worker that
// took a trial then hands it back rather than run it on a host that is down.
func (p *pause) busy() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.done != nil || p.err != nil
}

// failed reports whether a wait ran out: the host is given up.
func (p *pause) failed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err != nil
}

// enabled reports whether failures that cannot reach Ollama wait.
func (p *pause) enabled() bool { return p.limit > 0 }

// hold blocks while a wait is in progress, so no new trial starts against an
// Ollama that is down. It returns the error of a failed wait.
func (p *pause) hold(ctx context.Context) error {
	p.mu.Lock()
	ch, err := p.done, p.err
	p.mu.Unlock()
	if ch == nil {
		return err
	}
	select {
	case <-ch:
	case <-ctx.Done():
		return ctx.Err()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// await waits until Ollama answers a ping: the first caller pings, the
// others share its verdict. The error is nil when Ollama is back.
func (p *pause) await(ctx context.Context) error {
	p.mu.Lock()
	if p.err != nil || p.done != nil {
		p.mu.Unlock()
		return p.hold(ctx)
	}
	ch := make(chan struct{})
	p.done = ch
	p.mu.Unlock()

	err := p.r.waitOllama(ctx, p)
	p.mu.Lock()
	if ctx.Err() == nil {
		// A wait cut short by its context (the run ends, or a pool has no
		// trial left for the host) says nothing of the host: the workers
		// holding on it must not read it as a wait that ran out.
		p.err = err
	}
	p.done = nil
	p.mu.Unlock()
	close(ch)
	return err
}

// waitOllama pings Ollama with backoff (1s doubling, at most 15s between
// pings) until it answers or limit has passed.
func (r *Runner) waitOllama(ctx context.Context, p *pause) error {
	limit := p.limit
	now := r.now()
	deadline := now().Add(limit)
	for n := 1; ; n++ {
		err := p.ping(ctx)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		left := deadline.Sub(now())
		if left <= 0 && p.extend != nil && p.extend() {
			deadline = now().Add(limit)
			left = limit
		}
		if left <= 0 {
			return &OllamaDownError{Waited: limit, Err: err}
		}
		if p.onWait != nil {
			p.onWait(left)
		}
		// Past the fifth ping the doubling would pass the cap anyway.
		wait := min(backoff.Before(min(n, 5), time.Second), 15*time.Second)
		if err := r.sleep(ctx, min(wait, left)); err != nil {
			return err
		}
	}
}

// retryPolicy is cfg's retries with its default, and the first backoff
// (backoff.Before applies its default and the doubling).
func retryPolicy(cfg Config) (int, time.Duration) {
	retries := cfg.Retries
	if retries == 0 {
		retries = 2
	}
	return retries, cfg.Backoff
}

// warmup loads a model, retrying failures as trials are retried and waiting
// for an Ollama that cannot be reached.
func (r *Runner) warmup(ctx context.Context, cfg Config, p *pause, m Models, model string, ka *api.Duration) (time.Duration, error) {
	opts := loadOptions(cfg.Suite)
	retries, first := retryPolicy(cfg)
	waits := 0
	for attempt := 1; ; attempt++ {
		load, err := m.Warmup(ctx, model, ka, opts)
		if err == nil || ctx.Err() != nil {
			return load, err
		}
		if attempt <= retries {
			if err := r.sleep(ctx, backoff.Before(attempt, first)); err != nil {
				return 0, err
			}
			continue
		}
		if !p.enabled() || !Unreachable(err) || waits >= maxWaits {
			return 0, err
		}
		waits++
		if err := p.await(ctx); err != nil {
			return 0, err
		}
		attempt = 0
	}
}
