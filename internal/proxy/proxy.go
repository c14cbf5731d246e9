// Package proxy is `toolgrade serve`: an HTTP server that sits where Ollama
// sits, adds the MCP servers' tools to every /api/chat, runs their calls
// through the bridge loop, and hands every other endpoint to Ollama
// unchanged, so existing clients gain tools without a change.
package proxy

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"time"

	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/record"
)

// Options configure a Server. Upstream, Chat and Tools are required; every
// other zero value is documented.
type Options struct {
	// Upstream is Ollama's base URL, where every request but /api/chat and
	// /health goes unchanged.
	Upstream *url.URL
	// Chat is the client the loop sends each round through (an
	// llm.IdleChatter around Ollama's *api.Client).
	Chat bridge.Chatter
	// Tools offers and runs the MCP tools (a bridge.Policy or a
	// *mcpclient.Catalog); it must be safe for concurrent calls, since
	// concurrent chats share it.
	Tools bridge.Toolbox
	// System, when set, is sent as the first message of every chat whose
	// messages do not start with a system message of their own; "": none.
	System string
	// MaxRounds is the loop's round limit; zero: bridge.DefaultMaxRounds.
	MaxRounds int
	// Health reports the state of Ollama and the servers for GET /health;
	// nil answers 200 with no details.
	Health HealthFunc
	// Record, when set, is given every conversation served, as it ends
	// (an infrastructure failure included); nil records nothing.
	Record func(*record.Transcript)
	// Log gets one line per request; nil logs nothing.
	Log *slog.Logger
	// CORSOrigins are the browser origins allowed to call the proxy besides
	// its own address: exact ones, "*" for any, or patterns with one "*"
	// (http://localhost:*), as in OLLAMA_ORIGINS; nil allows only pages
	// served from the proxy's own loopback address. Every other request
	// with an Origin is refused with 403, as Ollama refuses it.
	CORSOrigins []string
	// AllowHosts are Host names let in beside loopback addresses, localhost
	// and names under .localhost; nil: none, so a request whose Host names
	// anything else (DNS rebinding) is refused with 403, as Ollama refuses it.
	AllowHosts []string
	// Limits bound the chats' bodies, their number and the time their
	// bodies may take; zero values are the defaults.
	Limits Limits
	// Now is the clock for durations in logs; nil: time.Now.
	Now func() time.Time
}

// Server is the proxy, an http.Handler safe for concurrent requests.
type Server struct {
	o      Options
	pass   *httputil.ReverseProxy
	guard  *guard
	limit  Limits
	admit  *admission
	bodies *budget // what the chat bodies being read hold together
	now    func() time.Time
	log    *slog.Logger
}

// New returns a proxy configured by o.
func New(o Options) (*Server, error) {
	switch {
	case o.Upstream == nil:
		return nil, errors.New("proxy: Options.Upstream is required")
	case o.Chat == nil:
		return nil, errors.New("proxy: Options.Chat is required")
	case o.Tools == nil:
		return nil, errors.New("proxy: Options.Tools is required")
	}
	g, err := newGuard(o.CORSOrigins, o.AllowHosts)
	if err != nil {
		return nil, fmt.Errorf("proxy: %w", err)
	}
	lim := o.Limits.withDefaults()
	s := &Server{o: o, guard: g, limit: lim, admit: newAdmission(lim), bodies: &budget{max: lim.MaxBodies}, now: o.Now, log: o.Log}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	up := o.Upstream
	s.pass = &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(up)
			// Ollama sees the request as its own clients send it, with the
			// Host it expects, and no forwarding headers added.
			r.Out.Host = up.Host
			// The guard has let the origin in, so it is the proxy's to
			// answer for: Ollama would judge it by its own list and add
			// CORS headers of its own.
			r.Out.Header.Del("Origin")
		},
		// Progress streams (pull, generate, chat with no messages) reach the
		// client line by line, as they arrive.
		FlushInterval: -1,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if r.Context().Err() != nil {
				return // the client left; nobody reads an answer
			}
			writeError(w, http.StatusBadGateway, "toolgrade serve: Ollama at "+up.Redacted()+" did not answer: "+err.Error())
		},
	}
	return s, nil
}

// ServeHTTP answers one request: /api/chat through the loop, /health
// itself, everything else passed to Ollama.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	lw := &logWriter{ResponseWriter: w}
	start := s.now()
	st := &chatStats{}
	v := s.guard.check(r)
	defer func() {
		s.logRequest(r, lw.status(), st, s.now().Sub(start), v.refused)
	}()
	if v.refused != "" {
		// Ollama's answer: 403 and an empty body, before anything runs.
		lw.WriteHeader(http.StatusForbidden)
		return
	}
	if v.cors && s.cors(lw, r) {
		return
	}
	switch {
	case r.URL.Path == "/health" && (r.Method == http.MethodGet || r.Method == http.MethodHead):
		s.health(lw, r)
	case r.URL.Path == "/api/chat" && r.Method == http.MethodPost:
		s.chat(lw, r, st)
	default:
		s.pass.ServeHTTP(lw, r)
	}
}

// cors sets the CORS headers for a cross-origin request the guard let in
// and answers its preflight; it reports whether the request is answered.
func (s *Server) cors(w http.ResponseWriter, r *http.Request) bool {
	origin := r.Header.Get("Origin")
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", origin)
	h.Add("Vary", "Origin")
	h.Set("Access-Control-Expose-Headers", strings.Join([]string{headerRounds, headerToolCalls}, ", "))
	if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
		h.Set("Access-Control-Allow-Methods", "GET, POST, PUT, DELETE, HEAD, OPTIONS")
		h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, User-Agent, Accept, "+headerInclude)
		w.WriteHeader(http.StatusNoContent)
		return true
	}
	return false
}
