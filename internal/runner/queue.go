package runner

import (
	"context"
	"slices"
	"sync"
)

// queue is the trials of one model waiting for a host: fed in run order,
// bounded so memory does not grow with the number of trials, and taking
// back (at its front) the trials a host that went down could not run.
type queue struct {
	mu      sync.Mutex
	cond    *sync.Cond
	items   []job
	limit   int
	busy    int  // trials taken and neither finished nor handed back
	closed  bool // no more trials will be fed
	stopped bool // the context ended
	// drained, when set, is called once every trial was fed and none is
	// left or in flight: a host still being pinged then stops.
	drained func()
	// held, when set, says a trial must wait in the queue (a later repeat
	// whose case's first two have not ended: see copies): get passes over
	// it and the bound does not count it. Its answer may change only
	// before the queue hears, through finish, that a trial ended.
	held func(job) bool
}

// next is the index of the first trial not held; -1 when none is. When
// every trial was fed and none is in flight, a held one is released
// rather than wait for ever (it then runs as any other). q.mu held.
func (q *queue) next() int {
	for i, j := range q.items {
		if q.held == nil || !q.held(j) {
			return i
		}
	}
	if len(q.items) > 0 && q.closed && q.busy == 0 {
		return 0
	}
	return -1
}

// ready counts the trials not held; q.mu held.
func (q *queue) ready() int {
	if q.held == nil {
		return len(q.items)
	}
	n := 0
	for _, j := range q.items {
		if !q.held(j) {
			n++
		}
	}
	return n
}

// check calls drained once the queue is drained; q.mu held.
func (q *queue) check() {
	if q.closed && q.busy == 0 && len(q.items) == 0 && q.drained != nil {
		q.drained()
		q.drained = nil
	}
}

// newQueue makes a queue that holds up to limit fed trials and stops when
// ctx ends; stop releases its watch on ctx.
func newQueue(ctx context.Context, limit int) (*queue, func() bool) {
	q := &queue{limit: max(limit, 1)}
	q.cond = sync.NewCond(&q.mu)
	stop := context.AfterFunc(ctx, func() {
		q.mu.Lock()
		q.stopped = true
		q.mu.Unlock()
		q.cond.Broadcast()
	})
	return q, stop
}

// put adds a trial, blocking while the queue is full; false when ctx ended.
func (q *queue) put(j job) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.ready() >= q.limit && !q.stopped {
		q.cond.Wait()
	}
	if q.stopped {
		return false
	}
	q.items = append(q.items, j)
	q.cond.Broadcast()
	return true
}

// get takes the next trial; false when ctx ended, or when every trial was
// fed and none is left or in flight (one in flight may still come back).
func (q *queue) get() (job, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for {
		if q.stopped {
			return job{}, false
		}
		if i := q.next(); i >= 0 {
			j := q.items[i]
			q.items = slices.Delete(q.items, i, i+1)
			q.busy++
			q.cond.Broadcast()
			return j, true
		}
		if q.closed && q.busy == 0 {
			return job{}, false
		}
		q.cond.Wait()
	}
}

// requeue hands back a trial taken by get, to run before the others.
func (q *queue) requeue(j job) {
	q.mu.Lock()
	q.busy--
	q.items = slices.Insert(q.items, 0, j)
	q.mu.Unlock()
	q.cond.Broadcast()
}

// finish says a trial taken by get is over.
func (q *queue) finish() {
	q.mu.Lock()
	q.busy--
	q.check()
	q.mu.Unlock()
	q.cond.Broadcast()
}

func (q *queue) close() {
	q.mu.Lock()
	q.closed = true
	q.check()
	q.mu.Unlock()
	q.cond.Broadcast()
}

// idle blocks until every trial fed so far has ended (none is left or in
// flight), or the context ended.
func (q *queue) idle() {
	q.mu.Lock()
	defer q.mu.Unlock()
	for !q.stopped && (len(q.items) > 0 || q.busy > 0) {
		q.cond.Wait()
	}
}
