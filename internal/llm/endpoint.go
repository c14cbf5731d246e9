// Package llm connects to Ollama: it finds the server the way Ollama's own
// client does, and checks a model before any work is spent on it, turning the
// server's answers into errors a user can act on.
package llm

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/envconfig"
	"github.com/toolgrade/toolgrade/internal/redact"
)

// Endpoint returns Ollama's base URL: flag when it is set, else OLLAMA_HOST
// read exactly as Ollama's own client reads it (default http://127.0.0.1:11434).
func Endpoint(flag string) (*url.URL, error) {
	if strings.TrimSpace(flag) == "" {
		env := os.Getenv("OLLAMA_HOST")
		if _, rest, _ := strings.Cut(env, "://"); strings.Contains(strings.SplitN(rest, "/", 2)[0], "@") {
			// Ollama's client reads OLLAMA_HOST as host and port alone: a
			// user and password there become part of a host name, and the
			// password would show in every message that names it.
			return nil, fmt.Errorf("OLLAMA_HOST %q holds a user or password, which Ollama's client does not read from it: give the URL to --ollama, which sends them", redact.URL(env))
		}
		return envconfig.Host(), nil
	}
	s := strings.TrimSpace(flag)
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("--ollama %q: %s", redact.URL(flag), redact.Text(err.Error(), flag))
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("--ollama %q: the scheme must be http or https", redact.URL(flag))
	}
	if u.Host == "" {
		return nil, fmt.Errorf("--ollama %q: no host", redact.URL(flag))
	}
	return u, nil
}

// EndpointSource says where Endpoint took its URL from, for error hints.
func EndpointSource(flag string) string {
	switch {
	case strings.TrimSpace(flag) != "":
		return "--ollama"
	case os.Getenv("OLLAMA_HOST") != "":
		return "OLLAMA_HOST"
	default:
		return "the default"
	}
}

// NewClient returns an Ollama API client for base over HTTPClient().
func NewClient(base *url.URL) *api.Client { return api.NewClient(base, HTTPClient()) }

// HTTPClient is the HTTP client toolgrade talks to Ollama with. It has no
// overall timeout: streams last as long as the model generates, and callers
// bound them with contexts. It keeps enough idle connections for parallel
// trials (the default transport keeps two per host and reconnects for the
// rest).
func HTTPClient() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 64
	return &http.Client{Transport: tr}
}
