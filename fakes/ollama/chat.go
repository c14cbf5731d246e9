package fakeollama

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
)

// defaultError is the error text of the http_500 and error_mid_stream faults
// when a rule gives none: what Ollama says when its runner crashes.
const defaultError = "llama runner process has terminated: exit status 2"

// Timings of the metrics on the done line.
const (
	coldLoad        = 800 * time.Millisecond // first request for a model
	warmLoad        = 3 * time.Millisecond   // later requests
	perPromptToken  = 20 * time.Microsecond
	perOutputToken  = 4 * time.Millisecond
	requestOverhead = time.Millisecond
	defaultKeep     = 5 * time.Minute // Ollama's default keep_alive
)

// chat answers POST /api/chat, checking the request in the order
// server/routes.go ChatHandler does, so that each error is the one real
// Ollama gives first.
func (s *Server) chat(w http.ResponseWriter, r *http.Request, req *api.ChatRequest, decodeErr error) {
	if decodeErr != nil {
		writeError(w, http.StatusBadRequest, decodeErr.Error())
		return
	}
	if req.TopLogprobs < 0 || req.TopLogprobs > 20 {
		writeError(w, http.StatusBadRequest, "top_logprobs must be between 0 and 20")
		return
	}
	if !model.ParseName(req.Model).IsValid() {
		writeError(w, http.StatusBadRequest, "model is required")
		return
	}
	m := s.findModel(req.Model)
	if m == nil {
		writeError(w, http.StatusNotFound, fmt.Sprintf("model '%s' not found", req.Model))
		return
	}
	if len(req.Messages) == 0 && req.KeepAlive != nil && req.KeepAlive.Duration == 0 {
		s.mu.Lock()
		delete(s.loaded, m.weights)
		s.mu.Unlock()
		writeJSON(w, http.StatusOK, s.bare(req, "unload"))
		return
	}

	// A thinking model thinks unless told not to; any other model refuses
	// to think.
	var think bool
	if m.has(model.CapabilityThinking) {
		think = req.Think == nil || req.Think.Bool()
	} else if req.Think != nil && req.Think.Bool() {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("%q does not support thinking", req.Model))
		return
	}

	rl := s.match(m, req)
	if !m.has(model.CapabilityCompletion) {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("%q does not support chat", req.Model))
		return
	}
	if (len(req.Tools) > 0 && !m.has(model.CapabilityTools)) || (rl != nil && rl.Fault == FaultNoTools) {
		writeError(w, http.StatusBadRequest, m.name.String()+" does not support tools")
		return
	}
	if len(req.Messages) == 0 {
		s.touch(m, req)
		writeJSON(w, http.StatusOK, s.bare(req, "load"))
		return
	}
	if req.Think != nil && req.Think.IsString() && !slices.Contains(m.ThinkLevels, req.Think.String()) {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("think value %q is not supported for this model", req.Think.String()))
		return
	}

	reply, fault, errMsg, latency := s.fallback, FaultNone, defaultError, s.latency
	if rl != nil {
		reply, fault, errMsg = rl.Reply, rl.Fault, cmp.Or(rl.Error, defaultError)
		if rl.Latency != nil {
			latency = *rl.Latency
		}
	}
	if s.override >= 0 {
		latency = s.override
	}
	if !wait(r.Context(), latency) {
		return
	}
	if fault == FaultHTTP500 {
		writeError(w, http.StatusInternalServerError, errMsg)
		return
	}

	cold := s.touch(m, req)
	ans := s.compose(reply, fault, think, m.KeepUnknownCalls, req.Tools)
	s.respond(w, r, req, ans, s.metrics(m, req, ans, latency, cold), fault, errMsg)
}

// bare is the answer without generation: to a request without messages
// ("load") or one that unloads the model ("unload").
func (s *Server) bare(req *api.ChatRequest, reason string) api.ChatResponse {
	return api.ChatResponse{
		Model:      req.Model,
		CreatedAt:  s.now(),
		Message:    api.Message{Role: "assistant"},
		Done:       true,
		DoneReason: reason,
	}
}

// wait sleeps for d, or until ctx ends; it reports whether the full time
// passed.
func wait(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// touch marks m's weights as loaded until the request's keep-alive runs
// out and reports whether they were not loaded before, or loaded with
// another num_ctx (a cold start). Loading weights beyond Script.MaxLoaded
// unloads the weights used longest ago, as Ollama's scheduler does.
func (s *Server) touch(m *modelInfo, req *api.ChatRequest) bool {
	keep := defaultKeep
	if req.KeepAlive != nil {
		keep = min(max(req.KeepAlive.Duration, 0), 100*365*24*time.Hour)
	}
	now := s.now()
	n := numCtx(m, req)
	s.mu.Lock()
	defer s.mu.Unlock()
	w := m.weights
	l, ok := s.loaded[w]
	cold := !ok || !l.expires.After(now) || l.numCtx != n
	if cold {
		l = loadedModel{by: m, numCtx: n}
	}
	if keep == 0 {
		delete(s.loaded, w)
		return cold
	}
	s.uses++
	l.expires, l.used = now.Add(keep), s.uses
	s.loaded[w] = l
	s.evict(now)
	return cold
}

// evict unloads the weights used longest ago while more are loaded than
// Script.MaxLoaded allows, and forgets expired ones; s.mu held.
func (s *Server) evict(now time.Time) {
	for w, l := range s.loaded {
		if !l.expires.After(now) {
			delete(s.loaded, w)
		}
	}
	for s.maxLoaded > 0 && len(s.loaded) > s.maxLoaded {
		var oldest *modelInfo
		for w, l := range s.loaded {
			if oldest == nil || l.used < s.loaded[oldest].used {
				oldest = w
			}
		}
		delete(s.loaded, oldest)
	}
}

// metrics are the done line's counts and durations: the prompt is
// estimated at 4 bytes a token of the request's messages and tools, and the
// durations follow from the counts, so they are deterministic.
func (s *Server) metrics(m *modelInfo, req *api.ChatRequest, ans *answer, latency time.Duration, cold bool) api.Metrics {
	prompt, _ := json.Marshal(struct {
		Messages []api.Message `json:"messages"`
		Tools    api.Tools     `json:"tools,omitempty"`
	}{req.Messages, req.Tools})
	met := api.Metrics{
		LoadDuration: warmLoad,
		// A prompt longer than the context is cut to fit, as Ollama does,
		// so the count stops at num_ctx.
		PromptEvalCount: min(max(len(prompt)/4, 1), numCtx(m, req)),
		EvalCount:       ans.evalCount,
	}
	if cold {
		met.LoadDuration = coldLoad
	}
	met.PromptEvalDuration = time.Duration(met.PromptEvalCount) * perPromptToken
	met.EvalDuration = time.Duration(met.EvalCount) * perOutputToken
	met.TotalDuration = latency + met.LoadDuration + met.PromptEvalDuration + met.EvalDuration + requestOverhead
	return met
}

// respond writes the answer: NDJSON chunks and a done line, or with
// stream:false one body merging them, as Ollama does; faults cut it short.
func (s *Server) respond(w http.ResponseWriter, r *http.Request, req *api.ChatRequest, ans *answer, met api.Metrics, fault Fault, errMsg string) {
	done := api.ChatResponse{
		Model:      req.Model,
		Message:    api.Message{Role: "assistant"},
		Done:       true,
		DoneReason: ans.doneReason,
		Metrics:    met,
	}

	if req.Stream != nil && !*req.Stream {
		switch fault {
		case FaultStall:
			<-r.Context().Done()
			return
		case FaultDrop:
			panic(http.ErrAbortHandler)
		case FaultErrorMidStream:
			writeError(w, http.StatusInternalServerError, errMsg)
			return
		case FaultInvalidJSON:
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.WriteHeader(http.StatusOK)
			w.Write([]byte(s.brokenLine(req)))
			return
		}
		for _, p := range ans.pieces {
			done.Message.Thinking += p.thinking
			done.Message.Content += p.content
			if p.call != nil {
				done.Message.ToolCalls = append(done.Message.ToolCalls, *p.call)
			}
		}
		done.CreatedAt = s.now()
		writeJSON(w, http.StatusOK, done)
		return
	}

	st := newStream(w, r)
	pieces := ans.pieces
	if fault == FaultErrorMidStream || fault == FaultDrop || fault == FaultInvalidJSON || fault == FaultStall {
		pieces = pieces[:min(len(pieces), 1)]
	}
	for _, p := range pieces {
		msg := api.Message{Role: "assistant", Content: p.content, Thinking: p.thinking}
		if p.call != nil {
			msg.ToolCalls = []api.ToolCall{*p.call}
		}
		if !st.send(api.ChatResponse{Model: req.Model, CreatedAt: s.now(), Message: msg}) {
			return
		}
	}
	switch fault {
	case FaultErrorMidStream:
		st.sendError(errMsg)
	case FaultDrop:
		st.drop()
	case FaultInvalidJSON:
		st.sendRaw(s.brokenLine(req))
	case FaultStall:
		// Until the client goes, as a hung runner holds the connection.
		<-r.Context().Done()
	default:
		done.CreatedAt = s.now()
		st.send(done)
	}
}

// brokenLine is a chunk cut off in the middle: not valid JSON.
func (s *Server) brokenLine(req *api.ChatRequest) string {
	data, _ := json.Marshal(api.ChatResponse{Model: req.Model, CreatedAt: s.now(), Message: api.Message{Role: "assistant"}})
	return string(data[:len(data)/2])
}

// numCtx is the context length a request runs with: its num_ctx option, else
// the model's.
func numCtx(m *modelInfo, req *api.ChatRequest) int {
	switch n := req.Options["num_ctx"].(type) {
	case float64:
		if n >= 1 {
			return int(n)
		}
	case int:
		if n >= 1 {
			return n
		}
	}
	return m.NumCtx
}
