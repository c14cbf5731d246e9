package proxy_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/internal/proxy"
)

// guardOrigins are the origins both servers are given: the proxy as
// CORSOrigins (newEnv), a real Ollama as OLLAMA_ORIGINS.
const guardOrigins = "http://app.example,https://*.example.com"

// guardRow is one request and what each server decides: "ok" (let in, no
// CORS headers), "cors" (let in, with them) or "403". {port} is the port of
// the server asked.
type guardRow struct {
	name, method, origin, host string
	ollama, proxy              string
	why                        string // where the two differ
}

// guardRows are the guard's rules. The ollama column is Ollama's decision
// as read from its server (gin-contrib/cors over envconfig.AllowedOrigins,
// then allowedHostsMiddleware) and as TestGuardMatchesARealOllama checks
// against one.
var guardRows = []guardRow{
	{name: "CLI on 127.0.0.1", method: "GET", host: "127.0.0.1:{port}", ollama: "ok", proxy: "ok"},
	{name: "CLI on localhost", method: "GET", host: "localhost:{port}", ollama: "ok", proxy: "ok"},
	{name: "CLI on ::1", method: "GET", host: "[::1]:{port}", ollama: "ok", proxy: "ok"},
	{name: "CLI on 0.0.0.0", method: "GET", host: "0.0.0.0:{port}", ollama: "ok", proxy: "ok"},
	{name: "a name under .localhost", method: "GET", host: "app.localhost:{port}", ollama: "ok", proxy: "ok"},
	{name: "DNS rebinding", method: "GET", host: "evil.example:{port}", ollama: "403", proxy: "403"},
	{name: "a public address as Host", method: "GET", host: "8.8.8.8:{port}", ollama: "403", proxy: "403"},
	{name: "a .local name", method: "GET", host: "printer.local:{port}", ollama: "ok", proxy: "403",
		why: "a proxy listening on loopback is reached by no .local name honestly"},
	{name: "a .internal name", method: "GET", host: "db.internal:{port}", ollama: "ok", proxy: "403",
		why: "a proxy listening on loopback is reached by no .internal name honestly"},
	{name: "a private address as Host", method: "GET", host: "192.168.1.5:{port}", ollama: "ok", proxy: "403",
		why: "a proxy listening on loopback is not at a private address"},
	{name: "a web page elsewhere", method: "GET", origin: "http://evil.example", host: "127.0.0.1:{port}", ollama: "403", proxy: "403"},
	{name: "its preflight", method: "OPTIONS", origin: "http://evil.example", host: "127.0.0.1:{port}", ollama: "403", proxy: "403"},
	{name: "a sandboxed or file page", method: "GET", origin: "null", host: "127.0.0.1:{port}", ollama: "403", proxy: "403"},
	{name: "a rebound page, same origin", method: "GET", origin: "http://evil.example:{port}", host: "evil.example:{port}", ollama: "403", proxy: "403"},
	{name: "same origin", method: "GET", origin: "http://127.0.0.1:{port}", host: "127.0.0.1:{port}", ollama: "ok", proxy: "ok"},
	{name: "same origin, https", method: "GET", origin: "https://localhost:{port}", host: "localhost:{port}", ollama: "ok", proxy: "ok"},
	{name: "loopback origin, own port", method: "GET", origin: "http://localhost:{port}", host: "127.0.0.1:{port}", ollama: "cors", proxy: "cors"},
	{name: "its preflight, own port", method: "OPTIONS", origin: "http://localhost:{port}", host: "127.0.0.1:{port}", ollama: "cors", proxy: "cors"},
	{name: "0.0.0.0 origin, own port", method: "GET", origin: "http://0.0.0.0:{port}", host: "127.0.0.1:{port}", ollama: "cors", proxy: "cors"},
	{name: "loopback origin, other port", method: "GET", origin: "http://localhost:3000", host: "127.0.0.1:{port}", ollama: "cors", proxy: "403",
		why: "any local web app could run the user's tools; allow it with --cors-origin"},
	{name: "loopback origin, no port", method: "GET", origin: "http://127.0.0.1", host: "127.0.0.1:{port}", ollama: "cors", proxy: "403",
		why: "port 80 is not the proxy's"},
	{name: "::1 origin, own port", method: "GET", origin: "http://[::1]:{port}", host: "127.0.0.1:{port}", ollama: "403", proxy: "403"},
	{name: "an app:// page", method: "GET", origin: "app://obsidian.md", host: "127.0.0.1:{port}", ollama: "cors", proxy: "403",
		why: "desktop apps' pages are allowed by Ollama by default; give them to --cors-origin"},
	{name: "a VS Code webview", method: "GET", origin: "vscode-webview://abc", host: "127.0.0.1:{port}", ollama: "cors", proxy: "403",
		why: "as app://"},
	{name: "an origin given", method: "GET", origin: "http://app.example", host: "127.0.0.1:{port}", ollama: "cors", proxy: "cors"},
	{name: "its preflight, given", method: "OPTIONS", origin: "http://app.example", host: "127.0.0.1:{port}", ollama: "cors", proxy: "cors"},
	{name: "a given pattern", method: "GET", origin: "https://a.example.com", host: "127.0.0.1:{port}", ollama: "cors", proxy: "cors"},
	{name: "the pattern's scheme differs", method: "GET", origin: "http://a.example.com", host: "127.0.0.1:{port}", ollama: "403", proxy: "403"},
	{name: "an origin given, a rebound host", method: "GET", origin: "http://app.example", host: "evil.example:{port}", ollama: "403", proxy: "403"},
}

// decide sends row's request to the server at base and names its decision.
func decide(t *testing.T, base *url.URL, row guardRow) string {
	t.Helper()
	sub := func(s string) string { return strings.ReplaceAll(s, "{port}", base.Port()) }
	req, err := http.NewRequest(row.method, base.JoinPath("/api/version").String(), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = sub(row.host)
	if row.origin != "" {
		req.Header.Set("Origin", sub(row.origin))
	}
	if row.method == http.MethodOptions {
		req.Header.Set("Access-Control-Request-Method", "POST")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusForbidden:
		if len(body) != 0 {
			t.Errorf("%s: 403 with a body %q: Ollama's is empty", row.name, body)
		}
		return "403"
	case resp.StatusCode >= 300:
		t.Fatalf("%s: %s %s", row.name, resp.Status, body)
	case resp.Header.Get("Access-Control-Allow-Origin") != "":
		if got, want := resp.Header.Get("Access-Control-Allow-Origin"), sub(row.origin); got != want {
			t.Errorf("%s: Access-Control-Allow-Origin %q, want the origin %q", row.name, got, want)
		}
		return "cors"
	}
	return "ok"
}

func TestGuard(t *testing.T) {
	e := newEnv(t, nil)
	for _, row := range guardRows {
		if (row.ollama != row.proxy) != (row.why != "") {
			t.Errorf("%s: a row where the proxy differs from Ollama says why, and only such a row", row.name)
		}
		before := len(e.fake.Requests())
		if got := decide(t, e.url, row); got != row.proxy {
			t.Errorf("%s: %s, want %s", row.name, got, row.proxy)
		}
		if row.proxy == "403" && len(e.fake.Requests()) != before {
			t.Errorf("%s: refused, yet passed on to Ollama", row.name)
		}
	}
}

// TestGuardReplaysTheCaptures sends the origin and host requests captured
// from a real Ollama v0.17.4 through the proxy: the same answers, but for
// the loopback origin on another port, which the proxy refuses.
func TestGuardReplaysTheCaptures(t *testing.T) {
	e := newEnv(t, nil)
	port := e.url.Port()
	type request struct {
		method, path, origin, host, body string
		status                           int // where the proxy differs
	}
	chat := `{"model":"scripted-good","stream":false,"messages":[{"role":"user","content":"Can I bring my dog?"}]}`
	requests := map[string]request{
		"POST /api/chat with Origin: http://evil.example (a web page's simple request)": {method: "POST", path: "/api/chat", origin: "http://evil.example", body: chat},
		"OPTIONS /api/chat preflight from Origin: http://evil.example":                  {method: "OPTIONS", path: "/api/chat", origin: "http://evil.example"},
		"GET /api/tags with Host: evil.example:11435 (DNS rebinding)":                   {method: "GET", path: "/api/tags", host: "evil.example:" + port},
		"GET /api/version with Origin: http://127.0.0.1:11435 (same origin)":            {method: "GET", path: "/api/version", origin: "http://127.0.0.1:" + port},
		"GET /api/version with Origin: http://localhost:3000 (a loopback origin on another port)": {
			method: "GET", path: "/api/version", origin: "http://localhost:3000", status: http.StatusForbidden},
	}
	caps, err := fakeollama.ReadCaptures()
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, c := range caps {
		if !strings.Contains(c.Name, "Origin:") && !strings.Contains(c.Name, "Host:") {
			continue
		}
		rq, ok := requests[c.Name]
		if !ok {
			t.Errorf("capture %q: no request here replays it", c.Name)
			continue
		}
		seen++
		calls, forwarded := e.tools.calls.Load(), len(e.fake.Requests())
		req, _ := http.NewRequest(rq.method, e.url.JoinPath(rq.path).String(), strings.NewReader(rq.body))
		if rq.body != "" {
			req.Header.Set("Content-Type", "text/plain") // a simple request: no preflight first
		}
		if rq.method == http.MethodOptions {
			req.Header.Set("Access-Control-Request-Method", "POST")
		}
		if rq.origin != "" {
			req.Header.Set("Origin", rq.origin)
		}
		if rq.host != "" {
			req.Host = rq.host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		want := c.HTTPStatus
		if rq.status != 0 {
			want = rq.status
		}
		if resp.StatusCode != want {
			t.Errorf("%s: %d, want %d (Ollama: %d)", c.Name, resp.StatusCode, want, c.HTTPStatus)
		}
		if want != http.StatusForbidden {
			continue
		}
		if len(body) != 0 || (c.HTTPStatus == http.StatusForbidden && len(c.ResponseLines) != 0) {
			t.Errorf("%s: body %q, Ollama's %q: both empty", c.Name, body, c.ResponseLines)
		}
		if e.tools.calls.Load() != calls || len(e.fake.Requests()) != forwarded {
			t.Errorf("%s: refused, yet a tool ran or Ollama was asked", c.Name)
		}
	}
	if seen != len(requests) {
		t.Errorf("replayed %d captures, want %d", seen, len(requests))
	}
}

// TestGuardLogsWhy: the 403 tells a browser nothing, as Ollama's does; the
// serve log tells the user what was refused and what to do.
func TestGuardLogsWhy(t *testing.T) {
	e := newEnv(t, nil)
	req, _ := http.NewRequest("GET", e.url.JoinPath("/api/tags").String(), nil)
	req.Header.Set("Origin", "http://evil.example")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	e.mu.Lock()
	logs := e.logs.String()
	e.mu.Unlock()
	for _, want := range []string{`"status":403`, `origin \"http://evil.example\" is not allowed`, "--cors-origin"} {
		if !strings.Contains(logs, want) {
			t.Errorf("log lacks %q:\n%s", want, logs)
		}
	}
}

func TestParseOrigins(t *testing.T) {
	got, err := proxy.ParseOrigins(` "http://a.example, https://*.b.example" `)
	if err != nil || len(got) != 2 || got[0] != "http://a.example" || got[1] != "https://*.b.example" {
		t.Errorf("%q %v", got, err)
	}
	for _, bad := range []string{"http://a.example,,http://b.example", "a.example", "http://*.*.example", "null"} {
		if _, err := proxy.ParseOrigins(bad); err == nil {
			t.Errorf("%q: no error (Ollama refuses to start on it)", bad)
		}
	}
	if _, err := proxy.New(proxy.Options{Upstream: &url.URL{}, Chat: nil}); err == nil {
		t.Error("New without Chat: no error")
	}
}

// TestGuardMatchesARealOllama checks the ollama column of guardRows
// against a real Ollama server (no model needed), started from the binary
// TOOLGRADE_OLLAMA_BIN names (`go build .` in a checkout of Ollama's
// source). CI has none: its machine reaches package registries only, not
// Ollama's source; the captures stand in for it in
// TestGuardReplaysTheCaptures.
func TestGuardMatchesARealOllama(t *testing.T) {
	bin := os.Getenv("TOOLGRADE_OLLAMA_BIN")
	if bin == "" {
		t.Skip("set TOOLGRADE_OLLAMA_BIN to an ollama binary to check the rules against it")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	home := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "serve")
	cmd.Env = append(os.Environ(), "HOME="+home, "OLLAMA_MODELS="+home+"/models", "OLLAMA_HOST="+addr, "OLLAMA_ORIGINS="+guardOrigins)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); cmd.Wait() })
	base := &url.URL{Scheme: "http", Host: addr}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get(base.JoinPath("/api/version").String()); err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("ollama did not answer on %s:\n%s", addr, log.String())
		}
	}
	for _, row := range guardRows {
		if got := decide(t, base, row); got != row.ollama {
			t.Errorf("%s: Ollama decides %s, the table says %s", row.name, got, row.ollama)
		}
	}
}
