package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dustin/go-humanize"

	"github.com/toolgrade/toolgrade/internal/termtext"
)

// The limits' defaults. Ollama sets no body limit and no timeouts; its
// scheduler runs OLLAMA_NUM_PARALLEL requests per model and queues
// OLLAMA_MAX_QUEUE (512) more. The proxy runs tools for its callers, so it
// bounds what it holds for them too.
const (
	DefaultMaxBody     = 64 << 20
	DefaultMaxBodies   = 256 << 20
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
	// MaxBodies is the most bytes the chat bodies being read may hold
	// together, whatever the number of connections: a body that would
	// pass it is refused with 503 and Ollama's busy message (clients retry
	// it), so many large bodies at once cannot exhaust memory before any
	// is admitted. A body is held until it is decoded.
	MaxBodies int64
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
	if l.MaxBodies <= 0 {
		l.MaxBodies = max(DefaultMaxBodies, l.MaxBody)
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

// readBody reads a chat's body under the body limit, the shared budget and
// the timeout; on failure it has written the error answer and returns ok
// false. release gives the body's bytes back to the budget: call it once
// the body is decoded.
func (l Limits) readBody(w http.ResponseWriter, r *http.Request, b *budget) (body []byte, release func(), ok bool) {
	fail := func(code int, msg string) ([]byte, func(), bool) {
		// The rest of the body is not worth waiting for, and the server
		// would wait for it before answering on a connection it keeps.
		w.Header().Set("Connection", "close")
		writeError(w, code, msg)
		return nil, nil, false
	}
	tooBig := fmt.Sprintf("request body is larger than %s: toolgrade serve --max-body sets the limit", humanize.IBytes(uint64(l.MaxBody)))
	if r.ContentLength > l.MaxBody {
		return fail(http.StatusRequestEntityTooLarge, tooBig)
	}
	rc := http.NewResponseController(w)
	// Not every writer has a connection (tests' recorders): the limit
	// still holds without the deadline.
	_ = rc.SetReadDeadline(time.Now().Add(l.BodyTimeout))
	held := &holding{b: b}
	body, err := held.readAll(http.MaxBytesReader(w, r.Body, l.MaxBody), r.ContentLength)
	if err == nil {
		// The deadline must not outlive the body: the server's read that
		// watches for the client leaving would hit it and cancel the chat.
		_ = rc.SetReadDeadline(time.Time{})
		return body, held.release, true
	}
	held.release()
	var mb *http.MaxBytesError
	switch {
	case errors.As(err, &mb):
		return fail(http.StatusRequestEntityTooLarge, tooBig)
	case errors.Is(err, errBodiesFull):
		return fail(http.StatusServiceUnavailable, errBusy.Error())
	case errors.Is(err, os.ErrDeadlineExceeded):
		return fail(http.StatusRequestTimeout, fmt.Sprintf("request body not received within %s", termtext.Duration(l.BodyTimeout)))
	default:
		return fail(http.StatusBadRequest, err.Error())
	}
}

// errBodiesFull: the bodies being read already hold Limits.MaxBodies.
var errBodiesFull = errors.New("the request bodies being read hold all the memory allowed for them")

// budget is the memory every chat body being read shares.
type budget struct {
	mu        sync.Mutex
	held, max int64
	peak      int64 // the most ever held at once (tests read it)
	// chunks are the buffers bodies of unknown length are read into,
	// shared so that a body refused halfway leaves its chunks to the next
	// body rather than to the garbage collector.
	chunks sync.Pool
}

// chunk is a buffer for bodyChunk bytes of a body.
func (b *budget) chunk() *[bodyChunk]byte {
	if c, ok := b.chunks.Get().(*[bodyChunk]byte); ok {
		return c
	}
	return new([bodyChunk]byte)
}

// take reserves n bytes, or reports that the budget cannot hold them.
func (b *budget) take(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.held+n > b.max {
		return false
	}
	b.held += n
	b.peak = max(b.peak, b.held)
	return true
}

func (b *budget) give(n int64) {
	b.mu.Lock()
	b.held -= n
	b.mu.Unlock()
}

// holding is one body's share of the budget.
type holding struct {
	b *budget
	n int64
}

// bodyChunk is how much of a body of unknown length is read at a time.
const bodyChunk = 256 << 10

// readAll reads r whole, every byte it holds reserved first. A body of
// known length is read into one buffer reserved at once (all or nothing);
// one sent in chunks is read a reserved chunk at a time, then copied into
// one buffer of its size (reserved too) and its chunks handed back.
func (h *holding) readAll(r io.Reader, length int64) ([]byte, error) {
	if length >= 0 {
		if err := h.take(length + 1); err != nil { // one byte more to see the end
			return nil, err
		}
		buf := make([]byte, length+1)
		n, err := io.ReadFull(r, buf)
		switch {
		case err == io.ErrUnexpectedEOF || err == io.EOF:
			return buf[:n], nil
		case err != nil:
			return nil, err
		}
		return nil, errors.New("request body is longer than its Content-Length")
	}
	var got []*[bodyChunk]byte
	defer func() {
		for _, c := range got {
			h.b.chunks.Put(c)
		}
	}()
	total := 0
	for {
		if total == len(got)*bodyChunk {
			if err := h.take(bodyChunk); err != nil {
				return nil, err
			}
			got = append(got, h.b.chunk())
		}
		c := got[len(got)-1]
		n, err := r.Read(c[total%bodyChunk:])
		total += n
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if err := h.take(int64(total)); err != nil {
		return nil, err
	}
	buf := make([]byte, 0, total)
	for i, c := range got {
		buf = append(buf, c[:min(bodyChunk, total-i*bodyChunk)]...)
	}
	h.b.give(int64(len(got)) * bodyChunk)
	h.n -= int64(len(got)) * bodyChunk
	return buf, nil
}

// take reserves n more bytes for the body, or says the budget is full.
func (h *holding) take(n int64) error {
	if !h.b.take(n) {
		return errBodiesFull
	}
	h.n += n
	return nil
}

// release gives the body's reservation back; it may be called twice.
func (h *holding) release() {
	h.b.give(h.n)
	h.n = 0
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
