package backoff

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestBefore(t *testing.T) {
	for _, tt := range []struct {
		n     int
		first time.Duration
		want  time.Duration
	}{{1, 0, First}, {2, 0, 2 * First}, {3, time.Second, 4 * time.Second}, {0, time.Second, time.Second}} {
		if got := Before(tt.n, tt.first); got != tt.want {
			t.Errorf("Before(%d, %v) = %v, want %v", tt.n, tt.first, got, tt.want)
		}
	}
}

// TestSleepEndsWithItsContext: a cancelled wait returns at once, with the
// context's error.
func TestSleepEndsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep = %v, want context.Canceled", err)
	}
	if err := Sleep(context.Background(), time.Millisecond); err != nil {
		t.Errorf("Sleep = %v", err)
	}
}
