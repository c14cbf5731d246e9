package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/ollama/ollama/api"
	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/record"
)

// The proxy's own headers. Rounds and tool calls are response headers with
// stream:false and HTTP trailers when streaming (the count is known only at
// the end); headerInclude is the request header that opts into the tool
// rounds' messages.
const (
	headerRounds    = "X-Toolgrade-Rounds"
	headerToolCalls = "X-Toolgrade-Tool-Calls"
	headerInclude   = "X-Toolgrade-Include"
)

// Extra is the opt-in "toolgrade" field of the final line (or object) of a
// chat, sent when the request carries the header X-Toolgrade-Include:
// messages. Ollama's clients ignore fields they do not know.
type Extra struct {
	// Rounds is how many requests went to Ollama; ToolCalls how many MCP
	// tool calls ran.
	Rounds    int `json:"rounds"`
	ToolCalls int `json:"tool_calls"`
	// Messages are the assistant messages with MCP tool calls and the tool
	// results that answered them, in order: what a client appends to its
	// history, before the final answer, to keep the whole conversation.
	Messages []api.Message `json:"messages"`
}

// chat serves POST /api/chat through the bridge loop.
func (s *Server) chat(w http.ResponseWriter, r *http.Request, st *chatStats) {
	body, release, ok := s.limit.readBody(w, r, s.bodies)
	if !ok {
		return
	}
	var req api.ChatRequest
	err := json.Unmarshal(body, &req)
	release()
	if err != nil {
		if len(bytes.TrimSpace(body)) == 0 {
			err = errors.New("missing request body")
		}
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if len(req.Messages) == 0 {
		// A request without messages loads or unloads the model: nothing to
		// converse about, so Ollama answers it as it is.
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		s.pass.ServeHTTP(w, r)
		return
	}
	// Malformed requests are answered above without waiting; a chat waits
	// here for its turn, and nothing of it has run yet.
	waited := s.now()
	release, err = s.admit.enter(r.Context())
	if err != nil {
		if r.Context().Err() == nil {
			writeError(w, http.StatusServiceUnavailable, err.Error())
		}
		return
	}
	defer release()
	st.queued = s.now().Sub(waited)
	cw := &chatWriter{
		w:      w,
		rc:     http.NewResponseController(w),
		stream: req.Stream == nil || *req.Stream,
		client: toolNames(req.Tools),
		model:  req.Model,
	}
	loop := &bridge.Loop{
		Chat:    &carryChatter{next: s.o.Chat, orig: &req},
		Tools:   s.o.Tools,
		Now:     s.o.Now,
		OnChunk: cw.chunk,
	}
	breq := bridge.Request{
		Model:       req.Model,
		Messages:    req.Messages,
		Options:     req.Options,
		Think:       req.Think,
		KeepAlive:   req.KeepAlive,
		MaxRounds:   s.o.MaxRounds,
		ClientTools: req.Tools,
	}
	if s.o.System != "" && req.Messages[0].Role != "system" {
		breq.System = s.o.System
	}
	t, runErr := loop.Run(r.Context(), breq)
	st.rounds = len(t.Rounds)
	st.toolCalls = len(t.Executions())
	if s.o.Record != nil {
		s.o.Record(t)
	}
	var extra *Extra
	if r.Header.Get(headerInclude) == "messages" {
		extra = &Extra{Rounds: st.rounds, ToolCalls: st.toolCalls, Messages: toolMessages(t)}
	}
	if runErr != nil {
		cw.fail(r.Context(), t.Failure)
		return
	}
	cw.finish(st, extra)
}

// carryChatter sends each round with the client's fields the loop does not
// set itself (format, truncate, shift, logprobs), so a round differs from
// the client's request only in its messages and tools.
type carryChatter struct {
	next bridge.Chatter
	orig *api.ChatRequest
}

func (c *carryChatter) Chat(ctx context.Context, req *api.ChatRequest, fn api.ChatResponseFunc) error {
	req.Format = c.orig.Format
	req.Truncate = c.orig.Truncate
	req.Shift = c.orig.Shift
	req.Logprobs = c.orig.Logprobs
	req.TopLogprobs = c.orig.TopLogprobs
	return c.next.Chat(ctx, req, fn)
}

// chatWriter turns the chunks of every round into one response as Ollama
// would give it: each round's chunks pass through as they come, minus the
// MCP tool calls (the proxy runs those; a client that saw them would try
// to) and minus every round's done line; one done line ends the response.
type chatWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	stream  bool
	client  map[string]bool // the client's own tool names
	model   string
	started bool

	// msg gathers, for stream:false, what the streamed lines would carry.
	msg api.Message
	// done is the last done line seen; sum the metrics of all of them.
	done    *api.ChatResponse
	sum     api.Metrics
	logprob []api.Logprob
}

// chunk takes one chunk of round round from the loop.
func (c *chatWriter) chunk(round int, ch api.ChatResponse) {
	if ch.Done {
		d := ch
		c.done = &d
		c.sum.TotalDuration += ch.TotalDuration
		c.sum.LoadDuration += ch.LoadDuration
		c.sum.PromptEvalCount += ch.PromptEvalCount
		c.sum.PromptEvalDuration += ch.PromptEvalDuration
		c.sum.EvalCount += ch.EvalCount
		c.sum.EvalDuration += ch.EvalDuration
		// A done line's own content (rare) is part of the answer.
		ch.Done, ch.DoneReason, ch.Metrics = false, "", api.Metrics{}
		if ch.Message.Content == "" && ch.Message.Thinking == "" && len(ch.Logprobs) == 0 {
			return
		}
	}
	calls := ch.Message.ToolCalls[:0:0]
	for _, tc := range ch.Message.ToolCalls {
		if c.client[tc.Function.Name] {
			calls = append(calls, tc)
		}
	}
	stripped := len(calls) != len(ch.Message.ToolCalls)
	ch.Message.ToolCalls = calls
	if stripped && len(calls) == 0 && ch.Message.Content == "" && ch.Message.Thinking == "" && len(ch.Logprobs) == 0 {
		return // a chunk that only carried MCP calls carries nothing for the client
	}
	if !c.stream {
		c.msg.Content += ch.Message.Content
		c.msg.Thinking += ch.Message.Thinking
		c.msg.ToolCalls = append(c.msg.ToolCalls, calls...)
		c.logprob = append(c.logprob, ch.Logprobs...)
		return
	}
	c.line(ch)
}

// line writes one NDJSON line and flushes it.
func (c *chatWriter) line(v any) {
	data, err := json.Marshal(v)
	if err != nil {
		return
	}
	c.raw(data)
}

func (c *chatWriter) raw(data []byte) {
	if !c.started {
		h := c.w.Header()
		h.Set("Content-Type", "application/x-ndjson")
		h.Set("Trailer", headerRounds+", "+headerToolCalls)
		c.w.WriteHeader(http.StatusOK)
		c.started = true
	}
	c.w.Write(append(data, '\n'))
	c.rc.Flush()
}

// finish writes the one done line (or, for stream:false, the one object):
// the last round's done line, with the metrics summed over every round.
func (c *chatWriter) finish(st *chatStats, extra *Extra) {
	final := api.ChatResponse{Model: c.model, Done: true, DoneReason: "stop", Message: api.Message{Role: "assistant"}}
	if c.done != nil {
		final = *c.done
		final.Message = api.Message{Role: c.done.Message.Role}
	}
	final.Metrics = c.sum
	rounds, calls := strconv.Itoa(st.rounds), strconv.Itoa(st.toolCalls)
	if !c.stream {
		final.Message.Content = c.msg.Content
		final.Message.Thinking = c.msg.Thinking
		final.Message.ToolCalls = c.msg.ToolCalls
		final.Logprobs = c.logprob
		h := c.w.Header()
		h.Set("Content-Type", "application/json; charset=utf-8")
		h.Set(headerRounds, rounds)
		h.Set(headerToolCalls, calls)
		c.w.WriteHeader(http.StatusOK)
		c.w.Write(withExtra(final, extra))
		return
	}
	c.raw(withExtra(final, extra))
	c.w.Header().Set(headerRounds, rounds)
	c.w.Header().Set(headerToolCalls, calls)
}

// withExtra encodes resp, with the opt-in "toolgrade" field last.
func withExtra(resp api.ChatResponse, extra *Extra) []byte {
	data, _ := json.Marshal(resp)
	if extra == nil {
		return data
	}
	x, _ := json.Marshal(extra)
	out := append(data[:len(data)-1:len(data)-1], `,"toolgrade":`...)
	return append(append(out, x...), '}')
}

// fail ends a chat that failed as Ollama would: an HTTP error with Ollama's
// status and message when nothing was sent yet, an {"error": ...} line when
// the stream had begun, and nothing at all when the client left.
func (c *chatWriter) fail(ctx context.Context, f *record.Failure) {
	if ctx.Err() != nil || f == nil {
		return
	}
	if c.started {
		c.line(map[string]string{"error": f.Message})
		return
	}
	status := f.HTTPStatus
	if status == 0 {
		status = http.StatusInternalServerError
		if f.Kind == record.FailureOllama {
			status = http.StatusBadGateway // Ollama did not answer at all
		}
	}
	writeError(c.w, status, f.Message)
}

// toolMessages rebuilds the messages of the tool rounds: each assistant
// message that called MCP tools, then the results sent back.
func toolMessages(t *record.Transcript) []api.Message {
	out := []api.Message{}
	for _, r := range t.Rounds {
		if len(r.Executions) == 0 {
			continue
		}
		m := api.Message{Role: "assistant", Content: r.Response.Content, Thinking: r.Response.Thinking}
		for _, tc := range r.Response.ToolCalls {
			var args api.ToolCallFunctionArguments
			_ = json.Unmarshal(tc.Arguments, &args)
			m.ToolCalls = append(m.ToolCalls, api.ToolCall{ID: tc.ID, Function: api.ToolCallFunction{Index: tc.Index, Name: tc.Name, Arguments: args}})
		}
		out = append(out, m)
		for _, ex := range r.Executions {
			out = append(out, api.Message{Role: "tool", Content: ex.Result, ToolName: ex.Name, ToolCallID: ex.CallID})
		}
	}
	return out
}

func toolNames(tools api.Tools) map[string]bool {
	m := make(map[string]bool, len(tools))
	for _, t := range tools {
		m[t.Function.Name] = true
	}
	return m
}

// writeError writes Ollama's {"error": msg} body with status, as its
// server (gin's c.JSON) does.
func writeError(w http.ResponseWriter, status int, msg string) {
	data, _ := json.Marshal(map[string]string{"error": msg})
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	w.Write(data)
}
