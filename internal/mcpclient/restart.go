package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgrade/toolgrade/internal/serversfile"
	"github.com/toolgrade/toolgrade/internal/termtext"
)

// Defaults for the zero restart Options fields.
const (
	DefaultMaxRestarts    = 5
	DefaultRestartBackoff = 250 * time.Millisecond
	// MaxRestartBackoff caps the doubling of RestartBackoff.
	MaxRestartBackoff = 10 * time.Second
)

// restartWindow is the span MaxRestarts counts restarts over.
const restartWindow = time.Minute

// errClosed is why calls fail once the catalog is closed.
var errClosed = errors.New("catalog closed")

// server is one connected server for the catalog's whole life: the session
// of the moment, and what it takes to replace it when it dies.
type server struct {
	cfg    serversfile.Server
	dir    string
	stderr *stderrSink
	opts   *Options // with defaults
	// life ends when the catalog closes, and with it any restart; a
	// restart also ends with the call that started it, never with the
	// calls that wait for it.
	life context.Context
	// listed are the server's tools in tools/list order, before filtering,
	// from the first connection; a restart must list the same.
	listed []*mcp.Tool
	// raw are the listed tools' input schemas as sent, by name (see
	// serverConn.raw).
	raw map[string]json.RawMessage
	// template is the server as the file writes it, ${trialDir} and all:
	// what a per-trial server starts each trial's instance from. ownDir is
	// the directory this instance runs in, removed when it closes; empty
	// for a server that is not per trial.
	template serversfile.Server
	ownDir   string

	// active counts the calls that hold a session.
	active atomic.Int32

	mu  sync.Mutex
	cur *serverConn
	// restarting is non-nil while a restart runs; it is closed when the
	// restart is done, so concurrent calls wait for one restart.
	restarting chan struct{}
	// failed is set for good: the catalog closed, or a restart listed
	// different tools.
	failed error
	// recent are the start times of the restarts of the last minute.
	recent   []time.Time
	restarts int
	// lastErr is why the last restart failed; nil after a success.
	lastErr error
	// abandoned: the last restart ended with the call that started it, so
	// it says nothing about the server, and the calls that waited for it
	// try again themselves.
	abandoned bool
}

// conn returns a live session for a call, restarting a dead server first.
// It fails fast when the server is failed for good, the restart limit is
// reached or the restart fails.
func (s *server) conn(ctx context.Context) (*serverConn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		if s.failed != nil {
			return nil, s.failed
		}
		if s.cur.deadErr() == nil {
			return s.cur, nil
		}
		if ch := s.restarting; ch != nil {
			s.mu.Unlock()
			select {
			case <-ch:
			case <-ctx.Done():
				s.mu.Lock()
				return nil, fmt.Errorf("waiting for the restart: %w", ctx.Err())
			}
			s.mu.Lock()
			if s.lastErr != nil && !s.abandoned && s.cur.deadErr() != nil && s.failed == nil {
				// The restart this call waited for failed; it should not
				// start another one of its own.
				return nil, s.lastErr
			}
			continue
		}
		if err := ctx.Err(); err != nil {
			// Nobody waits for this call (a client that left): a restart
			// for it would use up the limit, and the backoff, that the
			// live calls need.
			return nil, fmt.Errorf("%v; not restarted: %w", s.cur.deadErr(), err)
		}
		if err := s.restartLocked(ctx); err != nil {
			return nil, err
		}
	}
}

// restartLocked replaces the dead session; s.mu is held on entry and on
// return, and released while the server starts. The restart ends early when
// the catalog closes or ctx, the context of the call that started it, ends
// (an interrupted run must not wait for a server to start).
func (s *server) restartLocked(ctx context.Context) error {
	now := s.opts.Now()
	keep := s.recent[:0]
	for _, t := range s.recent {
		if now.Sub(t) < restartWindow {
			keep = append(keep, t)
		}
	}
	s.recent = keep
	dead := s.cur.deadErr()
	if s.opts.MaxRestarts < 0 {
		return fmt.Errorf("%v (restarts are off)", dead)
	}
	if len(s.recent) >= s.opts.MaxRestarts {
		return fmt.Errorf("%v; not restarted: the limit of %d restarts per minute is reached (next restart possible at %s)",
			dead, s.opts.MaxRestarts, s.recent[0].Add(restartWindow).UTC().Format(time.RFC3339))
	}
	// The first restart in a minute is at once: the call that needs it is
	// waiting. Each further one waits twice as long as the one before.
	var wait time.Duration
	if n := len(s.recent); n > 0 && s.opts.RestartBackoff > 0 {
		wait = s.opts.RestartBackoff << min(n-1, 16)
		wait = min(wait, MaxRestartBackoff)
	}
	s.recent = append(s.recent, now)
	s.restarts++
	ch := make(chan struct{})
	s.restarting = ch
	old := s.cur
	s.mu.Unlock()

	// A dead session may still have a live process (one that sent a frame
	// too large to read is blocked writing it); it is of no use any more.
	old.close()
	next, err := s.start(ctx, wait)

	s.mu.Lock()
	if err == nil && s.failed != nil {
		// Closed while restarting: close waits on ch, so the new session
		// is gone before Close returns.
		s.mu.Unlock()
		next.close()
		s.mu.Lock()
		err = s.failed
	}
	s.restarting = nil
	close(ch)
	s.abandoned = false
	switch {
	case s.failed != nil:
		return s.failed
	case err != nil && s.life.Err() != nil:
		// Close ended the restart before it marked the server closed.
		return errClosed
	case err != nil && ctx.Err() != nil:
		// The call that started it left: the attempt does not count
		// toward the limit, and lastErr still says how the last real
		// attempt went.
		s.recent = s.recent[:len(s.recent)-1]
		s.abandoned = true
		return fmt.Errorf("%v; restart %d abandoned: %w", dead, s.restarts, err)
	case err != nil:
		s.lastErr = fmt.Errorf("%v; restart %d failed: %w", dead, s.restarts, err)
		return s.lastErr
	}
	s.lastErr = nil
	s.cur = next
	if !sameTools(s.listed, next.listed) {
		s.failed = fmt.Errorf("restarted after %v, it lists different tools; it is not used for the rest of the run, since trials before and after would not be comparable", dead)
		// Nothing will call it again: end its process now, not at Close.
		s.mu.Unlock()
		next.close()
		s.mu.Lock()
		return s.failed
	}
	return nil
}

// start waits out the backoff and connects a new session.
func (s *server) start(caller context.Context, wait time.Duration) (*serverConn, error) {
	life, cancelLife := context.WithCancel(s.life)
	defer cancelLife()
	defer context.AfterFunc(caller, cancelLife)()
	if wait > 0 {
		if err := s.opts.Sleep(life, wait); err != nil {
			return nil, err
		}
	}
	ctx, cancel := context.WithTimeout(life, s.opts.ConnectTimeout)
	defer cancel()
	sc, err := connectOne(ctx, s.cfg, s.dir, s.stderr, s.opts.MaxFrameBytes)
	if err != nil && ctx.Err() != nil && life.Err() == nil {
		err = fmt.Errorf("not connected within %s: %w", termtext.Duration(s.opts.ConnectTimeout), err)
	}
	return sc, err
}

// close ends the server for good and waits for a restart in progress.
func (s *server) close() error {
	s.mu.Lock()
	s.failed = errClosed
	ch := s.restarting
	s.mu.Unlock()
	if ch != nil {
		<-ch
	}
	s.mu.Lock()
	cur := s.cur
	s.mu.Unlock()
	err := cur.close()
	if s.ownDir != "" {
		err = errors.Join(err, os.RemoveAll(s.ownDir))
	}
	return err
}

// inFlight is how many calls hold a session.
func (s *server) inFlight() int { return int(s.active.Load()) }

// restartCount is how many restarts were started, whether or not they
// succeeded.
func (s *server) restartCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.restarts
}

// sameTools compares two tools/list answers exactly, descriptions and
// schemas included: each shapes what the model is offered.
func sameTools(a, b []*mcp.Tool) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}
