// Package mcpclient connects the bridge loop to MCP servers: it connects every
// server of a servers file, converts their tools into the Ollama tool list the
// model sees, and executes the model's tool calls, turning every failure into
// a result the model can read.
package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgrade/toolgrade/internal/backoff"
	"github.com/toolgrade/toolgrade/internal/redact"
	"github.com/toolgrade/toolgrade/internal/serversfile"
	"github.com/toolgrade/toolgrade/internal/termtext"
	"github.com/toolgrade/toolgrade/internal/toolschema"
)

// Naming modes for exposed tool names.
const (
	// NamingAuto exposes tools under their own names; only names that two
	// servers share become <server>__<tool>, for every server that has them.
	NamingAuto = "auto"
	// NamingPrefixed exposes every tool as <server>__<tool>.
	NamingPrefixed = "prefixed"
)

// PrefixSep joins a server name and a tool name in prefixed tool names.
const PrefixSep = "__"

// Defaults for the zero Options fields.
const (
	DefaultConnectTimeout = 30 * time.Second
	DefaultCallTimeout    = 60 * time.Second
	DefaultMaxResultBytes = 100000
	// DefaultMaxFrameBytes is four times the SDK's own limit on a stdio
	// message (mcp.DefaultMaxLineLength, 16 MiB): room for a 50 MB result.
	// Reading one costs about 75 ms and 9 MB of peak heap per MB (4 s and
	// 450 MB for 50 MB), nearly all of it the SDK's JSON decoding.
	DefaultMaxFrameBytes = 64 << 20
)

// terminateDuration is how long closing a stdio server waits after closing
// its stdin before SIGTERM, and again before SIGKILL. Short, because a
// benchmark opens and closes servers often and a server that ignores EOF
// should not stall every run.
const terminateDuration = 2 * time.Second

// Options tune Connect. A nil *Options means all defaults.
type Options struct {
	// ConnectTimeout bounds connecting to every server and listing its tools
	// (servers connect concurrently). Zero: DefaultConnectTimeout.
	ConnectTimeout time.Duration
	// CallTimeout bounds each tool call. Zero: DefaultCallTimeout.
	CallTimeout time.Duration
	// Naming is "" or NamingAuto (plain names, prefixed only on collision) or
	// NamingPrefixed (every tool prefixed). Zero: NamingAuto.
	Naming string
	// PropertyOrder is the order of each tool's properties as the model sees
	// them: PropertyOrderServer (the order of the server's tools/list JSON)
	// or PropertyOrderRequiredFirst (required ones first, in the order of
	// the required list, then the rest by name). Zero: PropertyOrderServer.
	// The order is read from the raw tools/list JSON, which the SDK
	// decodes into maps.
	PropertyOrder string
	// RequireAll makes a server that fails to connect an error of Connect.
	// Zero: failed servers are skipped and reported by Catalog.Failed.
	RequireAll bool
	// Stderr receives the stderr of stdio servers, each line prefixed with
	// "[server] ". Zero (nil): discarded.
	Stderr io.Writer
	// MaxResultBytes caps the result text the model is given; longer results
	// are cut and end with a "[... truncated N bytes]" note. Zero:
	// DefaultMaxResultBytes; negative: no limit.
	MaxResultBytes int
	// MaxFrameBytes caps one message read from a stdio server. A result
	// above MaxResultBytes but within it is read whole and truncated; a
	// longer message cannot be read, so the call fails as a server failure
	// and the server is restarted for the next call. Zero:
	// DefaultMaxFrameBytes; negative: no limit.
	MaxFrameBytes int
	// MaxRestarts caps how many times one server whose connection ended (a
	// crashed stdio server, a lost remote connection) is restarted within
	// any minute; past it, its calls fail at once until the oldest restart
	// is a minute old. Zero: DefaultMaxRestarts; negative: never restart.
	MaxRestarts int
	// RestartBackoff is how long a second restart within a minute waits
	// first; each further one waits twice as long, up to
	// MaxRestartBackoff. The first restart in a minute does not wait. Zero:
	// DefaultRestartBackoff; negative: no wait.
	RestartBackoff time.Duration
	// Now is the clock the restart limit reads. Zero (nil): time.Now.
	Now func() time.Time
	// Sleep waits out RestartBackoff, or fails when ctx ends first. Zero
	// (nil): a timer.
	Sleep func(ctx context.Context, d time.Duration) error
	// TrialDirs is the folder the directories of per-trial servers are
	// made in (see serversfile.Server.PerTrial and Catalog.StartTrial).
	// Zero: the system's temporary folder.
	TrialDirs string
}

func (o *Options) withDefaults() (Options, error) {
	var r Options
	if o != nil {
		r = *o
	}
	if r.ConnectTimeout <= 0 {
		r.ConnectTimeout = DefaultConnectTimeout
	}
	if r.CallTimeout <= 0 {
		r.CallTimeout = DefaultCallTimeout
	}
	switch r.Naming {
	case "":
		r.Naming = NamingAuto
	case NamingAuto, NamingPrefixed:
	default:
		return r, fmt.Errorf("servers: unknown naming %q (want %q or %q)", r.Naming, NamingAuto, NamingPrefixed)
	}
	switch r.PropertyOrder {
	case "":
		r.PropertyOrder = toolschema.PropertyOrderServer
	case toolschema.PropertyOrderServer, toolschema.PropertyOrderRequiredFirst:
	default:
		return r, fmt.Errorf("servers: unknown property order %q (want %q or %q)", r.PropertyOrder, toolschema.PropertyOrderServer, toolschema.PropertyOrderRequiredFirst)
	}
	if r.MaxResultBytes == 0 {
		r.MaxResultBytes = DefaultMaxResultBytes
	}
	if r.MaxFrameBytes == 0 {
		r.MaxFrameBytes = DefaultMaxFrameBytes
	}
	if r.MaxRestarts == 0 {
		r.MaxRestarts = DefaultMaxRestarts
	}
	if r.RestartBackoff == 0 {
		r.RestartBackoff = DefaultRestartBackoff
	}
	if r.Now == nil {
		r.Now = time.Now
	}
	if r.Sleep == nil {
		r.Sleep = backoff.Sleep
	}
	return r, nil
}

// ServerError records a server that could not be connected.
type ServerError struct {
	// Name is the server's name in the config.
	Name string
	Err  error
}

func (e ServerError) Error() string { return fmt.Sprintf("server %q: %v", e.Name, e.Err) }
func (e ServerError) Unwrap() error { return e.Err }

// Connect connects every server of cfg concurrently, lists all their tools
// and builds the catalog the bridge loop offers the model. A server that
// fails is skipped and reported by Failed, unless opts.RequireAll is set. The
// returned Catalog must be closed; on error nothing is left running.
func Connect(ctx context.Context, cfg *serversfile.Config, opts *Options) (*Catalog, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if cfg == nil {
		cfg = &serversfile.Config{}
	}
	servers := append([]serversfile.Server(nil), cfg.Servers...)
	sort.SliceStable(servers, func(i, j int) bool { return servers[i].Name < servers[j].Name })
	for i, s := range servers {
		if s.Name == "" {
			return nil, fmt.Errorf("servers: server %d has no name", i)
		}
		if i > 0 && servers[i-1].Name == s.Name {
			return nil, fmt.Errorf("servers: two servers are named %q", s.Name)
		}
	}

	// A per-trial server is listed from an instance of its own, in a
	// directory of its own: the catalog the model is shown.
	templates := append([]serversfile.Server(nil), servers...)
	listDirs := make([]string, len(servers))
	defer func() {
		for _, d := range listDirs {
			if d != "" {
				os.RemoveAll(d)
			}
		}
	}()
	for i, s := range servers {
		if !s.PerTrial {
			continue
		}
		d, err := listingDir(o.TrialDirs, s)
		if err != nil {
			return nil, fmt.Errorf("servers: %s: %w", s.Name, err)
		}
		listDirs[i], servers[i] = d, s.ForTrial(d)
	}

	cctx, cancel := context.WithTimeout(ctx, o.ConnectTimeout)
	defer cancel()
	stderr := newStderrSink(o.Stderr)
	conns := make([]*serverConn, len(servers))
	errs := make([]error, len(servers))
	var wg sync.WaitGroup
	for i, s := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conns[i], errs[i] = connectOne(cctx, s, cfg.Dir, stderr, o.MaxFrameBytes)
			// Checked now, not after every server is done: a server that
			// failed on its own before the deadline did not time out.
			if errs[i] != nil && cctx.Err() != nil && ctx.Err() == nil {
				errs[i] = fmt.Errorf("not connected within %s: %w", termtext.Duration(o.ConnectTimeout), errs[i])
			}
			// The SDK's errors quote the URL, and with it any key in its
			// query: every message and file must show it masked.
			errs[i] = redact.Error(errs[i], s.URL)
		}()
	}
	wg.Wait()

	life, endLife := context.WithCancel(context.WithoutCancel(ctx))
	c := &Catalog{opts: o, endLife: endLife}
	for i, sc := range conns {
		if errs[i] != nil {
			c.failed = append(c.failed, ServerError{Name: servers[i].Name, Err: errs[i]})
			continue
		}
		c.conns = append(c.conns, &server{
			cfg: servers[i], dir: cfg.Dir, stderr: stderr, opts: &c.opts, life: life,
			listed: sc.listed, raw: sc.raw, cur: sc,
			template: templates[i], ownDir: listDirs[i],
		})
		listDirs[i] = "" // the server owns it now, until Close
	}
	if err := ctx.Err(); err != nil {
		c.Close()
		return nil, fmt.Errorf("servers: connect: %w", err)
	}
	if o.RequireAll && len(c.failed) > 0 {
		msgs := make([]string, len(c.failed))
		for i, f := range c.failed {
			msgs[i] = f.Error()
		}
		c.Close()
		return nil, fmt.Errorf("servers: %d of %s failed to connect: %s", len(msgs), termtext.Count(len(servers), "server"), strings.Join(msgs, "; "))
	}
	c.build()
	return c, nil
}

// serverConn is one connected server.
type serverConn struct {
	cfg     serversfile.Server
	session *mcp.ClientSession
	// listed are the server's tools in tools/list order, before filtering.
	listed []*mcp.Tool
	// raw holds the inputSchema of each listed tool as the server wrote it,
	// by tool name, for its key order; empty when it could not be captured.
	raw map[string]json.RawMessage
	// cleanup releases what the transport left behind once the session is
	// closed: stray processes, the stderr writer, idle HTTP connections.
	cleanup func()
	// stdio is the transport of a stdio server; nil for others.
	stdio *commandTransport

	watchDone chan struct{}
	closeOnce sync.Once
	closeErr  error

	mu   sync.Mutex
	dead error // why the connection is known to be gone; nil while alive
}

// connectOne connects one server and lists its tools; on failure it leaves
// nothing running.
func connectOne(ctx context.Context, s serversfile.Server, dir string, stderr *stderrSink, maxFrame int) (*serverConn, error) {
	capture := &listCapture{}
	t, transportCleanup, tail, err := transportFor(ctx, s, dir, stderr, maxFrame, capture)
	if err != nil {
		return nil, err
	}
	// The SDK passes Connect's context on to the transport, and the SSE
	// transport ties its event stream to it: the stream would die as soon as
	// the connect timeout is released. So the transport gets a context that
	// lives as long as the session, cut short only if connecting fails.
	life, endLife := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, endLife)
	cleanup := func() {
		endLife()
		transportCleanup()
	}
	stdio, _ := t.(*commandTransport)
	// The streamable transport's connection takes session updates through
	// an unexported method a wrapper cannot pass on, so it is not wrapped:
	// its HTTP client captures the tools/list results instead.
	if _, streamable := t.(*mcp.StreamableClientTransport); !streamable {
		t = &captureTransport{t: t, cap: capture}
	}
	t = &lifetimeTransport{t: t, ctx: life}
	client := mcp.NewClient(&mcp.Implementation{Name: "toolgrade", Version: "dev"}, &mcp.ClientOptions{
		// No roots: servers such as the reference filesystem server would
		// otherwise replace their configured directories with the client's
		// (empty) roots.
		Capabilities: &mcp.ClientCapabilities{},
	})
	session, err := client.Connect(ctx, t, nil)
	if err != nil {
		cleanup()
		if said := tail.String(); said != "" {
			return nil, fmt.Errorf("%w (its stderr: %s)", err, said)
		}
		return nil, err
	}
	var listed []*mcp.Tool
	for tool, err := range session.Tools(ctx, nil) {
		if err != nil {
			session.Close()
			cleanup()
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		listed = append(listed, tool)
	}
	if !stop() {
		// The connect timeout fired just as listing finished, taking the
		// transport with it.
		session.Close()
		cleanup()
		return nil, ctx.Err()
	}
	sc := &serverConn{
		cfg:       s,
		session:   session,
		listed:    listed,
		raw:       capture.rawSchemas(),
		cleanup:   cleanup,
		stdio:     stdio,
		watchDone: make(chan struct{}),
	}
	go sc.watch()
	return sc, nil
}

// watch marks the server dead when its connection ends on its own (a crashed
// child, a closed stream), so later calls fail fast.
func (sc *serverConn) watch() {
	defer close(sc.watchDone)
	err := sc.session.Wait()
	if err == nil {
		err = mcp.ErrConnectionClosed
	}
	sc.markDead(fmt.Errorf("connection closed: %w", err))
}

// frameTooLarge reports whether the connection died of a message longer
// than the frame limit.
func (sc *serverConn) frameTooLarge() bool {
	return sc.stdio != nil && sc.stdio.frames.exceeded()
}

func (sc *serverConn) markDead(err error) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.dead == nil {
		sc.dead = err
	}
}

func (sc *serverConn) deadErr() error {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return sc.dead
}

// close ends the session and everything it started, and waits for watch.
func (sc *serverConn) close() error {
	sc.closeOnce.Do(func() {
		// A server that already died has had its failure reported through
		// the calls that found it dead; its exit status adds nothing.
		wasDead := sc.deadErr() != nil
		sc.markDead(errClosed)
		sc.closeErr = sc.session.Close()
		sc.cleanup()
		<-sc.watchDone
		// For remote servers the only close error is the best-effort
		// session DELETE failing, which nobody can act on.
		remote := sc.cfg.Dial == nil && sc.cfg.URL != ""
		if wasDead || remote || isExpectedCloseErr(sc.closeErr) {
			sc.closeErr = nil
		}
	})
	return sc.closeErr
}

// isExpectedCloseErr reports close errors that only say the server was
// already gone or was stopped by our own signal.
func isExpectedCloseErr(err error) bool {
	if err == nil || errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, os.ErrClosed) {
		return true
	}
	var ee *exec.ExitError
	return errors.As(err, &ee) && !ee.Exited() // killed by our SIGTERM/SIGKILL
}

// transportFor builds the transport for one server, a cleanup for what it
// leaves behind and, for a stdio server, the tail of its stderr.
func transportFor(ctx context.Context, s serversfile.Server, dir string, stderr *stderrSink, maxFrame int, capture *listCapture) (mcp.Transport, func(), *tailBuffer, error) {
	if s.Dial != nil {
		t, err := s.Dial(ctx)
		if err != nil {
			return nil, nil, nil, err
		}
		return t, func() {}, nil, nil
	}
	transport := s.Transport
	if transport == "" {
		transport = serversfile.TransportStdio
		if s.URL != "" {
			transport = serversfile.TransportStreamable
			if u, err := url.Parse(s.URL); err == nil && serversfile.PathEndsSSE(u.Path) {
				transport = serversfile.TransportSSE
			}
		}
	}
	switch transport {
	case serversfile.TransportStdio:
		if s.Command == "" {
			return nil, nil, nil, errors.New("no command")
		}
		cmd := exec.Command(s.Command, s.Args...)
		cmd.Env = serverEnv(s, os.Environ())
		cmd.Dir = s.Cwd
		if cmd.Dir == "" {
			cmd.Dir = dir
		}
		tail := &tailBuffer{}
		cmd.Stderr = tail
		w := stderr.writer(s.Name)
		if w != nil {
			cmd.Stderr = io.MultiWriter(w, tail)
		}
		// A grandchild that keeps stderr open must not block Wait forever.
		cmd.WaitDelay = terminateDuration
		setProcessGroup(cmd)
		cleanup := func() {
			killProcessGroup(cmd)
			if w != nil {
				w.flush()
			}
		}
		return &commandTransport{cmd: cmd, maxFrame: maxFrame}, cleanup, tail, nil
	case serversfile.TransportStreamable, serversfile.TransportSSE:
		if s.URL == "" {
			return nil, nil, nil, errors.New("no url")
		}
		// A transport of its own, so closing the catalog can drop its idle
		// connections (and their goroutines).
		base := http.DefaultTransport.(*http.Transport).Clone()
		hc := &http.Client{Transport: &headerTransport{base: base, headers: s.Headers}}
		cleanup := base.CloseIdleConnections
		if transport == serversfile.TransportSSE {
			return &mcp.SSEClientTransport{Endpoint: s.URL, HTTPClient: hc}, cleanup, nil, nil
		}
		hc.Transport = &listTee{base: hc.Transport, capture: capture}
		return &mcp.StreamableClientTransport{
			Endpoint:   s.URL,
			HTTPClient: hc,
			// The bridge never needs server-initiated messages outside a
			// call, and the standing GET would only add a stream to keep
			// alive.
			DisableStandaloneSSE: true,
		}, cleanup, nil, nil
	}
	return nil, nil, nil, fmt.Errorf("unknown transport %q", transport)
}

// lifetimeTransport connects its transport with a context of its own
// instead of the caller's.
type lifetimeTransport struct {
	t   mcp.Transport
	ctx context.Context
}

func (l *lifetimeTransport) Connect(context.Context) (mcp.Connection, error) {
	return l.t.Connect(l.ctx)
}

// headerTransport adds the configured headers to every request.
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range t.headers {
			req.Header.Set(k, v)
		}
	}
	return t.base.RoundTrip(req)
}
