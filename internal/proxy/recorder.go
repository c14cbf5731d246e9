package proxy

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/toolgrade/toolgrade/internal/record"
)

// TranscriptsFile is the file of a --record directory that conversations
// are appended to, one record.Transcript a line.
const TranscriptsFile = record.TranscriptsFile

// Recorder appends transcripts to DIR/transcripts.jsonl, one JSON line per
// conversation, each written whole as its conversation ends. It is safe for
// concurrent use.
type Recorder struct {
	mu   sync.Mutex
	f    *os.File
	err  error // the first write error, reported by Close
	path string
}

// OpenRecorder creates dir if needed and opens its transcripts file for
// appending, so a restarted serve adds to what earlier ones recorded.
func OpenRecorder(dir string) (*Recorder, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("--record %s: %w", dir, err)
	}
	path := filepath.Join(dir, TranscriptsFile)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("--record: %w", err)
	}
	return &Recorder{f: f, path: path}, nil
}

// Record appends t as one line. A failed write is kept for Close: serving
// goes on, since the conversation itself succeeded.
func (r *Recorder) Record(t *record.Transcript) {
	data, err := json.Marshal(t)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err == nil {
		// One write per line: O_APPEND keeps lines whole.
		_, err = r.f.Write(append(data, '\n'))
	}
	if err != nil && r.err == nil {
		r.err = fmt.Errorf("recording to %s: %w", r.path, err)
	}
}

// Close closes the file and returns the first error of any write.
func (r *Recorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.f.Close(); err != nil && r.err == nil {
		r.err = err
	}
	return r.err
}
