package llm

import (
	"context"
	"errors"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/fakes/rig"
)

func TestIdleChatterEndsAStalledStream(t *testing.T) {
	script := &fakeollama.Script{
		Models: []fakeollama.Model{{Name: "m"}},
		Rules:  []fakeollama.Rule{{User: &fakeollama.Matcher{Contains: "stall"}, Fault: fakeollama.FaultStall, Reply: fakeollama.Reply{Content: "one two three", Chunks: 3}}},
	}
	_, base := rig.Ollama(t, script, &fakeollama.Options{})
	c := &IdleChatter{Next: NewClient(base), Idle: 100 * time.Millisecond}
	// A guard against a deadlock only: the idle timer ends the request long before.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var chunks []string
	err := c.Chat(ctx, &api.ChatRequest{Model: "m", Messages: []api.Message{{Role: "user", Content: "stall please"}}},
		func(r api.ChatResponse) error { chunks = append(chunks, r.Message.Content); return nil })
	var ie *IdleError
	if !errors.As(err, &ie) || err.Error() != "no response from Ollama for 100ms" || ctx.Err() != nil {
		t.Fatalf("err %v (ctx %v)", err, ctx.Err())
	}
	if len(chunks) != 1 {
		t.Errorf("chunks before the stall: %q", chunks)
	}
	// A stream that keeps coming is never cut, however long it lasts in all.
	if err := c.Chat(ctx, &api.ChatRequest{Model: "m", Messages: []api.Message{{Role: "user", Content: "hello"}}},
		func(api.ChatResponse) error { return nil }); err != nil {
		t.Errorf("a healthy stream: %v", err)
	}
}

// silentListener accepts connections and never answers, as a hung server.
func silentListener(t *testing.T) *url.URL {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var conns []net.Conn
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		for _, c := range conns {
			c.Close()
		}
	})
	base, _ := url.Parse("http://" + ln.Addr().String())
	return base
}

func TestChecksOfAHungOllamaTimeOut(t *testing.T) {
	base := silentListener(t)
	o := &Ollama{Client: NewClient(base), Base: base, Timeout: 100 * time.Millisecond}
	ctx := context.Background()
	_, err := o.Version(ctx)
	var te *TimeoutError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "Ollama at "+base.String()+" did not answer its version request within 100ms") {
		t.Errorf("Version: %v", err)
	}
	if _, err := o.Check(ctx, "m"); !errors.As(err, &te) {
		t.Errorf("Check: %v", err)
	}
	if err := o.Ping(ctx); !errors.As(err, &te) {
		t.Errorf("Ping: %v", err)
	}
}
