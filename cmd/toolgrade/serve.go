package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/llm"
	"github.com/toolgrade/toolgrade/internal/proxy"
	"github.com/toolgrade/toolgrade/internal/redact"
	"github.com/toolgrade/toolgrade/internal/servers"
	"github.com/toolgrade/toolgrade/reports"
)

// shutdownGrace is how long serve lets the chats in progress finish after
// Ctrl-C before it cuts them.
const shutdownGrace = 5 * time.Second

// runServe is `toolgrade serve`: the bridge loop as an Ollama-compatible
// HTTP proxy.
func runServe(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("serve", "", stderr)
	var sf serverFlags
	var ot ollamaTimeouts
	sf.register(fs)
	ot.register(fs)
	ollamaURL := fs.String("ollama", "", "Ollama `URL` (default: OLLAMA_HOST, else http://127.0.0.1:11434)")
	listen := fs.String("listen", "127.0.0.1:11500", "loopback `ADDR` to listen on (port 0: any free port)")
	maxRounds := fs.Int("max-tool-rounds", bridge.DefaultMaxRounds, "requests of one chat that may offer tools before one last request without them")
	system := fs.String("system", "", "system prompt for chats that do not start with their own")
	var origins, hosts stringList
	fs.Var(&origins, "cors-origin", "browser `ORIGIN` allowed to call the proxy besides its own address (* for any, or one * as a wildcard); repeatable; OLLAMA_ORIGINS adds more")
	fs.Var(&hosts, "allow-host", "Host `NAME` let in beside loopback names and addresses (one that points at this machine); repeatable")
	recordDir := fs.String("record", "", "append every conversation served to `DIR`/transcripts.jsonl")
	logFormat := fs.String("log-format", "text", "request log lines on stderr: text or json")
	deny := fs.String("deny-tools", "", "comma-separated tool `PATTERNS` never to run (the model is told the tool was not run)")
	addrFile := fs.String("addr-file", "", "write the address it listens on to `FILE` once listening (for scripts using --listen 127.0.0.1:0)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) > 0:
		return usageErrorf("serve: unexpected argument %q", pos[0])
	case sf.file == "":
		return usageErrorf("serve: --servers FILE is required")
	case *maxRounds < 1:
		return usageErrorf("serve: --max-tool-rounds %d: must be at least 1", *maxRounds)
	case *logFormat != "text" && *logFormat != "json":
		return usageErrorf("serve: --log-format %q: must be text or json", *logFormat)
	}
	if err := loopbackOnly(*listen); err != nil {
		return asUsage(err)
	}
	policy := &bridge.Policy{Allow: []string{"*"}, Deny: splitList(*deny)}
	for _, g := range policy.Deny {
		if _, err := path.Match(g, ""); err != nil {
			return usageErrorf("serve: tool pattern %q: %v", g, err)
		}
	}
	allowOrigins, allowHosts, err := serveGuard(*listen, *ollamaURL, origins, hosts)
	if err != nil {
		return asUsage(err)
	}
	cfg, err := servers.Load(sf.file)
	if err != nil {
		return asUsage(err)
	}
	var rec *proxy.Recorder
	if *recordDir != "" {
		if rec, err = proxy.OpenRecorder(*recordDir); err != nil {
			return err
		}
		defer rec.Close()
	}

	// The seed's order: every server at once, their tools, then Ollama,
	// and only then the port, so a wrong URL fails before anyone connects.
	cat, err := connectServers(ctx, cfg, &sf, stderr)
	if err != nil {
		return err
	}
	defer cat.Close()
	ol, err := dialOllama(ctx, *ollamaURL, &ot)
	if err != nil {
		return err
	}
	policy.Tools, policy.Info = cat, cat

	var handler slog.Handler = slog.NewTextHandler(stderr, nil)
	if *logFormat == "json" {
		handler = slog.NewJSONHandler(stderr, nil)
	}
	opts := proxy.Options{
		Upstream:    ol.base,
		Chat:        ol.chat,
		Tools:       policy,
		System:      *system,
		MaxRounds:   *maxRounds,
		Health:      serveHealth(cfg, cat, ol),
		Log:         slog.New(handler),
		CORSOrigins: allowOrigins,
		AllowHosts:  allowHosts,
	}
	if rec != nil {
		opts.Record = rec.Record
	}
	p, err := proxy.New(opts)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return asInfra(fmt.Errorf("serve: %w", err))
	}
	servers := len(cfg.Servers) - len(cat.Failed())
	fmt.Fprintf(stderr, "toolgrade serve: listening on http://%s: Ollama %s at %s, %d tools from %d servers\n",
		ln.Addr(), ol.version, redact.URL(ol.base.String()), len(cat.Tools()), servers)
	if *addrFile != "" {
		if err := os.WriteFile(*addrFile, []byte(ln.Addr().String()+"\n"), 0o644); err != nil {
			ln.Close()
			return err
		}
	}
	hs := &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return asInfra(fmt.Errorf("serve: %w", err))
	case <-ctx.Done():
	}
	fmt.Fprintln(stderr, "toolgrade serve: stopping")
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		hs.Close()
	}
	<-errc
	return ctx.Err()
}

// loopbackOnly refuses a listen address that is not on this machine: the
// proxy runs tools for whoever calls it, and has no authentication.
func loopbackOnly(addr string) error {
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

// serveGuard gathers who may call the proxy beside its own loopback
// address: the origins of OLLAMA_ORIGINS (read as Ollama reads it) and
// --cors-origin; the Host names of --allow-host, of --listen and of the
// Ollama behind it (names the user gave), and this machine's name, which
// Ollama lets in too.
func serveGuard(listen, ollamaFlag string, origins, hosts []string) (allowOrigins, allowHosts []string, err error) {
	allowOrigins, err = proxy.ParseOrigins(os.Getenv("OLLAMA_ORIGINS"))
	if err != nil {
		return nil, nil, fmt.Errorf("serve: OLLAMA_ORIGINS: %v", err)
	}
	for _, o := range origins {
		if err := proxy.CheckOrigin(o); err != nil {
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
	if name, err := os.Hostname(); err == nil {
		allowHosts = append(allowHosts, name)
	}
	return allowOrigins, allowHosts, nil
}

// serveHealth reports Ollama's version and every server's state.
func serveHealth(cfg *servers.Config, cat *servers.Catalog, ol *ollamaConn) proxy.HealthFunc {
	tools := map[string]int{}
	for _, t := range cat.Tools() {
		tools[t.Server]++
	}
	skipped := map[string]error{}
	for _, f := range cat.Failed() {
		skipped[f.Name] = f.Err
	}
	return func(ctx context.Context) proxy.Health {
		h := proxy.Health{Status: "ok", Ollama: proxy.OllamaHealth{URL: redact.URL(ol.base.String())}}
		var reasons []string
		v, err := ol.models.Version(ctx)
		if err != nil {
			h.Ollama.Error = reports.Printable(err.Error())
			reasons = append(reasons, "Ollama does not answer")
		}
		h.Ollama.Version = v
		down := cat.Down()
		for _, s := range cfg.Servers {
			sh := proxy.ServerHealth{Name: s.Name, Status: "up", Tools: tools[s.Name]}
			if err, ok := skipped[s.Name]; ok {
				sh.Status, sh.Error = "skipped", err.Error()
			} else if err, ok := down[s.Name]; ok {
				sh.Status, sh.Error = "down", err.Error()
				reasons = append(reasons, fmt.Sprintf("server %q is down", s.Name))
			}
			h.Servers = append(h.Servers, sh)
		}
		sort.Slice(h.Servers, func(i, j int) bool { return h.Servers[i].Name < h.Servers[j].Name })
		if len(reasons) > 0 {
			h.Status, h.Reason = "unavailable", strings.Join(reasons, "; ")
		}
		return h
	}
}

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string { return strings.Join(*s, ",") }

func (s *stringList) Set(v string) error {
	if v == "" {
		return errors.New("empty")
	}
	*s = append(*s, v)
	return nil
}
