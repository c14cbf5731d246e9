package fakeollama

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ollama/ollama/api"
)

// DefaultVersion is the version /api/version reports unless
// [Options.Version] is set.
const DefaultVersion = "0.17.4"

// Options tune a [Server]. The zero value (or nil) is ready to use.
type Options struct {
	// Seed seeds the generator of tool-call ids, so that a test sees the
	// same ids on every run; the zero value is a seed like any other.
	Seed uint64
	// Clock gives the time for created_at, modified_at and expires_at; nil
	// means time.Now.
	Clock func() time.Time
	// Version is what /api/version reports; empty means [DefaultVersion].
	Version string
	// Latency, when zero or positive, replaces every latency of the script,
	// so the zero value answers at once; a negative value keeps the
	// script's latencies.
	Latency time.Duration
	// DontRecord stops Requests from keeping what was received, for long
	// benchmarks whose memory must stay flat; false keeps every request.
	DontRecord bool
}

// Request is one HTTP request the server received.
type Request struct {
	// Method and Path are the request's method and URL path.
	Method, Path string
	// Body is the request body as sent.
	Body []byte
	// Chat is the decoded body of a POST /api/chat, nil for other requests
	// and for a body that does not decode. Do not modify it.
	Chat *api.ChatRequest
}

// Server is a fake Ollama server driven by a [Script]. It is an
// http.Handler, safe for concurrent requests.
type Server struct {
	models   []*modelInfo
	rules    []*rule
	fallback Reply
	latency  time.Duration // the script's default latency
	override time.Duration // Options.Latency
	seed     uint64
	clock    func() time.Time
	version  string
	created  time.Time // modified_at of every model
	noRecord bool      // Options.DontRecord
	// maxLoaded is Script.MaxLoaded: 0, no limit.
	maxLoaded int

	mu       sync.Mutex
	requests []Request
	// loaded are the weights in memory, by the model that has them.
	loaded map[*modelInfo]loadedModel
	uses   int // counts loads and uses, for unloading the least recent
	rng    *rand.Rand
}

// loadedModel is weights in memory, as /api/ps lists them.
type loadedModel struct {
	expires time.Time
	// by is the model whose name loaded them, the name /api/ps lists.
	by *modelInfo
	// numCtx is the context they were loaded with: a request for another
	// loads them again.
	numCtx int
	// used orders the loaded weights by their last use.
	used int
}

// rule is a script rule with its model resolved and its matchers compiled.
type rule struct {
	Rule
	model      *modelInfo // nil: any model
	user, tool *matcher
	turnTool   *matcher // TurnResult
	tools      *matcher // over the JSON of the offered tools
}

// matcher is a compiled [Matcher].
type matcher struct {
	contains string // lower case
	equals   *string
	re       *regexp.Regexp
}

func (m *matcher) match(s string) bool {
	if m.contains != "" && !strings.Contains(strings.ToLower(s), m.contains) {
		return false
	}
	if m.equals != nil && s != *m.equals {
		return false
	}
	return m.re == nil || m.re.MatchString(s)
}

func compileMatcher(m *Matcher) *matcher {
	if m == nil {
		return nil
	}
	c := &matcher{contains: strings.ToLower(m.Contains)}
	if m.Equals != "" {
		eq := m.Equals
		c.equals = &eq
	}
	if m.Regex != "" {
		c.re = regexp.MustCompile(m.Regex)
	}
	return c
}

// New returns a server playing s; o may be nil. It copies what it needs
// from s, so s may be reused. New panics if s is not valid (see
// [Script.Validate]).
func New(s *Script, o *Options) *Server {
	if err := s.Validate(); err != nil {
		panic("fakeollama.New: invalid script: " + err.Error())
	}
	if o == nil {
		o = &Options{}
	}
	srv := &Server{
		latency:  s.Latency,
		override: o.Latency,
		seed:     o.Seed,
		clock:    o.Clock,
		version:  o.Version,
		noRecord: o.DontRecord,
		fallback: Reply{Content: "I do not know."},
	}
	if srv.clock == nil {
		srv.clock = time.Now
	}
	if srv.version == "" {
		srv.version = DefaultVersion
	}
	srv.created = srv.clock().UTC()
	for _, m := range s.Models {
		srv.models = append(srv.models, newModelInfo(m))
	}
	srv.maxLoaded = s.MaxLoaded
	for _, m := range srv.models {
		if m.SameWeights != "" {
			// Validate checked it names a model with weights of its own.
			m.weights = srv.findModel(m.SameWeights)
			m.digest, m.size = m.weights.digest, m.weights.size
		}
	}
	for _, r := range s.Rules {
		c := &rule{Rule: r, user: compileMatcher(r.User), tool: compileMatcher(r.ToolResult),
			turnTool: compileMatcher(r.TurnResult), tools: compileMatcher(r.Tools)}
		c.Reply = cloneReply(r.Reply)
		if r.Latency != nil {
			d := *r.Latency
			c.Latency = &d
		}
		if r.ToolsOffered != nil {
			b := *r.ToolsOffered
			c.ToolsOffered = &b
		}
		if r.ToolsCount != nil {
			n := *r.ToolsCount
			c.ToolsCount = &n
		}
		if r.Seed != nil {
			n := *r.Seed
			c.Seed = &n
		}
		if r.Model != "" {
			c.model = srv.findModel(r.Model)
		}
		srv.rules = append(srv.rules, c)
	}
	if s.Fallback != nil {
		srv.fallback = cloneReply(*s.Fallback)
	}
	srv.Reset()
	return srv
}

func cloneReply(r Reply) Reply {
	if r.UserReply != nil {
		u := *r.UserReply
		r.UserReply = &u
	}
	r.ToolCalls = slices.Clone(r.ToolCalls)
	for i := range r.ToolCalls {
		r.ToolCalls[i].Arguments = slices.Clone(r.ToolCalls[i].Arguments)
	}
	return r
}

// Requests returns the requests received since [New] or the last [Reset],
// oldest first.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// Reset forgets the recorded requests and the loaded models (so the next
// chat with a model reports a long load_duration again), and restarts the
// call-id generator from the seed.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = nil
	s.loaded = map[*modelInfo]loadedModel{}
	s.rng = rand.New(rand.NewPCG(s.seed, 0x6f6c6c616d61))
}

// Serve serves HTTP on ln until ctx ends, then stops: in-flight requests see
// their context cancelled, and Serve returns nil once they are done. It
// returns the listener's error if serving fails earlier.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{
		Handler:           s,
		BaseContext:       func(net.Listener) context.Context { return ctx },
		ReadHeaderTimeout: 10 * time.Second,
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdown); err != nil {
		hs.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// maxBody bounds the request bodies the server reads.
const maxBody = 32 << 20

// ServeHTTP answers one request like Ollama 0.17.4.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	rec := Request{Method: r.Method, Path: r.URL.Path, Body: body}
	var chat *api.ChatRequest
	var chatErr error
	if r.Method == http.MethodPost && r.URL.Path == "/api/chat" {
		chat = new(api.ChatRequest)
		if chatErr = decodeBody(body, chat); chatErr == nil {
			rec.Chat = chat
		}
	}
	if !s.noRecord {
		s.mu.Lock()
		s.requests = append(s.requests, rec)
		s.mu.Unlock()
	}

	route := func(methods ...string) bool {
		if slices.Contains(methods, r.Method) {
			return true
		}
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusMethodNotAllowed)
		io.WriteString(w, "405 method not allowed")
		return false
	}
	switch r.URL.Path {
	case "/":
		if route(http.MethodGet, http.MethodHead) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			io.WriteString(w, "Ollama is running")
		}
	case "/api/version":
		if route(http.MethodGet, http.MethodHead) {
			writeJSON(w, http.StatusOK, map[string]string{"version": s.version})
		}
	case "/api/tags":
		if route(http.MethodGet, http.MethodHead) {
			s.tags(w)
		}
	case "/api/ps":
		if route(http.MethodGet) {
			s.ps(w)
		}
	case "/api/show":
		if route(http.MethodPost) {
			s.show(w, body)
		}
	case "/api/pull":
		if route(http.MethodPost) {
			s.pull(w, r, body)
		}
	case "/api/chat":
		if route(http.MethodPost) {
			s.chat(w, r, chat, chatErr)
		}
	default:
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, "404 page not found")
	}
}

// errMissingBody is Ollama's answer to an empty request body.
var errMissingBody = errors.New("missing request body")

// decodeBody decodes a JSON request body as gin's ShouldBindJSON does.
func decodeBody(body []byte, v any) error {
	err := json.NewDecoder(bytes.NewReader(body)).Decode(v)
	if errors.Is(err, io.EOF) {
		return errMissingBody
	}
	return err
}

// writeJSON writes one JSON body as gin's c.JSON does.
func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		status, data = http.StatusInternalServerError, []byte(`{"error":"cannot encode the response"}`)
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
	}
	w.WriteHeader(status)
	w.Write(data)
}

// writeError writes Ollama's {"error": msg} body.
func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

// now is the current time of the server's clock, in UTC as Ollama gives it.
func (s *Server) now() time.Time { return s.clock().UTC() }

// callID returns a new tool-call id: "call_" and 8 lower-case letters or
// digits, as Ollama makes them.
func (s *Server) callID() string {
	const letters = "abcdefghijklmnopqrstuvwxyz0123456789"
	s.mu.Lock()
	defer s.mu.Unlock()
	b := make([]byte, 8)
	for i := range b {
		b[i] = letters[s.rng.IntN(len(letters))]
	}
	return "call_" + string(b)
}
