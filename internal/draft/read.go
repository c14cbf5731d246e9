package draft

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/store"
)

// Source is where one conversation was recorded: a line of a `serve
// --record` transcripts file, or a trial of a run's trials file.
type Source struct {
	// File is the file as the caller named it (or as found in its folder).
	File string
	// Line is the line of a transcripts file, from 1; 0 for a trial.
	Line int
	// Trial is the trial's key; nil for a recorded conversation.
	Trial *record.TrialKey
}

// String names the source as comments and warnings show it:
// rec/transcripts.jsonl:3, or runs/x/trials.jsonl: qwen3:8b dog#0 (and
// @variant when the trial ran one).
func (s Source) String() string {
	if s.Trial == nil {
		return fmt.Sprintf("%s:%d", s.File, s.Line)
	}
	return s.File + ": " + s.trial()
}

// trial is the trial key alone: qwen3:8b dog@terse#0.
func (s Source) trial() string {
	k := s.Trial
	c := k.CaseID
	if k.Variant != "" {
		c += "@" + k.Variant
	}
	return fmt.Sprintf("%s %s#%d", k.Model, c, k.Repeat)
}

// Conversation is one recorded conversation and where it came from.
type Conversation struct {
	Source     Source
	Transcript *record.Transcript
}

// Read calls fn for every conversation recorded at path, in file order: a
// `serve --record` directory (its transcripts.jsonl), a run directory (its
// trials.jsonl, the last line of each trial key, as every reader of a run
// takes it), or one such file. A file named transcripts.jsonl is a
// recording; any other file is read as what its first line holds. Lines
// that cannot be read are returned as warnings (file:line) and skipped; the
// error is for a path that cannot be read at all.
func Read(path string, fn func(Conversation)) ([]*record.SyntaxError, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return readFile(path, fn)
	}
	var warnings []*record.SyntaxError
	found := false
	for _, name := range []string{record.TranscriptsFile, record.TrialsFile} {
		file := filepath.Join(path, name)
		if _, err := os.Stat(file); errors.Is(err, os.ErrNotExist) {
			continue
		}
		found = true
		w, err := readFile(file, fn)
		warnings = append(warnings, w...)
		if err != nil {
			return warnings, err
		}
	}
	if !found {
		return nil, fmt.Errorf("%s holds neither %s (serve --record) nor %s (a run)", path, record.TranscriptsFile, record.TrialsFile)
	}
	return warnings, nil
}

// readFile reads one transcripts or trials file.
func readFile(path string, fn func(Conversation)) ([]*record.SyntaxError, error) {
	trials, err := holdsTrials(path)
	if err != nil {
		return nil, err
	}
	if trials {
		return store.ReadTrialsFile(path, func(t *record.Trial) {
			k := t.Key()
			if t.Transcript != nil {
				fn(Conversation{Source: Source{File: path, Trial: &k}, Transcript: t.Transcript})
			}
		})
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadTranscripts(f, path, func(line int, t *record.Transcript) {
		fn(Conversation{Source: Source{File: path, Line: line}, Transcript: t})
	})
}

// holdsTrials tells a trials file from a transcripts file: by its name when
// it is one of the two, else by whether its first line has a transcript
// field, as a trial has and a transcript does not.
func holdsTrials(path string) (bool, error) {
	switch filepath.Base(path) {
	case record.TranscriptsFile:
		return false, nil
	case record.TrialsFile:
		return true, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	sc := newScanner(f)
	for sc.Scan() {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var probe map[string]json.RawMessage
		if json.Unmarshal(b, &probe) != nil {
			return false, nil // the transcripts reader reports the line
		}
		_, ok := probe["transcript"]
		return ok, nil
	}
	return false, sc.Err()
}

func newScanner(r io.Reader) *bufio.Scanner {
	sc := bufio.NewScanner(r)
	// The trials reader's bound: a transcript with a large tool result is
	// one long line.
	sc.Buffer(make([]byte, 0, 64*1024), 64<<20)
	return sc
}

// ReadTranscripts reads a `serve --record` transcripts file, one
// record.Transcript a line, calling fn with each and its line number. A
// line that is not a transcript becomes a warning naming file and line, and
// reading goes on (as record.Reader does for trials); the error is a read
// error that stopped it.
func ReadTranscripts(r io.Reader, file string, fn func(line int, t *record.Transcript)) ([]*record.SyntaxError, error) {
	var warnings []*record.SyntaxError
	sc := newScanner(r)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var t record.Transcript
		err := json.Unmarshal(b, &t)
		if err == nil && (t.Model == "" || len(t.Messages) == 0) {
			err = errors.New("not a transcript: no model or messages")
		}
		if err != nil {
			warnings = append(warnings, &record.SyntaxError{File: file, Line: line, Err: err})
			continue
		}
		fn(line, &t)
	}
	if err := sc.Err(); err != nil {
		return warnings, fmt.Errorf("%s:%d: %w", file, line+1, err)
	}
	return warnings, nil
}
