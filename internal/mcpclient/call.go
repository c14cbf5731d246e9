package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/redact"
	"github.com/toolgrade/toolgrade/internal/termtext"
	"github.com/toolgrade/toolgrade/internal/toolschema"
)

// maxErrorDetail caps Execution.Error when it repeats a tool's own error
// text, which Result already holds in full.
const maxErrorDetail = 1000

// deadGrace is how long a call that failed in the transport waits for the
// connection to be found dead; a session still alive after it goes on
// serving.
const deadGrace = time.Second

// Call executes one tool call from the model and records it. It never fails:
// an unknown name, arguments that break the tool's schema, a tool error, a
// timeout or a dead server all become a result the model is shown, with
// IsError and ErrorKind set. name is the name the model used; args the raw
// JSON arguments (nil or empty means {}).
func (c *Catalog) Call(ctx context.Context, name string, args json.RawMessage, callID string) (ex record.Execution) {
	start := time.Now()
	ex = record.Execution{CallID: callID, Name: name, Arguments: record.Args(args)}
	defer func() { ex.Duration = time.Since(start) }()

	t := c.lookup(name)
	if t == nil {
		return c.fail(&ex, record.ExecUnknownTool, c.unknownTool(name), fmt.Sprintf("unknown tool %q", name))
	}
	ex.Server, ex.Tool = t.Server, t.Name

	send, err := t.CheckArgs(args)
	if err != nil {
		ex.HiddenOnly = toolschema.IsHiddenOnly(err)
		return c.fail(&ex, record.ExecInvalidArgs,
			fmt.Sprintf("error: invalid arguments for tool %s: %v", t.Exposed, err), err.Error())
	}

	srv := c.serverFor(ctx, t.Server)
	sc, err := srv.conn(ctx)
	if err != nil {
		return c.fail(&ex, record.ExecServerFailure,
			fmt.Sprintf("error: tool %s failed: server %q is not available: %v", t.Exposed, t.Server, err), err.Error())
	}
	srv.active.Add(1)
	defer srv.active.Add(-1)

	cctx, cancel := context.WithTimeout(ctx, c.opts.CallTimeout)
	defer cancel()
	res, err := sc.session.CallTool(cctx, &mcp.CallToolParams{Name: t.Name, Arguments: send})
	if err != nil {
		kind, result := c.callError(ctx, cctx, t, sc, err)
		return c.fail(&ex, kind, result, err.Error())
	}

	text := resultText(res)
	if res.IsError {
		return c.fail(&ex, record.ExecToolError, text, truncateBytes(text, maxErrorDetail))
	}
	ex.Result = c.truncate(text)
	return ex
}

// fail marks ex as failed with kind, the result the model is shown and
// the detail recorded, and returns it.
func (c *Catalog) fail(ex *record.Execution, kind, result, detail string) record.Execution {
	ex.IsError, ex.ErrorKind = true, kind
	if sc := c.byName[ex.Server]; sc != nil && sc.cfg.URL != "" {
		// Transport errors quote the server's URL, credentials and all.
		result, detail = redact.Text(result, sc.cfg.URL), redact.Text(detail, sc.cfg.URL)
	}
	ex.Result = c.truncate(result)
	ex.Error = detail
	return *ex
}

// unknownTool is what the model is shown when it names no tool: the name
// and the tools there are.
func (c *Catalog) unknownTool(name string) string {
	names := make([]string, len(c.tools))
	for i, t := range c.tools {
		names[i] = t.Exposed
	}
	avail := strings.Join(names, ", ")
	if avail == "" {
		avail = "none"
	}
	return fmt.Sprintf("error: unknown tool %q; available tools: %s", name, avail)
}

// callError says what the error of CallTool on sc was (its execution's
// ErrorKind) and what the model is shown of it: a timeout (cctx is the
// call's own deadline, ctx the trial's), a cancellation, an error response
// of a live server, or a transport failure, after which a connection that
// is going is given deadGrace to be found dead so the next call restarts
// the server.
func (c *Catalog) callError(ctx, cctx context.Context, t *toolschema.Tool, sc *serverConn, err error) (kind, result string) {
	var werr *jsonrpc.Error
	switch {
	case ctx.Err() == nil && errors.Is(cctx.Err(), context.DeadlineExceeded):
		return record.ExecTimeout, fmt.Sprintf("error: tool %s timed out after %s", t.Exposed, termtext.Duration(c.opts.CallTimeout))
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return record.ExecTimeout, fmt.Sprintf("error: tool %s timed out: %v", t.Exposed, ctx.Err())
	case ctx.Err() != nil:
		return record.ExecServerFailure, fmt.Sprintf("error: tool %s was canceled: %v", t.Exposed, ctx.Err())
	case errors.As(err, &werr) && werr.Code == jsonrpc.CodeInvalidParams:
		// The server's own argument check, stricter than the schema.
		return record.ExecInvalidArgs, fmt.Sprintf("error: invalid arguments for tool %s: %s", t.Exposed, werr.Message)
	case errors.As(err, &werr):
		// A protocol-level error response: the server is alive.
		return record.ExecServerFailure, fmt.Sprintf("error: tool %s failed: %s", t.Exposed, werr.Message)
	}
	if sc.frameTooLarge() {
		sc.markDead(errors.New("it sent a reply longer than the frame limit"))
	}
	if errors.Is(err, mcp.ErrConnectionClosed) {
		sc.markDead(err)
	} else if sc.deadErr() == nil {
		// Any other error of the transport (EOF from a crashed child, a
		// frame too large to read) usually means the connection is going:
		// wait for the watch to say so, so that the next call restarts the
		// server instead of failing on the dead session.
		timer := time.NewTimer(deadGrace)
		select {
		case <-sc.watchDone:
		case <-timer.C:
		}
		timer.Stop()
	}
	if sc.frameTooLarge() {
		return record.ExecServerFailure, fmt.Sprintf("error: tool %s failed: server %q sent a reply longer than the frame limit of %d bytes, which cannot be read; the server is restarted for the next call",
			t.Exposed, t.Server, c.opts.MaxFrameBytes)
	}
	if dead := sc.deadErr(); dead != nil {
		return record.ExecServerFailure, fmt.Sprintf("error: tool %s failed: server %q is not available: %v", t.Exposed, t.Server, dead)
	}
	return record.ExecServerFailure, fmt.Sprintf("error: tool %s failed: server %q: %v", t.Exposed, t.Server, err)
}

// resultText renders a tool result as the text the model is given. Text
// contents are joined with newlines; other contents are described rather
// than dropped; structuredContent is added as JSON when no text carries it.
func resultText(res *mcp.CallToolResult) string {
	var parts, texts []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, c.Text)
			texts = append(texts, c.Text)
		case *mcp.ImageContent:
			parts = append(parts, fmt.Sprintf("[image: %s, %d bytes]", orUnknown(c.MIMEType), len(c.Data)))
		case *mcp.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio: %s, %d bytes]", orUnknown(c.MIMEType), len(c.Data)))
		case *mcp.ResourceLink:
			desc := []string{c.URI}
			if c.Name != "" {
				desc = append(desc, "name "+c.Name)
			}
			desc = append(desc, orUnknown(c.MIMEType))
			if c.Size != nil {
				desc = append(desc, fmt.Sprintf("%d bytes", *c.Size))
			}
			parts = append(parts, "[resource link: "+strings.Join(desc, ", ")+"]")
		case *mcp.EmbeddedResource:
			r := c.Resource
			if r == nil {
				parts = append(parts, "[resource: empty]")
				continue
			}
			size := len(r.Blob)
			if r.Text != "" {
				size = len(r.Text)
			}
			parts = append(parts, fmt.Sprintf("[resource: %s, %s, %d bytes]", r.URI, orUnknown(r.MIMEType), size))
			// The text of an embedded resource is the result itself (a file
			// a tool read, say); a description alone would hide it.
			if r.Text != "" {
				parts = append(parts, r.Text)
				texts = append(texts, r.Text)
			}
		default:
			kind := fmt.Sprintf("%T", c)
			if data, err := c.MarshalJSON(); err == nil {
				var w struct{ Type string }
				if json.Unmarshal(data, &w) == nil && w.Type != "" {
					kind = w.Type
				}
			}
			parts = append(parts, fmt.Sprintf("[%s content]", kind))
		}
	}
	if res.StructuredContent != nil {
		if data, err := json.Marshal(res.StructuredContent); err == nil && !textCarries(texts, data) {
			parts = append(parts, string(data))
		}
	}
	return strings.Join(parts, "\n")
}

func orUnknown(mime string) string {
	if mime == "" {
		return "unknown type"
	}
	return mime
}

// textCarries reports whether the text contents already hold the structured
// content, as servers commonly send it both ways; compared by value, since
// formatting and key order differ.
func textCarries(texts []string, structured []byte) bool {
	var want any
	if json.Unmarshal(structured, &want) != nil {
		return false
	}
	candidates := append([]string{strings.Join(texts, "\n")}, texts...)
	for _, t := range candidates {
		var got any
		if json.Unmarshal([]byte(t), &got) == nil && reflect.DeepEqual(got, want) {
			return true
		}
	}
	return false
}

// truncate caps a result at MaxResultBytes.
func (c *Catalog) truncate(s string) string {
	return truncateBytes(s, c.opts.MaxResultBytes)
}

// truncateBytes cuts s to at most max bytes (on a UTF-8 boundary) and notes
// how much was cut; max < 0 means no limit.
func truncateBytes(s string, max int) string {
	if max < 0 || len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s\n[... truncated %d bytes]", s[:cut], len(s)-cut)
}
