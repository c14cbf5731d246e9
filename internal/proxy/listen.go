package proxy

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"slices"
	"sync"
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

// The connection timeouts' defaults. Ollama sets none; a proxy that waits
// forever for a header or keeps every idle connection can be held open by
// anyone on the machine.
const (
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultIdleTimeout       = 2 * time.Minute
)

// ServeOptions configure Serve; every zero value is documented.
type ServeOptions struct {
	// Grace is how long the requests in progress may finish once ctx
	// ends, before they are cut; zero cuts them at once.
	Grace time.Duration
	// Stopping, when set, is called as Serve begins to stop.
	Stopping func()
	// ReadHeaderTimeout is how long a client may take to send a request's
	// headers; zero: DefaultReadHeaderTimeout. A chat's body has its own
	// limit (Limits.BodyTimeout); streams out have none, since an answer
	// takes as long as the model.
	ReadHeaderTimeout time.Duration
	// IdleTimeout is how long a kept-alive connection may wait for its
	// next request; zero: DefaultIdleTimeout.
	IdleTimeout time.Duration
}

// Serve serves h on ln until ctx ends, then stops as o says. The error is
// the listener's when it failed first; nil once ctx ended.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, o ServeOptions) error {
	hs := &http.Server{Handler: h, ReadHeaderTimeout: o.ReadHeaderTimeout, IdleTimeout: o.IdleTimeout}
	// net/http counts a connection that has sent nothing yet as busy for
	// its first 5 s, so one such connection (a browser's preconnect, a
	// client's pool) would hold every stop for the whole grace. Stopping
	// closes them: no request of theirs has begun.
	var fresh sync.Map
	hs.ConnState = func(c net.Conn, st http.ConnState) {
		if st == http.StateNew {
			fresh.Store(c, struct{}{})
		} else {
			fresh.Delete(c)
		}
	}
	hs.RegisterOnShutdown(func() {
		fresh.Range(func(c, _ any) bool {
			c.(net.Conn).Close()
			return true
		})
	})
	if hs.ReadHeaderTimeout <= 0 {
		hs.ReadHeaderTimeout = DefaultReadHeaderTimeout
	}
	if hs.IdleTimeout <= 0 {
		hs.IdleTimeout = DefaultIdleTimeout
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	if o.Stopping != nil {
		o.Stopping()
	}
	sctx, cancel := context.WithTimeout(context.Background(), o.Grace)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		hs.Close()
	}
	<-errc
	return nil
}
