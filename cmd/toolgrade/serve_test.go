package main

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/internal/proxy"
	"github.com/toolgrade/toolgrade/internal/record"
)

func TestServeWithOllamaDownExitsThreeWithoutBinding(t *testing.T) {
	t.Parallel()
	docs := serversFile(t, "docs")
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := "http://" + ln.Addr().String()
	ln.Close()
	// The port serve is told to listen on is taken: had serve bound before
	// checking Ollama, it would fail on the port instead.
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	addrFile := filepath.Join(t.TempDir(), "addr")
	r := runCLI(t, context.Background(), "serve", "--servers", docs, "--ollama", closed, "--listen", taken.Addr().String(), "--addr-file", addrFile)
	if r.code != exitInfra {
		t.Fatalf("code %d, err %v", r.code, r.err)
	}
	for _, w := range []string{"cannot reach Ollama at " + closed, "ollama serve", "OLLAMA_HOST"} {
		if !strings.Contains(r.err.Error(), w) {
			t.Errorf("error %q lacks %q (ask's message)", r.err, w)
		}
	}
	if _, err := os.Stat(addrFile); err == nil || strings.Contains(r.stderr, "listening") {
		t.Errorf("serve bound a port: stderr %q", r.stderr)
	}
}

func TestServeListensOnLoopbackOnly(t *testing.T) {
	t.Parallel()
	r := runCLI(t, context.Background(), "serve", "--servers", "x.json", "--listen", "0.0.0.0:11500")
	if r.code != exitUsage || !strings.Contains(r.err.Error(), "loopback only") {
		t.Errorf("code %d, err %v", r.code, r.err)
	}
}

// startServe runs serve with args on a free loopback port and returns its
// base URL and a stop that ends it (once; later calls return the same).
func startServe(t *testing.T, args ...string) (base string, stop func() result) {
	t.Helper()
	addrFile := filepath.Join(t.TempDir(), "addr")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan result, 1)
	go func() {
		done <- runCLI(t, ctx, append([]string{"serve", "--listen", "127.0.0.1:0", "--addr-file", addrFile}, args...)...)
	}()
	var r *result
	stop = func() result {
		if r == nil {
			cancel()
			res := <-done
			r = &res
		}
		return *r
	}
	var addr string
	for deadline := time.Now().Add(30 * time.Second); addr == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		b, _ := os.ReadFile(addrFile)
		addr = strings.TrimSpace(string(b))
	}
	if addr == "" {
		res := stop()
		t.Fatalf("serve did not start: %v\n%s", res.err, res.stderr)
	}
	return "http://" + addr, stop
}

// TestServeGuard: serve lets in the origins of OLLAMA_ORIGINS and
// --cors-origin and the names of --allow-host, and refuses the rest with
// 403 before anything runs (the rules themselves: internal/proxy).
func TestServeGuard(t *testing.T) {
	script, err := fakeollama.DemoScript()
	if err != nil {
		t.Fatal(err)
	}
	ollama := httptest.NewServer(fakeollama.New(script, &fakeollama.Options{}))
	defer ollama.Close()
	t.Setenv("OLLAMA_ORIGINS", `"http://env.example, https://*.env.example"`)
	base, stop := startServe(t, "--servers", serversFile(t, "docs"), "--ollama", ollama.URL,
		"--cors-origin", "http://flag.example", "--allow-host", "mybox.test")
	defer stop()
	for _, c := range []struct {
		origin, host string
		status       int
	}{
		{"", "", 200},
		{"http://env.example", "", 200},
		{"https://a.env.example", "", 200},
		{"http://flag.example", "", 200},
		{"http://evil.example", "", 403},
		{"http://localhost:3000", "", 403},
		{"", "mybox.test:11500", 200},
		{"", "evil.example:11500", 403},
	} {
		req, _ := http.NewRequest("POST", base+"/api/chat",
			strings.NewReader(`{"model":"scripted-good","stream":false,"messages":[{"role":"user","content":"Can I bring my dog?"}]}`))
		req.Header.Set("Content-Type", "text/plain")
		if c.origin != "" {
			req.Header.Set("Origin", c.origin)
		}
		if c.host != "" {
			req.Host = c.host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.status {
			t.Errorf("Origin %q, Host %q: %d, want %d", c.origin, c.host, resp.StatusCode, c.status)
		}
	}
	if r := stop(); !strings.Contains(r.stderr, `"refused":"host \"evil.example:11500\" is not a loopback name`) &&
		!strings.Contains(r.stderr, `refused="host \"evil.example:11500\" is not a loopback name`) {
		t.Errorf("the refusal is not logged with its reason:\n%s", r.stderr)
	}
}

func TestServeRefusesABadOrigin(t *testing.T) {
	for _, c := range []struct{ env, flag, want string }{
		{"http://a.example,,http://b.example", "", "OLLAMA_ORIGINS: an empty origin"},
		{"", "app.example", `--cors-origin: origin "app.example": must start with http://`},
		{"", "http://*.*.example", "only one * is allowed"},
	} {
		t.Setenv("OLLAMA_ORIGINS", c.env)
		args := []string{"serve", "--servers", serversFile(t, "docs"), "--ollama", "http://127.0.0.1:1"}
		if c.flag != "" {
			args = append(args, "--cors-origin", c.flag)
		}
		r := runCLI(t, context.Background(), args...)
		if r.code != exitUsage || !strings.Contains(r.err.Error(), c.want) {
			t.Errorf("%+v: code %d, err %v", c, r.code, r.err)
		}
	}
}

// TestServeRefusesBadLimits: each limit flag says what it wants.
func TestServeRefusesBadLimits(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ flag, value, want string }{
		{"--max-body", "lots", `serve: --max-body "lots": want a size such as 64MiB`},
		{"--max-body", "0", `serve: --max-body "0": want a size`},
		{"--max-chats", "0", "serve: --max-chats 0: must be at least 1"},
		{"--max-queue", "-1", "serve: --max-queue -1: must be at least 1"},
	} {
		r := runCLI(t, context.Background(), "serve", "--servers", serversFile(t, "docs"), "--ollama", "http://127.0.0.1:1", c.flag, c.value)
		if r.code != exitUsage || r.err == nil || !strings.Contains(r.err.Error(), c.want) {
			t.Errorf("%s %s: code %d, err %v", c.flag, c.value, r.code, r.err)
		}
	}
}

// TestServe runs serve over real stdio servers, one of them broken, and
// talks to it over HTTP as any client would.
func TestServe(t *testing.T) {
	script, err := fakeollama.DemoScript()
	if err != nil {
		t.Fatal(err)
	}
	ollama := httptest.NewServer(fakeollama.New(script, &fakeollama.Options{}))
	defer ollama.Close()
	url := ollama.URL
	cfg := serversFile(t, "docs", "broken")
	dir := t.TempDir()
	base, stop := startServe(t, "--servers", cfg, "--ollama", url, "--record", filepath.Join(dir, "rec"), "--log-format", "json")
	defer stop()

	resp, err := http.Get(base + "/health")
	if err != nil {
		t.Fatal(err)
	}
	var h proxy.Health
	json.NewDecoder(resp.Body).Decode(&h)
	resp.Body.Close()
	if resp.StatusCode != 200 || h.Status != "ok" || h.Ollama.Version != "0.17.4" || len(h.Servers) != 2 ||
		h.Servers[0].Name != "broken" || h.Servers[0].Status != "skipped" || h.Servers[1].Name != "docs" || h.Servers[1].Tools != 3 {
		t.Errorf("health %d %+v", resp.StatusCode, h)
	}

	resp, err = http.Post(base+"/api/chat", "application/json",
		strings.NewReader(`{"model":"scripted-good","stream":false,"messages":[{"role":"user","content":"Can I bring my dog?"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var chat struct {
		Message struct{ Content string }
		Done    bool
	}
	json.NewDecoder(resp.Body).Decode(&chat)
	resp.Body.Close()
	if !chat.Done || chat.Message.Content != "Yes. Dogs are welcome on the terrace." {
		t.Errorf("chat %+v", chat)
	}

	// Ollama gone: 503, saying so.
	ollama.Close()
	resp, err = http.Get(base + "/health")
	if err != nil {
		t.Fatal(err)
	}
	h = proxy.Health{}
	json.NewDecoder(resp.Body).Decode(&h)
	resp.Body.Close()
	if resp.StatusCode != 503 || h.Status != "unavailable" || h.Reason != "Ollama does not answer" || !strings.Contains(h.Ollama.Error, "cannot reach Ollama") {
		t.Errorf("health without Ollama %d %+v", resp.StatusCode, h)
	}

	r := stop()
	if r.code != exitInterrupted {
		t.Errorf("code %d, err %v", r.code, r.err)
	}
	if !strings.Contains(r.stderr, `server "broken" skipped`) {
		t.Errorf("the failed server is not named: %s", r.stderr)
	}
	var logged bool
	for _, l := range strings.Split(r.stderr, "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil && m["path"] == "/api/chat" && m["status"] == 200.0 && m["rounds"] == 2.0 && m["tool_calls"] == 1.0 {
			logged = true
		}
	}
	if !logged {
		t.Errorf("no JSON log line for the chat:\n%s", r.stderr)
	}
	f, err := os.Open(filepath.Join(dir, "rec", proxy.TranscriptsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var n int
	for sc := bufio.NewScanner(f); sc.Scan(); n++ {
		var tr record.Transcript
		if err := json.Unmarshal(sc.Bytes(), &tr); err != nil || tr.Answer != chat.Message.Content || len(tr.Rounds) != 2 {
			t.Errorf("line %d: %v %+v", n+1, err, tr)
		}
	}
	if n != 1 {
		t.Errorf("%d transcripts recorded", n)
	}
	for deadline := time.Now().Add(10 * time.Second); len(children(t)) > 0 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if c := children(t); len(c) > 0 {
		t.Errorf("child processes left: %v", c)
	}
}
