package proxy_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/toolgrade/toolgrade/internal/proxy"
)

// guardDeadline only keeps a broken test from hanging; no test here
// depends on how long anything takes.
const guardDeadline = 30 * time.Second

// TestABodyOverTheLimitIsRefusedBeforeAnythingRuns: 413 with a message
// that names the flag; Ollama and the tools never hear of it; a body
// within the limit is served.
func TestABodyOverTheLimitIsRefusedBeforeAnythingRuns(t *testing.T) {
	e := newEnvWith(t, nil, func(o *proxy.Options) { o.Limits.MaxBody = 1024 })
	big := fmt.Sprintf(`{"model":"scripted-good","messages":[{"role":"user","content":"Can I bring my dog? %s"}]}`, strings.Repeat("x", 2000))
	resp, body := post(t, e.url, "/api/chat", big)
	want := `{"error":"request body is larger than 1.0 KiB: toolgrade serve --max-body sets the limit"}`
	if resp.StatusCode != http.StatusRequestEntityTooLarge || string(body) != want {
		t.Errorf("%d %s", resp.StatusCode, body)
	}
	if n := len(e.fake.Requests()); n != 0 || e.tools.calls.Load() != 0 || len(e.rec()) != 0 {
		t.Errorf("after a refused body: %d Ollama requests, %d tool calls, %d transcripts", n, e.tools.calls.Load(), len(e.rec()))
	}
	resp, body = post(t, e.url, "/api/chat", `{"model":"scripted-good","stream":false,"messages":[{"role":"user","content":"Can I bring my dog?"}]}`)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"done":true`) {
		t.Errorf("within the limit: %d %s", resp.StatusCode, body)
	}
}

// TestChatsBeyondTheQueueGetOllamasBusyAnswer: with one chat running and
// one waiting, the next gets the 503 Ollama gives when its own queue is
// full, which Ollama's client reads as a StatusError; the waiting chat runs
// once the first one ends.
func TestChatsBeyondTheQueueGetOllamasBusyAnswer(t *testing.T) {
	e := newEnvWith(t, nil, func(o *proxy.Options) { o.Limits.MaxChats, o.Limits.MaxQueue = 1, 1 })
	stop := holdTheOnlySlot(t, e)
	second := make(chan error, 1)
	go func() {
		_, err := e.chat(t, &api.ChatRequest{Model: "scripted-good", Messages: userMsg("Can I bring my dog?")})
		second <- err
	}()
	settle(t, "the second chat waiting", func() bool { return e.proxy.Waiting() == 1 })

	_, err := e.chat(t, &api.ChatRequest{Model: "scripted-good", Messages: userMsg("Can I bring my dog?")})
	var se api.StatusError
	if !errors.As(err, &se) || se.StatusCode != http.StatusServiceUnavailable ||
		se.ErrorMessage != "server busy, please try again.  maximum pending requests exceeded" {
		t.Fatalf("beyond the queue: %#v", err)
	}
	if n := len(e.fake.Requests()); n != 1 {
		t.Errorf("Ollama saw %d chat requests while one chat ran, want 1", n)
	}
	stop()
	if err := <-second; err != nil {
		t.Errorf("the waiting chat: %v", err)
	}
	if e.proxy.Waiting() != 0 {
		t.Errorf("%d still waiting", e.proxy.Waiting())
	}
}

// TestAChatThatLeavesTheQueueRunsNothing: a client that gives up while
// its chat waits leaves no request to Ollama and no tool call behind.
func TestAChatThatLeavesTheQueueRunsNothing(t *testing.T) {
	e := newEnvWith(t, nil, func(o *proxy.Options) { o.Limits.MaxChats = 1 })
	stop := holdTheOnlySlot(t, e)
	ctx, leave := context.WithCancel(context.Background())
	second := make(chan error, 1)
	go func() {
		second <- e.client.Chat(ctx, &api.ChatRequest{Model: "scripted-good", Messages: userMsg("what time is it?")}, func(api.ChatResponse) error { return nil })
	}()
	settle(t, "the second chat waiting", func() bool { return e.proxy.Waiting() == 1 })
	leave()
	<-second
	settle(t, "the queue", func() bool { return e.proxy.Waiting() == 0 })
	stop()
	settle(t, "the tool calls", func() bool { return e.tools.running.Load() == 0 })
	if n, calls := len(e.fake.Requests()), e.tools.calls.Load(); n != 1 || calls != 1 {
		t.Errorf("Ollama saw %d chats and %d tools ran; only the first chat's 1 and 1 should have", n, calls)
	}
}

// TestASlowBodyTimesOut: a client that sends headers and then too little
// of its body gets 408, and the chat never starts.
func TestASlowBodyTimesOut(t *testing.T) {
	e := newEnvWith(t, nil, func(o *proxy.Options) { o.Limits.BodyTimeout = 100 * time.Millisecond })
	conn := dial(t, e.url.Host)
	fmt.Fprintf(conn, "POST /api/chat HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"model\":", e.url.Host)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusRequestTimeout || string(body) != `{"error":"request body not received within 100ms"}` {
		t.Errorf("%d %s", resp.StatusCode, body)
	}
	if len(e.fake.Requests()) != 0 {
		t.Error("the chat reached Ollama")
	}
}

// TestServeClosesSlowAndIdleConnections: a connection that never finishes
// its headers, and one left idle after a request, are closed by the server.
func TestServeClosesSlowAndIdleConnections(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- proxy.Serve(ctx, ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }),
			proxy.ServeOptions{ReadHeaderTimeout: 50 * time.Millisecond, IdleTimeout: 50 * time.Millisecond})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})

	slow := dial(t, ln.Addr().String())
	fmt.Fprintf(slow, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
	if b, err := io.ReadAll(slow); err != nil || (len(b) > 0 && !strings.HasPrefix(string(b), "HTTP/1.1 408")) {
		t.Errorf("half a header: read %q, %v; want the connection closed", b, err)
	}

	idle := dial(t, ln.Addr().String())
	fmt.Fprintf(idle, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
	br := bufio.NewReader(idle)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.ReadAll(resp.Body)
	if rest, err := io.ReadAll(br); err != nil || len(rest) != 0 {
		t.Errorf("after the answer an idle connection read %q, %v; want it closed", rest, err)
	}
}

// TestAClientCannotRaiseTheRoundLimit: the round limit is the proxy's;
// nothing in a request changes it.
func TestAClientCannotRaiseTheRoundLimit(t *testing.T) {
	e := newEnv(t, nil)
	body := `{"model":"scripted-weak","options":{"max_tool_rounds":50,"max_rounds":50},"max_tool_rounds":50,"messages":[{"role":"user","content":"Can I pay by card?"}]}`
	req, _ := http.NewRequest(http.MethodPost, e.url.JoinPath("/api/chat").String(), strings.NewReader(body))
	req.Header.Set("X-Toolgrade-Max-Rounds", "50")
	req.Header.Set("X-Toolgrade-Max-Tool-Rounds", "50")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.ReadAll(resp.Body)
	resp.Body.Close()
	if got := resp.Trailer.Get("X-Toolgrade-Rounds"); got != "4" {
		t.Errorf("rounds %q, want the proxy's 3 with tools and 1 without", got)
	}
}

// holdTheOnlySlot starts a chat whose tool call hangs, so it holds a turn
// until stop, which returns once the chat has ended.
func holdTheOnlySlot(t *testing.T, e *env) (stop func()) {
	t.Helper()
	hang, cancel := context.WithCancel(context.Background())
	first := make(chan error, 1)
	go func() {
		first <- e.client.Chat(hang, &api.ChatRequest{Model: "scripted-good", Messages: userMsg("hang forever")}, func(api.ChatResponse) error { return nil })
	}()
	settle(t, "the first chat's tool call", func() bool { return e.tools.running.Load() == 1 })
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); <-first }) }
	t.Cleanup(stop)
	return stop
}

// dial connects to addr and closes the connection when the test ends.
func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	conn.SetDeadline(time.Now().Add(guardDeadline))
	t.Cleanup(func() { conn.Close() })
	return conn
}

// TestOllamaDownKeepsItsPasswordOut: a request passed to an Ollama that
// does not answer gets 502 naming its URL with the password masked as
// every message of toolgrade masks it (xxxxx).
func TestOllamaDownKeepsItsPasswordOut(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	e := newEnvWith(t, nil, func(o *proxy.Options) {
		o.Upstream = &url.URL{Scheme: "http", Host: closed, User: url.UserPassword("me", "SECRET-PW")}
	})
	res, err := http.Get(e.url.JoinPath("/api/tags").String())
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	resp, body := res, b
	want := `{"error":"toolgrade serve: Ollama at http://me:xxxxx@` + closed + ` did not answer: `
	if resp.StatusCode != http.StatusBadGateway || !strings.HasPrefix(string(body), want) || strings.Contains(string(body), "SECRET") {
		t.Errorf("%d %s, want 502 starting %s", resp.StatusCode, body, want)
	}
}
