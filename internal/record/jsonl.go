package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// Writer appends trials to a JSONL file, one line each, written through to
// the file as each trial ends so that a killed run loses only the trials in
// flight. It is safe for concurrent use.
type Writer struct {
	mu sync.Mutex
	w  io.Writer
	n  int
}

// NewWriter returns a Writer appending to w. Each Write is one write call of
// one whole line, so w should not buffer (an *os.File is right).
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// trialLine is one line of a trials file: the trial and the format it is
// written in.
type trialLine struct {
	Format string `json:"format,omitempty"`
	*Trial
}

// Write appends one trial, marked with the current Format.
func (w *Writer) Write(t *Trial) error {
	b, err := fitLine(t, MaxWrittenLine)
	if err != nil {
		return fmt.Errorf("encoding trial %s/%s#%d: %w", t.Model, t.CaseID, t.Repeat, err)
	}
	b = append(b, '\n')
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := w.w.Write(b); err != nil {
		return err
	}
	w.n++
	return nil
}

// Count returns how many trials were written.
func (w *Writer) Count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n
}

// SyntaxError is a line of a trials file that could not be read. Reading goes
// on past it.
type SyntaxError struct {
	File string
	Line int
	Err  error
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err) }
func (e *SyntaxError) Unwrap() error { return e.Err }

// Reader reads trials from JSONL in the manner of bufio.Scanner: Scan, then
// Trial; bad lines are kept as Warnings and skipped. It returns every line,
// superseded ones too; readers of a run's trials use ReadLast, which keeps
// only each trial key's last line.
type Reader struct {
	sc       *lineReader
	file     string
	line     int
	cur      *Trial
	err      error
	Warnings []*SyntaxError
	// keysOnly decodes only each line's key (the first pass of ReadLast).
	keysOnly bool
	// slim decodes each trial without its transcript's bulk (see slimTrial).
	slim bool
	buf  []byte
	syms symbols
	// lost, when set, is told the key of a line whose key reads but whose
	// whole does not (ReadLastKept drops the key's earlier lines).
	lost func(TrialKey)
	// want, when set, skips the lines it rejects without decoding them
	// (the second pass of ReadLast); it sees line numbers in increasing order.
	want func(line int) bool
	// alloc, when set on a slim reader, gives the Trial the next line is
	// decoded into: an earlier line's, whose reader is done with it
	// (readAhead), so a read of many lines reuses their memory.
	alloc func() *Trial
}

// NewReader reads trials from r; file names it in warnings.
func NewReader(r io.Reader, file string) *Reader {
	return &Reader{sc: &lineReader{br: bufio.NewReaderSize(r, 64<<10), max: MaxLine}, file: file}
}

// Scan advances to the next trial, returning false at the end or on a read
// error.
func (r *Reader) Scan() bool {
	if r.err != nil {
		return false
	}
	for r.sc.Scan() {
		r.line++
		if r.sc.long {
			if r.want == nil || r.want(r.line) {
				r.Warnings = append(r.Warnings, &SyntaxError{File: r.file, Line: r.line, Err: errLongLine})
			}
			continue
		}
		b := bytes.TrimSpace(r.sc.Bytes())
		if len(b) == 0 {
			continue
		}
		if r.want != nil && !r.want(r.line) {
			continue
		}
		if r.keysOnly {
			k, format, err := r.peekKey(b)
			if err == nil && r.badFormat(format) {
				if r.err != nil {
					return false
				}
				continue
			}
			if err == nil && (k.Model == "" || k.CaseID == "") {
				err = fmt.Errorf("not a trial: no model or case")
			}
			if err != nil {
				r.Warnings = append(r.Warnings, &SyntaxError{File: r.file, Line: r.line, Err: err})
				continue
			}
			r.cur = &Trial{Model: k.Model, CaseID: k.CaseID, Variant: k.Variant, Repeat: k.Repeat}
			return true
		}
		var t *Trial
		if r.alloc != nil && r.slim {
			t = r.alloc()
		} else {
			t = new(Trial)
		}
		line := trialLine{Trial: t}
		if err := r.decode(b, &line); err != nil {
			// A line whose key and format can still be read is judged by
			// its format first, as the key pass of ReadLast judges it: a
			// newer major version stops the reading, whole or not.
			k, format, kerr := r.peekKey(b)
			if kerr == nil && r.badFormat(format) {
				if r.err != nil {
					return false
				}
				continue
			}
			if kerr == nil && r.lost != nil {
				r.lost(k)
			}
			r.Warnings = append(r.Warnings, &SyntaxError{File: r.file, Line: r.line, Err: err})
			continue
		}
		if r.badFormat(line.Format) {
			if r.err != nil {
				return false
			}
			continue
		}
		if t.Model == "" || t.CaseID == "" {
			r.Warnings = append(r.Warnings, &SyntaxError{File: r.file, Line: r.line, Err: fmt.Errorf("not a trial: no model or case")})
			continue
		}
		r.cur = t
		return true
	}
	r.err = r.sc.Err()
	return false
}

// decode decodes one line into line, whole or slim. A slim line is read by
// decodeSlim when it can, and otherwise pruned and given to encoding/json,
// whose reading (and errors) decodeSlim's must equal.
func (r *Reader) decode(b []byte, line *trialLine) error {
	if !r.slim {
		return json.Unmarshal(b, line)
	}
	if decodeSlim(b, line, &r.syms) {
		return nil
	}
	*line.Trial = Trial{}
	line.Format = ""
	var err error
	if r.buf, err = pruneLine(r.buf[:0], b, slimTrial); err != nil {
		return err
	}
	return json.Unmarshal(r.buf, line)
}

// badFormat judges the current line's format version: a newer major version
// stops the reading with an error, since its trials would be misread; a
// malformed one makes the line a warning. It reports whether the line is
// skipped.
func (r *Reader) badFormat(format string) bool {
	err := CheckFormat(format)
	if err == nil {
		return false
	}
	se := &SyntaxError{File: r.file, Line: r.line, Err: err}
	var fe *FormatError
	if errors.As(err, &fe) {
		r.err = se
	} else {
		r.Warnings = append(r.Warnings, se)
	}
	return true
}

// Line returns the line number (from 1) of the trial Scan read.
func (r *Reader) Line() int { return r.line }

// Trial returns the trial Scan read.
func (r *Reader) Trial() *Trial { return r.cur }

// Err returns the read error that stopped Scan, if any.
func (r *Reader) Err() error { return r.err }

// TrimPartial cuts a trials file back to its last complete line, dropping
// what a killed writer left half-written, and returns how many bytes it
// dropped. A missing file is not an error.
func TrimPartial(path string) (int64, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if os.IsNotExist(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	size := st.Size()
	if size == 0 {
		return 0, nil
	}
	// Read back from the end to the last newline.
	const chunk = 64 * 1024
	end := size
	for end > 0 {
		start := max(end-chunk, 0)
		buf := make([]byte, end-start)
		if _, err := f.ReadAt(buf, start); err != nil {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
			keep := start + int64(i) + 1
			if keep == size {
				return 0, nil
			}
			return size - keep, f.Truncate(keep)
		}
		end = start
	}
	return size, f.Truncate(0)
}
