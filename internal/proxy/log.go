package proxy

import (
	"log/slog"
	"net/http"
	"time"
)

// chatStats is what a chat adds to its request's log line.
type chatStats struct {
	rounds, toolCalls int
	// queued is how long the chat waited for one of Limits.MaxChats.
	queued time.Duration
}

// logWriter remembers the status a handler wrote, for the log line. Unwrap
// lets http.ResponseController (the reverse proxy's flushes, trailers)
// reach the real writer.
type logWriter struct {
	http.ResponseWriter
	code int
}

func (w *logWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *logWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *logWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *logWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// status is the status sent, 0 when nothing was (the client left first).
func (w *logWriter) status() int { return w.code }

// logRequest writes the request's one log line.
// refused, when set, says why the guard refused the request.
func (s *Server) logRequest(r *http.Request, status int, st *chatStats, d time.Duration, refused string) {
	attrs := []slog.Attr{
		slog.String("method", r.Method),
		slog.String("path", r.URL.Path),
		slog.Int("status", status),
	}
	if refused != "" {
		attrs = append(attrs, slog.String("refused", refused))
	} else if r.URL.Path == "/api/chat" {
		attrs = append(attrs, slog.Int("rounds", st.rounds), slog.Int("tool_calls", st.toolCalls))
		if st.queued >= time.Millisecond {
			attrs = append(attrs, slog.Duration("queued", st.queued))
		}
	}
	attrs = append(attrs, slog.Duration("duration", d))
	if r.Context().Err() != nil {
		attrs = append(attrs, slog.Bool("client_gone", true))
	}
	s.log.LogAttrs(r.Context(), slog.LevelInfo, "request", attrs...)
}
