package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/cli"
	"github.com/toolgrade/toolgrade/internal/mcpclient"
	"github.com/toolgrade/toolgrade/internal/proxy"
	"github.com/toolgrade/toolgrade/internal/redact"
	"github.com/toolgrade/toolgrade/internal/runs"
	"github.com/toolgrade/toolgrade/internal/serversfile"
	"github.com/toolgrade/toolgrade/internal/termtext"
)

// shutdownGrace is how long serve lets the chats in progress finish after
// Ctrl-C before it cuts them.
const shutdownGrace = 5 * time.Second

// runServe is `toolgrade serve`: the bridge loop as an Ollama-compatible
// HTTP proxy (internal/proxy).
func runServe(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("serve", "", stderr)
	var f serveFlags
	f.register(fs)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if err := f.check(pos); err != nil {
		return err
	}
	policy, err := toolPolicy("serve", []string{"*"}, splitList(f.deny))
	if err != nil {
		return err
	}
	opts := proxy.Options{System: f.system, MaxRounds: f.maxRounds, Tools: policy, Log: f.logger(stderr), Limits: f.limits}
	if opts.CORSOrigins, opts.AllowHosts, err = proxy.Allowed(f.listen, f.ollama, f.origins, f.hosts, os.Getenv, os.Hostname); err != nil {
		return cli.AsUsage(err)
	}
	cfg, err := serversfile.Load(ctx, f.servers.file)
	if err != nil {
		return cli.AsUsage(err)
	}
	if f.recordDir != "" {
		rec, err := proxy.OpenRecorder(f.recordDir)
		if err != nil {
			return err
		}
		defer rec.Close()
		opts.Record = rec.Record
	}
	// The seed's order: every server at once, their tools, then Ollama,
	// and only then the port, so a wrong URL fails before anyone connects.
	cat, err := connectServers(ctx, cfg, &f.servers, stderr)
	if err != nil {
		return err
	}
	defer cat.Close()
	ol, err := dialOllama(ctx, f.ollama, &f.timeouts)
	if err != nil {
		return err
	}
	policy.Tools, policy.Info = cat, cat
	opts.Upstream, opts.Chat, opts.Health = ol.Base, ol.Chat, serveHealth(cfg, cat, ol)
	p, err := proxy.New(opts)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", f.listen)
	if err != nil {
		return runs.AsInfra(fmt.Errorf("serve: %w", err))
	}
	fmt.Fprintf(stderr, "toolgrade serve: listening on http://%s: Ollama %s at %s, %s from %s\n", ln.Addr(), ol.Version,
		redact.URL(ol.Base.String()), termtext.Count(len(cat.Tools()), "tool"), termtext.Count(len(cfg.Servers)-len(cat.Failed()), "server"))
	if err := writeAddrFile(f.addrFile, ln); err != nil {
		return err
	}
	so := proxy.ServeOptions{Grace: shutdownGrace, Stopping: func() { fmt.Fprintln(stderr, "toolgrade serve: stopping") }}
	if err := proxy.Serve(ctx, ln, p, so); err != nil {
		return runs.AsInfra(fmt.Errorf("serve: %w", err))
	}
	return ctx.Err()
}

// serveFlags are serve's flags.
type serveFlags struct {
	servers                    serverFlags
	timeouts                   ollamaTimeouts
	ollama, listen, system     string
	recordDir, logFormat, deny string
	addrFile                   string
	maxRounds                  int
	origins, hosts             stringList
	maxBody, maxBodies         string
	limits                     proxy.Limits
}

func (f *serveFlags) register(fs *flag.FlagSet) {
	f.servers.register(fs)
	f.timeouts.register(fs)
	fs.StringVar(&f.ollama, "ollama", "", "Ollama `URL` (default: OLLAMA_HOST, else http://127.0.0.1:11434)")
	fs.StringVar(&f.listen, "listen", "127.0.0.1:11500", "loopback `ADDR` to listen on (port 0: any free port)")
	fs.IntVar(&f.maxRounds, "max-tool-rounds", bridge.DefaultMaxRounds, "requests of one chat that may offer tools before one last request without them")
	fs.StringVar(&f.system, "system", "", "system prompt `TEXT` for chats that do not start with their own")
	fs.Var(&f.origins, "cors-origin", "browser `ORIGIN` allowed to call the proxy besides its own address (* for any, or one * as a wildcard); repeatable; OLLAMA_ORIGINS adds more")
	fs.Var(&f.hosts, "allow-host", "Host `NAME` let in beside loopback names and addresses (one that points at this machine); repeatable")
	fs.StringVar(&f.recordDir, "record", "", "append every conversation served to `DIR`/transcripts.jsonl")
	fs.StringVar(&f.logFormat, "log-format", "text", "request log lines on stderr, `text|json`")
	fs.StringVar(&f.deny, "deny-tools", "", "comma-separated tool `PATTERNS` never to run (the model is told the tool was not run)")
	fs.StringVar(&f.maxBody, "max-body", "64MiB", "largest chat request `SIZE` read (bytes, or 100MB, 1GiB); larger ones get 413")
	fs.StringVar(&f.maxBodies, "max-bodies", "256MiB", "most `SIZE` the chat bodies being read may hold together; a body past it gets 503 server busy")
	fs.IntVar(&f.limits.MaxChats, "max-chats", proxy.DefaultMaxChats, "chats whose loops run at once; more wait their turn")
	fs.IntVar(&f.limits.MaxQueue, "max-queue", proxy.DefaultMaxQueue, "chats that may wait for a turn; one more gets 503 server busy, as from Ollama")
	fs.StringVar(&f.addrFile, "addr-file", "", "write the address it listens on to `FILE` once listening (for scripts using --listen 127.0.0.1:0)")
}

// check refuses the flags and arguments serve cannot run with.
func (f *serveFlags) check(pos []string) error {
	switch {
	case len(pos) > 0:
		return cli.Usagef("serve: unexpected argument %q", pos[0])
	case f.servers.file == "":
		return cli.Usagef("serve: --servers FILE is required")
	case f.maxRounds < 1:
		return cli.Usagef("serve: --max-tool-rounds %d: must be at least 1", f.maxRounds)
	case f.logFormat != "text" && f.logFormat != "json":
		return cli.Usagef("serve: --log-format %q: must be text or json", f.logFormat)
	case f.limits.MaxChats < 1:
		return cli.Usagef("serve: --max-chats %d: must be at least 1", f.limits.MaxChats)
	case f.limits.MaxQueue < 1:
		return cli.Usagef("serve: --max-queue %d: must be at least 1", f.limits.MaxQueue)
	}
	n, err := cli.ParseSize(f.maxBody)
	if err != nil {
		return cli.Usagef("serve: --max-body %v", err)
	}
	f.limits.MaxBody = n
	if n, err = cli.ParseSize(f.maxBodies); err != nil {
		return cli.Usagef("serve: --max-bodies %v", err)
	}
	if n < f.limits.MaxBody {
		return cli.Usagef("serve: --max-bodies %s is less than --max-body %s: no body could be read; raise --max-bodies", f.maxBodies, f.maxBody)
	}
	f.limits.MaxBodies = n
	return cli.AsUsage(proxy.LoopbackOnly(f.listen))
}

// logger writes the request log lines on stderr in --log-format.
func (f *serveFlags) logger(stderr io.Writer) *slog.Logger {
	if f.logFormat == "json" {
		return slog.New(slog.NewJSONHandler(stderr, nil))
	}
	return slog.New(slog.NewTextHandler(stderr, nil))
}

// writeAddrFile writes the address ln listens on to path ("": nowhere), for
// scripts that listen on port 0; it closes ln when it cannot.
func writeAddrFile(path string, ln net.Listener) error {
	if path == "" {
		return nil
	}
	if err := os.WriteFile(path, []byte(ln.Addr().String()+"\n"), 0o644); err != nil {
		ln.Close()
		return err
	}
	return nil
}

// serveHealth reports Ollama's version and every server's state.
func serveHealth(cfg *serversfile.Config, cat *mcpclient.Catalog, ol *runs.Conn) proxy.HealthFunc {
	tools := map[string]int{}
	for _, t := range cat.Tools() {
		tools[t.Server]++
	}
	skipped := map[string]error{}
	for _, f := range cat.Failed() {
		skipped[f.Name] = f.Err
	}
	return func(ctx context.Context) proxy.Health {
		h := proxy.Health{Status: "ok", Ollama: proxy.OllamaHealth{URL: redact.URL(ol.Base.String())}}
		var reasons []string
		v, err := ol.Models.Version(ctx)
		if err != nil {
			h.Ollama.Error = termtext.Printable(err.Error())
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
