package proxy_test

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/toolgrade/toolgrade/internal/proxy"
)

// endless is a body of n bytes sent in chunks, with no Content-Length: the
// proxy cannot know its size before reading it.
type endless struct{ n int }

func (e *endless) Read(p []byte) (int, error) {
	if e.n <= 0 {
		return 0, io.EOF
	}
	k := min(len(p), e.n)
	for i := range p[:k] {
		p[i] = ' '
	}
	e.n -= k
	return k, nil
}

// TestBodiesShareOneBudget: 32 bodies at once, each over --max-body and
// sent in chunks, never hold more than MaxBodies together: each gets 413
// (its own limit) or 503 (the shared budget), Ollama hears of none, and
// once they are gone the budget is whole again and a chat is served. A body
// that says its size is refused before a byte is read.
func TestBodiesShareOneBudget(t *testing.T) {
	const maxBody, maxBodies = 4 << 20, 8 << 20
	e := newEnvWith(t, nil, func(o *proxy.Options) { o.Limits.MaxBody, o.Limits.MaxBodies = maxBody, maxBodies })
	var wg sync.WaitGroup
	codes := make([]int, 32)
	for i := range codes {
		wg.Go(func() {
			body := io.MultiReader(strings.NewReader(`{"model":"scripted-good","messages":[{"role":"user","content":"`), &endless{n: 6 << 20})
			req, _ := http.NewRequest("POST", e.url.JoinPath("/api/chat").String(), body)
			req.ContentLength = -1
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return // the proxy may close before the client has sent it all
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			codes[i] = resp.StatusCode
		})
	}
	wg.Wait()
	held, peak := e.proxy.Bodies()
	if peak > maxBodies || held != 0 {
		t.Errorf("the bodies held %d bytes at most (limit %d) and %d once answered, want 0", peak, maxBodies, held)
	}
	for i, c := range codes {
		if c != 0 && c != http.StatusRequestEntityTooLarge && c != http.StatusServiceUnavailable {
			t.Errorf("body %d: %d, want 413 or 503", i, c)
		}
	}
	if n := len(e.fake.Requests()); n != 0 {
		t.Errorf("Ollama saw %d requests", n)
	}

	// A body that says it is too large is refused unread.
	req, _ := http.NewRequest("POST", e.url.JoinPath("/api/chat").String(), bytes.NewReader(make([]byte, maxBody+1)))
	resp, err := http.DefaultClient.Do(req)
	if err == nil {
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Errorf("a body of %d bytes: %d, want 413", maxBody+1, resp.StatusCode)
		}
	}
	if _, peak2 := e.proxy.Bodies(); peak2 != peak {
		t.Errorf("a body refused by its length was read: the peak went from %d to %d", peak, peak2)
	}
	resp, body := post(t, e.url, "/api/chat", `{"model":"scripted-good","stream":false,"messages":[{"role":"user","content":"Can I bring my dog?"}]}`)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"done":true`) {
		t.Errorf("after the flood: %d %s", resp.StatusCode, body)
	}
}
