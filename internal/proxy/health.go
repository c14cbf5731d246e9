package proxy

import (
	"context"
	"encoding/json"
	"net/http"
	"time"
)

// HealthFunc reports the state of Ollama and the MCP servers.
type HealthFunc func(ctx context.Context) Health

// Health is the body of GET /health.
type Health struct {
	// Status is "ok", or "unavailable" (HTTP 503) when Ollama does not
	// answer or a server that connected has dropped; Reason says which.
	Status string       `json:"status"`
	Reason string       `json:"reason,omitempty"`
	Ollama OllamaHealth `json:"ollama"`
	// Servers are the configured servers, sorted by name.
	Servers []ServerHealth `json:"servers"`
}

// OllamaHealth is Ollama's part of a Health.
type OllamaHealth struct {
	// URL is Ollama's address, its password masked.
	URL string `json:"url"`
	// Version is what /api/version answered; "" when it did not.
	Version string `json:"version,omitempty"`
	Error   string `json:"error,omitempty"`
}

// ServerHealth is one MCP server's part of a Health.
type ServerHealth struct {
	Name string `json:"name"`
	// Status is "up", "skipped" (it failed to connect at start-up and was
	// left out: serve runs without it) or "down" (it connected, then died,
	// and could not be restarted).
	Status string `json:"status"`
	// Tools counts the tools the model is offered from it.
	Tools int    `json:"tools"`
	Error string `json:"error,omitempty"`
}

// healthTimeout bounds the checks of one GET /health, so a hung Ollama
// makes it answer 503, not hang.
const healthTimeout = 5 * time.Second

func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	h := Health{Status: "ok", Servers: []ServerHealth{}}
	if s.o.Health != nil {
		ctx, cancel := context.WithTimeout(r.Context(), healthTimeout)
		h = s.o.Health(ctx)
		cancel()
	}
	status := http.StatusOK
	if h.Status != "ok" {
		status = http.StatusServiceUnavailable
	}
	data, _ := json.Marshal(h)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	w.Write(data)
}
