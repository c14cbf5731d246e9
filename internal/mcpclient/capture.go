package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The SDK decodes a tool's inputSchema into map[string]any (mcp.Tool's
// InputSchema is `any`), which loses the server's key order. listCapture
// keeps the raw result of every tools/list call so that the order can be
// read back from the JSON the server sent.
type listCapture struct {
	mcp.Connection

	mu      sync.Mutex
	pending map[jsonrpc.ID]bool
	pages   []json.RawMessage
	done    bool // rawSchemas was called: later listings are not kept
}

// captureTransport wraps a transport's connection in a listCapture.
type captureTransport struct {
	t   mcp.Transport
	cap *listCapture
}

func (c *captureTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := c.t.Connect(ctx)
	if err != nil {
		return nil, err
	}
	c.cap.Connection = conn
	return c.cap, nil
}

func (l *listCapture) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "tools/list" && req.ID.IsValid() {
		l.mu.Lock()
		if !l.done {
			if l.pending == nil {
				l.pending = map[jsonrpc.ID]bool{}
			}
			l.pending[req.ID] = true
		}
		l.mu.Unlock()
	}
	return l.Connection.Write(ctx, msg)
}

func (l *listCapture) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := l.Connection.Read(ctx)
	if resp, ok := msg.(*jsonrpc.Response); ok && err == nil {
		l.mu.Lock()
		if l.pending[resp.ID] {
			delete(l.pending, resp.ID)
			if resp.Error == nil {
				l.pages = append(l.pages, resp.Result)
			}
		}
		l.mu.Unlock()
	}
	return msg, err
}

// rawSchemas returns the raw inputSchema of every tool in the captured
// tools/list results, by tool name, and stops capturing.
func (l *listCapture) rawSchemas() map[string]json.RawMessage {
	l.mu.Lock()
	pages := l.pages
	l.pages, l.pending, l.done = nil, nil, true
	l.mu.Unlock()
	out := map[string]json.RawMessage{}
	for _, p := range pages {
		var res struct {
			Tools []struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"tools"`
		}
		if json.Unmarshal(p, &res) != nil {
			continue
		}
		for _, t := range res.Tools {
			if _, dup := out[t.Name]; !dup && len(t.InputSchema) > 0 {
				out[t.Name] = t.InputSchema
			}
		}
	}
	return out
}

// listTee captures, for a streamable HTTP server, the raw result of every
// tools/list POST: its reply is either one JSON body or an event stream. The
// body is read through it, so a result is recorded before the SDK has seen
// it whole.
type listTee struct {
	base    http.RoundTripper
	capture *listCapture
}

func (l *listTee) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodPost || req.Body == nil {
		return l.base.RoundTrip(req)
	}
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	req = req.Clone(req.Context())
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	var call struct {
		Method string `json:"method"`
	}
	resp, err := l.base.RoundTrip(req)
	if err != nil || json.Unmarshal(body, &call) != nil || call.Method != "tools/list" {
		return resp, err
	}
	ct := resp.Header.Get("Content-Type")
	resp.Body = &teeBody{ReadCloser: resp.Body, capture: l.capture, stream: strings.HasPrefix(ct, "text/event-stream")}
	return resp, nil
}

// teeBody records the JSON-RPC results in a response body as it is read.
type teeBody struct {
	io.ReadCloser
	capture *listCapture
	stream  bool // an event stream, else one JSON message
	buf     []byte
}

func (t *teeBody) Read(p []byte) (int, error) {
	n, err := t.ReadCloser.Read(p)
	t.buf = append(t.buf, p[:n]...)
	if t.stream {
		// Complete events end with a blank line; what follows waits.
		for {
			norm := bytes.ReplaceAll(t.buf, []byte("\r\n"), []byte("\n"))
			i := bytes.Index(norm, []byte("\n\n"))
			if i < 0 {
				break
			}
			t.event(norm[:i])
			t.buf = norm[i+2:]
		}
	} else if err == io.EOF {
		t.message(t.buf)
		t.buf = nil
	}
	return n, err
}

func (t *teeBody) event(ev []byte) {
	var data [][]byte
	for _, line := range bytes.Split(ev, []byte("\n")) {
		if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			data = append(data, bytes.TrimPrefix(d, []byte(" ")))
		}
	}
	if len(data) > 0 {
		t.message(bytes.Join(data, []byte("\n")))
	}
}

func (t *teeBody) message(b []byte) {
	var msg struct {
		Result json.RawMessage `json:"result"`
	}
	if json.Unmarshal(b, &msg) == nil && len(msg.Result) > 0 {
		t.capture.mu.Lock()
		if !t.capture.done {
			t.capture.pages = append(t.capture.pages, msg.Result)
		}
		t.capture.mu.Unlock()
	}
}
