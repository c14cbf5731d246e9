// Package backoff is how toolgrade waits before trying again: after an
// infrastructure error of a trial, a model's warm-up, a judge or an author
// request, or a tool server's restart. One wait that honours cancellation,
// and one first delay that doubles, so every retry paces itself alike.
package backoff

import (
	"context"
	"time"
)

// First is the wait before the first retry when a caller sets none; each
// later wait doubles it.
const First = 500 * time.Millisecond

// Sleep waits for d, or until ctx ends (its error then).
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Before is the wait before retry n (1 for the first) that starts at first
// (First when not positive) and doubles.
func Before(n int, first time.Duration) time.Duration {
	if first <= 0 {
		first = First
	}
	return first << max(n-1, 0)
}
