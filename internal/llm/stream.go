package llm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"runtime"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/envconfig"
	"github.com/ollama/ollama/version"
	"github.com/toolgrade/toolgrade/internal/bridge"
)

// StreamChatter streams /api/chat from Ollama as *api.Client does (the
// same requests and headers, the same api.StatusError for an HTTP error, an
// error for an {"error": ...} line), but with a line buffer that starts
// small and grows to api's 8 MB limit only for a line that needs it:
// api.Client allocates the whole 8 MB for every request, which at a hundred
// concurrent chats is most of a proxy's memory, and in a run of thousands of
// trials most of what is allocated and collected. It does not sign requests:
// NewChatter picks api.Client where Ollama's client would. Its zero value is
// not usable: Base is required.
type StreamChatter struct {
	Base *url.URL
	// HTTP sends the requests; nil: http.DefaultClient.
	HTTP *http.Client
}

// NewChatter returns what streams /api/chat from base for a run, ask or
// serve: a StreamChatter over hc, unless Ollama's own client would sign the
// requests (OLLAMA_AUTH, or ollama.com itself), which only client can do;
// then client.
func NewChatter(base *url.URL, hc *http.Client, client *api.Client) bridge.Chatter {
	if envconfig.UseAuth() || base.Hostname() == "ollama.com" {
		return client
	}
	return &StreamChatter{Base: base, HTTP: hc}
}

// userAgent is the User-Agent api.Client sends, so a server's logs cannot
// tell the two apart.
var userAgent = fmt.Sprintf("ollama/%s (%s %s) Go/%s", version.Version, runtime.GOARCH, runtime.GOOS, runtime.Version())

// Buffer sizes of a chat stream: the first allocation, and the longest line
// accepted (api.Client's limit).
const (
	initialLineBuffer = 16 << 10
	maxLineBuffer     = 8 << 20
)

// Chat sends req and calls fn with every chunk, in order.
func (c *StreamChatter) Chat(ctx context.Context, req *api.ChatRequest, fn api.ChatResponseFunc) error {
	body, err := json.Marshal(req)
	if err != nil {
		return err
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, c.Base.JoinPath("/api/chat").String(), bytes.NewReader(body))
	if err != nil {
		return err
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "application/x-ndjson")
	hr.Header.Set("User-Agent", userAgent)
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(hr)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, initialLineBuffer), maxLineBuffer)
	for sc.Scan() {
		line := sc.Bytes()
		var e struct {
			Error string `json:"error,omitempty"`
		}
		if err := json.Unmarshal(line, &e); err != nil {
			if resp.StatusCode >= http.StatusBadRequest {
				return api.StatusError{StatusCode: resp.StatusCode, Status: resp.Status, ErrorMessage: string(line)}
			}
			return fmt.Errorf("a line of Ollama's stream is not JSON: %w", err)
		}
		if resp.StatusCode >= http.StatusBadRequest {
			return api.StatusError{StatusCode: resp.StatusCode, Status: resp.Status, ErrorMessage: e.Error}
		}
		if e.Error != "" {
			return errors.New(e.Error)
		}
		var chunk api.ChatResponse
		if err := json.Unmarshal(line, &chunk); err != nil {
			return err
		}
		if err := fn(chunk); err != nil {
			return err
		}
	}
	// Unlike api.Client, a read error is reported: the loop would see the
	// missing done line anyway, and the error says why. It names the
	// stream, since serve hands it to its clients as it is.
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading Ollama's stream: %w", err)
	}
	if resp.StatusCode >= http.StatusBadRequest {
		return api.StatusError{StatusCode: resp.StatusCode, Status: resp.Status}
	}
	return nil
}
