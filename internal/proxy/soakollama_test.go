package proxy_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
)

// The soak's model and its pace: every answer waits soakLatency, and every
// streamed line soakLineDelay after it, so that a client has time to leave
// mid-stream.
const (
	soakModel     = "soak"
	soakLatency   = 5 * time.Millisecond
	soakLineDelay = 4 * time.Millisecond
)

// How long the tool runs: soakToolMS for most calls, soakLongToolMS for the
// first call of a chat that leaves while it runs.
const (
	soakToolMS     = 5
	soakLongToolMS = 300
)

func soakQuestion(id int) string { return fmt.Sprintf("soak chat %d: record it", id) }

func soakAnswer(id int) string { return fmt.Sprintf("Chat %d is recorded, thank you.", id) }

// soakScript is a model that, for chat id, thinks aloud in three lines and
// calls the tool twice (steps 1 and 2), then calls it once more (step 3),
// then answers in three lines: every chat has tool calls before and after
// the first line its client sees. Each chat has rules of its own because
// the tool's arguments must name the chat.
func soakScript(chats int, mode func(id int) abortMode) *fakeollama.Script {
	s := &fakeollama.Script{Models: []fakeollama.Model{{Name: soakModel, Capabilities: []string{"completion", "tools", "thinking"}}}}
	for id := range chats {
		first := soakToolMS
		if mode(id) == abortInTool {
			first = soakLongToolMS
		}
		q := &fakeollama.Matcher{Equals: soakQuestion(id)}
		call := func(step, ms int) fakeollama.ToolCall {
			return fakeollama.Call("record", "id", id, "step", step, "sleep_ms", ms)
		}
		s.Rules = append(s.Rules,
			fakeollama.Rule{Round: 1, User: q, Reply: fakeollama.Reply{
				Thinking: fmt.Sprintf("Chat %d wants a record; I will make two.", id), Chunks: 3,
				ToolCalls: []fakeollama.ToolCall{call(1, first), call(2, soakToolMS)},
			}},
			fakeollama.Rule{Round: 2, User: q, Reply: fakeollama.Reply{ToolCalls: []fakeollama.ToolCall{call(3, soakToolMS)}}},
			fakeollama.Rule{Round: 3, User: q, Reply: fakeollama.Reply{Content: soakAnswer(id), Chunks: 3}},
		)
	}
	return s
}

// soakOllama is the fake Ollama on one loopback address, streaming slowly,
// that can be restarted: closed, every connection cut, and served again on
// the same address, as an Ollama that restarts.
type soakOllama struct {
	script *fakeollama.Script
	addr   string

	mu   sync.Mutex
	hs   *http.Server
	done chan struct{} // closed when the current server's Serve returns
}

func startSoakOllama(script *fakeollama.Script) (*soakOllama, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	o := &soakOllama{script: script, addr: ln.Addr().String()}
	o.serve(ln)
	return o, nil
}

// serve serves a fresh fake (models unloaded, as after a restart) on ln.
func (o *soakOllama) serve(ln net.Listener) {
	fake := fakeollama.New(o.script, &fakeollama.Options{Latency: soakLatency, DontRecord: true})
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fake.ServeHTTP(&slowWriter{ResponseWriter: w, ctx: r.Context(), delay: soakLineDelay}, r)
	})}
	done := make(chan struct{})
	o.mu.Lock()
	o.hs, o.done = hs, done
	o.mu.Unlock()
	go func() {
		defer close(done)
		hs.Serve(ln)
	}()
}

// restart cuts every connection and, after down, serves again on the same
// address; it returns once the address accepts connections again.
func (o *soakOllama) restart(down time.Duration) error {
	o.close()
	time.Sleep(down)
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return fmt.Errorf("listening again on %s: %w", o.addr, err)
	}
	o.serve(ln)
	return nil
}

// close stops the server and waits for its Serve to return.
func (o *soakOllama) close() {
	o.mu.Lock()
	hs, done := o.hs, o.done
	o.mu.Unlock()
	hs.Close()
	<-done
}

// slowWriter waits delay after every line the fake flushes, as a model
// that generates slowly: the proxy sees the stream arrive line by line.
type slowWriter struct {
	http.ResponseWriter
	ctx   context.Context
	delay time.Duration
}

// FlushError is what http.ResponseController's Flush calls.
func (w *slowWriter) FlushError() error {
	if err := http.NewResponseController(w.ResponseWriter).Flush(); err != nil {
		return err
	}
	t := time.NewTimer(w.delay)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-w.ctx.Done():
		return errors.New("the client left")
	}
}

func (w *slowWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
