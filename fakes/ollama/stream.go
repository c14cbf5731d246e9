package fakeollama

import (
	"context"
	"encoding/json"
	"net/http"
)

// stream writes an NDJSON response the way Ollama's streamResponse does: one
// JSON value a line, flushed as it goes.
type stream struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	ctx     context.Context
	started bool
}

func newStream(w http.ResponseWriter, r *http.Request) *stream {
	return &stream{w: w, rc: http.NewResponseController(w), ctx: r.Context()}
}

// send writes v as one line; it reports false once the client is gone.
func (st *stream) send(v any) bool {
	data, err := json.Marshal(v)
	if err != nil {
		return false
	}
	return st.sendRaw(string(data))
}

// sendRaw writes line and a newline; it reports false once the client is
// gone.
func (st *stream) sendRaw(line string) bool {
	if st.ctx.Err() != nil {
		return false
	}
	if !st.started {
		st.w.Header().Set("Content-Type", "application/x-ndjson")
		st.w.WriteHeader(http.StatusOK)
		st.started = true
	}
	if _, err := st.w.Write([]byte(line + "\n")); err != nil {
		return false
	}
	return st.rc.Flush() == nil
}

// sendError ends the stream with an {"error": msg} line, or, when nothing has
// been written yet, answers HTTP 500 with that body, as Ollama does.
func (st *stream) sendError(msg string) {
	if !st.started {
		st.w.Header().Set("Content-Type", "application/json")
		writeError(st.w, http.StatusInternalServerError, msg)
		return
	}
	data, _ := json.Marshal(map[string]string{"error": msg})
	st.sendRaw(string(data))
}

// drop cuts the connection: net/http closes it without ending the chunked
// body, so the client sees an unexpected EOF and no done line. It only works
// under a net/http server (httptest included), which recovers the panic.
func (st *stream) drop() {
	if st.started {
		st.rc.Flush()
	}
	panic(http.ErrAbortHandler)
}
