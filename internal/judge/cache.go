package judge

import (
	"crypto/sha256"
	"encoding/json"
	"sync"

	"github.com/ollama/ollama/api"
	"github.com/toolgrade/toolgrade/internal/record"
)

// Cache remembers the judge's verdicts within a run, keyed by the request
// (model, messages, options with the seed, format), so identical requests
// (the same answer to the same case, as repeats often give) are sent once.
// A request in flight is waited for, not sent again. Failures of the
// transport are not kept, so a judge that comes back is asked again; a
// reply with no clear verdict is kept, since the same request would give
// it again. The zero Cache is empty and ready; it is safe for concurrent
// use.
type Cache struct {
	mu      sync.Mutex
	entries map[[32]byte]*entry
}

type entry struct {
	done chan struct{}
	v    record.Verdict
	keep bool
}

// Key is the cache key of req: a hash of what decides the reply.
func Key(req *api.ChatRequest) [32]byte {
	b, _ := json.Marshal(struct {
		Model    string          `json:"model"`
		Messages []api.Message   `json:"messages"`
		Options  map[string]any  `json:"options"`
		Format   json.RawMessage `json:"format"`
	}{req.Model, req.Messages, req.Options, req.Format})
	return sha256.Sum256(b)
}

// Do returns the verdict of req: the cached one (Cached set), or ask's,
// which it keeps unless keep says not to. Concurrent calls with the same
// key wait for the first.
func (c *Cache) Do(req *api.ChatRequest, ask func() (v record.Verdict, keep bool)) record.Verdict {
	k := Key(req)
	for {
		c.mu.Lock()
		if c.entries == nil {
			c.entries = map[[32]byte]*entry{}
		}
		e, found := c.entries[k]
		if !found {
			e = &entry{done: make(chan struct{})}
			c.entries[k] = e
			c.mu.Unlock()
			e.v, e.keep = ask()
			if !e.keep {
				c.mu.Lock()
				delete(c.entries, k)
				c.mu.Unlock()
			}
			close(e.done)
			return e.v
		}
		c.mu.Unlock()
		<-e.done
		if e.keep {
			v := e.v
			v.Cached, v.Attempts = true, 0
			return v
		}
		// The first failed and was not kept: ask again.
	}
}
