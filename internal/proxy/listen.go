package proxy

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"slices"
	"time"

	"github.com/toolgrade/toolgrade/internal/llm"
)

// LoopbackOnly refuses a listen address that is not on this machine: the
// proxy runs tools for whoever calls it, and has no authentication.
func LoopbackOnly(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--listen %q: %v", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("--listen %q: serve listens on loopback only (127.0.0.1, ::1 or localhost): it runs tools for whoever calls it", addr)
}

// Allowed gathers who may call a proxy listening on listen beside its own
// loopback address, for Options.CORSOrigins and Options.AllowHosts: the
// origins of OLLAMA_ORIGINS (read with getenv, as Ollama reads it) and of
// origins; the Host names of hosts, of listen and of the Ollama behind it
// (ollamaFlag, else OLLAMA_HOST: names the user gave), and this machine's
// name (hostname), which Ollama lets in too.
func Allowed(listen, ollamaFlag string, origins, hosts []string, getenv func(string) string, hostname func() (string, error)) (allowOrigins, allowHosts []string, err error) {
	allowOrigins, err = ParseOrigins(getenv("OLLAMA_ORIGINS"))
	if err != nil {
		return nil, nil, fmt.Errorf("serve: OLLAMA_ORIGINS: %v", err)
	}
	for _, o := range origins {
		if err := CheckOrigin(o); err != nil {
			return nil, nil, fmt.Errorf("serve: --cors-origin: %v", err)
		}
	}
	allowOrigins = append(allowOrigins, origins...)
	ollama, err := llm.Endpoint(ollamaFlag)
	if err != nil {
		return nil, nil, err
	}
	host, _, _ := net.SplitHostPort(listen)
	allowHosts = append(slices.Clone(hosts), host, ollama.Hostname())
	if name, err := hostname(); err == nil {
		allowHosts = append(allowHosts, name)
	}
	return allowOrigins, allowHosts, nil
}

// Serve serves h on ln until ctx ends, then lets the requests in progress
// finish for up to grace before it cuts them; stopping, when set, is called
// as it begins to stop. The error is the listener's when it failed first;
// nil once ctx ended.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, grace time.Duration, stopping func()) error {
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	if stopping != nil {
		stopping()
	}
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		hs.Close()
	}
	<-errc
	return nil
}
