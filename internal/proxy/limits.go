package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync/atomic"
	"time"

	"github.com/dustin/go-humanize"
)

// The limits' defaults. Ollama sets no body limit and no timeouts; its
// scheduler runs OLLAMA_NUM_PARALLEL requests per model and queues
// OLLAMA_MAX_QUEUE (512) more. The proxy runs tools for its callers, so it
// bounds what it holds for them too.
const (
	DefaultMaxBody     = 64 << 20
	DefaultMaxChats    = 8
	DefaultMaxQueue    = 512
	DefaultBodyTimeout = time.Minute
)

// errBusy is Ollama's own answer to a request beyond its queue
// (server/sched.go ErrMaxQueue), so clients that retry on it retry here.
var errBusy = errors.New("server busy, please try again.  maximum pending requests exceeded")

// Limits bound what clients can make the proxy hold. Every zero value is
// its Default.
type Limits struct {
	// MaxBody is the most bytes a chat request body may hold; a larger one
	// is refused with 413 before anything runs. Only chats are bounded: the
	// proxy reads nothing else, it streams it to Ollama.
	MaxBody int64
	// MaxChats is how many chats run their loops (Ollama requests and tool
	// calls) at once.
	MaxChats int
	// MaxQueue is how many more chats may wait for one of those; the next
	// is refused with 503 and Ollama's message for a full queue.
	MaxQueue int
	// BodyTimeout is how long a client may take to send a chat's body
	// once its headers are in; a slower one gets 408.
	BodyTimeout time.Duration
}

func (l Limits) withDefaults() Limits {
	if l.MaxBody <= 0 {
		l.MaxBody = DefaultMaxBody
	}
	if l.MaxChats <= 0 {
		l.MaxChats = DefaultMaxChats
	}
	if l.MaxQueue <= 0 {
		l.MaxQueue = DefaultMaxQueue
	}
	if l.BodyTimeout <= 0 {
		l.BodyTimeout = DefaultBodyTimeout
	}
	return l
}

// readBody reads a chat's body under the body limit and timeout; on
// failure it has written the error answer and returns ok false.
func (l Limits) readBody(w http.ResponseWriter, r *http.Request) (body []byte, ok bool) {
	rc := http.NewResponseController(w)
	// Not every writer has a connection (tests' recorders): the limit
	// still holds without the deadline.
	_ = rc.SetReadDeadline(time.Now().Add(l.BodyTimeout))
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, l.MaxBody))
	if err == nil {
		// The deadline must not outlive the body: the server's read that
		// watches for the client leaving would hit it and cancel the chat.
		_ = rc.SetReadDeadline(time.Time{})
		return body, true
	}
	// The rest of the body is not worth waiting for, and the server would
	// wait for it before answering on a connection it keeps.
	w.Header().Set("Connection", "close")
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf(
			"request body is larger than %s: toolgrade serve --max-body sets the limit", humanize.IBytes(uint64(l.MaxBody))))
	case errors.Is(err, os.ErrDeadlineExceeded):
		writeError(w, http.StatusRequestTimeout, fmt.Sprintf("request body not received within %s", l.BodyTimeout))
	default:
		writeError(w, http.StatusBadRequest, err.Error())
	}
	return nil, false
}

// admission lets MaxChats chats run at once and MaxQueue more wait.
type admission struct {
	slots    chan struct{}
	waiting  atomic.Int64
	maxQueue int64
}

func newAdmission(l Limits) *admission {
	return &admission{slots: make(chan struct{}, l.MaxChats), maxQueue: int64(l.MaxQueue)}
}

// enter waits for a slot; release frees it. The error is errBusy when the
// queue is full, or ctx's when the client left while it waited.
func (a *admission) enter(ctx context.Context) (release func(), err error) {
	release = func() { <-a.slots }
	select {
	case a.slots <- struct{}{}:
		return release, nil
	default:
	}
	if a.waiting.Add(1) > a.maxQueue {
		a.waiting.Add(-1)
		return nil, errBusy
	}
	defer a.waiting.Add(-1)
	select {
	case a.slots <- struct{}{}:
		return release, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// ParseSize reads a --max-body value: bytes, or a size with a unit
// (64MiB, 100MB, 1GiB).
func ParseSize(s string) (int64, error) {
	n, err := humanize.ParseBytes(s)
	if err != nil || n == 0 || n > 1<<40 {
		return 0, fmt.Errorf("%q: want a size such as 64MiB, 100MB or 1048576 (bytes), between 1 byte and 1 TiB", s)
	}
	return int64(n), nil
}
