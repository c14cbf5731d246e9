package mcpclient

import (
	"bytes"
	"io"
	"regexp"
	"slices"
	"sync"
)

// stderrSink shares one io.Writer among the stderr of every stdio server of a
// catalog. Writes are serialized and split into whole lines, each prefixed
// with its server's name, so concurrent servers do not interleave mid-line.
type stderrSink struct {
	mu sync.Mutex
	w  io.Writer
}

func newStderrSink(w io.Writer) *stderrSink {
	if w == nil {
		return nil
	}
	return &stderrSink{w: w}
}

// writer returns the writer for one server; nil when stderr is discarded.
func (s *stderrSink) writer(server string) *prefixWriter {
	if s == nil {
		return nil
	}
	return &prefixWriter{sink: s, prefix: []byte("[" + server + "] ")}
}

// prefixWriter buffers a partial line until its newline arrives.
type prefixWriter struct {
	sink   *stderrSink
	prefix []byte
	mu     sync.Mutex
	buf    []byte
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.buf = append(p.buf, b...)
	i := bytes.LastIndexByte(p.buf, '\n')
	if i < 0 {
		return len(b), nil
	}
	p.emit(p.buf[:i+1])
	p.buf = append(p.buf[:0], p.buf[i+1:]...)
	return len(b), nil
}

// flush writes a final line that had no newline.
func (p *prefixWriter) flush() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.buf) > 0 {
		p.emit(append(p.buf, '\n'))
		p.buf = nil
	}
}

func (p *prefixWriter) emit(lines []byte) {
	var out []byte
	for len(lines) > 0 {
		i := bytes.IndexByte(lines, '\n')
		out = append(out, p.prefix...)
		out = append(out, lines[:i+1]...)
		lines = lines[i+1:]
	}
	p.sink.mu.Lock()
	defer p.sink.mu.Unlock()
	// A failing stderr must not fail the server.
	_, _ = p.sink.w.Write(out)
}

// stderrTailSize is how much of a stdio server's last stderr output is kept
// to explain a failure to connect, and stderrTailLines how many of its last
// lines the error shows.
const (
	stderrTailSize  = 4096
	stderrTailLines = 5
)

// stderrHeadSize is how much of a stdio server's first stderr output is
// kept: a crash often says what went wrong before its stack trace (Node's
// "Error: Cannot find module ..."), whose last lines say nothing of it.
const stderrHeadSize = 4096

// errorLineRE finds the line of a crash that names what went wrong: Node's
// and Rust's "Error: ...", Go's "panic: ...", "fatal: ...", an exception.
var errorLineRE = regexp.MustCompile(`(?i)^(\w*error\b|panic:|fatal\b|\w*exception\b)`)

// tailBuffer keeps the first and the last bytes written to it: a server
// that dies while connecting usually said why on stderr, and the user
// should see it even when stderr is not passed through.
type tailBuffer struct {
	mu   sync.Mutex
	head []byte // the first stderrHeadSize bytes, never dropped
	buf  []byte
	cut  bool // older output was dropped, so buf may start mid-line
}

func (t *tailBuffer) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if n := stderrHeadSize - len(t.head); n > 0 {
		t.head = append(t.head, b[:min(n, len(b))]...)
	}
	t.buf = append(t.buf, b...)
	if over := len(t.buf) - stderrTailSize; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.cut = true
	}
	return len(b), nil
}

// String returns the last few non-empty lines on one line, joined with
// " | ", after the first that names an error ("Error: ...", "panic: ...")
// and "..." when that one is not among them; "" when there were none.
func (t *tailBuffer) String() string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	parts := bytes.Split(t.buf, []byte("\n"))
	if t.cut && len(parts) > 1 {
		parts = parts[1:] // a line whose start was dropped
	}
	var out [][]byte
	for _, p := range parts {
		if p = bytes.TrimSpace(p); len(p) > 0 {
			out = append(out, p)
		}
	}
	if len(out) > stderrTailLines || t.cut {
		out = out[max(len(out)-stderrTailLines, 0):]
		if e := errorLine(t.head); len(e) > 0 && !slices.ContainsFunc(out, func(l []byte) bool { return bytes.Equal(l, e) }) {
			out = append([][]byte{e, []byte("...")}, out...)
		}
	}
	return string(bytes.Join(out, []byte(" | ")))
}

// errorLine is the first whole line of b that names an error
// (errorLineRE), trimmed; nil when none does.
func errorLine(b []byte) []byte {
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return nil
		}
		if l := bytes.TrimSpace(b[:i]); errorLineRE.Match(l) {
			return l
		}
		b = b[i+1:]
	}
}
