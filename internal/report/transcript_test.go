package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/toolgrade/toolgrade/internal/record"
)

func printAll(trials []*record.Trial, o *TranscriptOptions) []byte {
	var b bytes.Buffer
	p := NewTranscriptPrinter(&b, o)
	for _, t := range trials {
		p.Add(t)
	}
	return b.Bytes()
}

// TestGoldenTranscripts renders every trial of the recorded run, plain and
// coloured: the calls, results (the longest cut), errors, argument diffs,
// round-limit finals and answers of both models.
func TestGoldenTranscripts(t *testing.T) {
	_, trials := fixture(t)
	plain := printAll(trials, nil)
	golden(t, gallery+"show.txt", plain)
	color := printAll(trials, &TranscriptOptions{Color: true})
	golden(t, "testdata/transcripts-color.golden", color)
	if bytes.Contains(plain, []byte("\x1b")) {
		t.Error("the plain transcripts hold an escape sequence")
	}
	if got := stripSGR(color); !bytes.Equal(got, plain) {
		t.Error("the coloured transcripts differ from the plain ones by more than colour codes")
	}
	if !bytes.Contains(plain, []byte("; --full shows all]")) {
		t.Error("no tool result of the fixture was cut: lower the limits of the test, or the fixture lost its long results")
	}
	full := printAll(trials, &TranscriptOptions{Full: true})
	if bytes.Contains(full, []byte("--full shows all")) || len(full) <= len(plain) {
		t.Error("Full still cuts")
	}
}

// stripSGR removes the colour codes the printer adds (ESC [ ... m).
func stripSGR(b []byte) []byte {
	var out []byte
	for i := 0; i < len(b); i++ {
		if b[i] == 0x1b && i+1 < len(b) && b[i+1] == '[' {
			j := bytes.IndexByte(b[i:], 'm')
			if j > 0 {
				i += j
				continue
			}
		}
		out = append(out, b[i])
	}
	return out
}

// hostile is a trial touching every part of the printer, each string from
// the model, a tool or the suite carrying escape sequences.
func hostile() *record.Trial {
	const esc = "\x1b[2J\x1b]0;pwned\a"
	return &record.Trial{
		Model: "m" + esc, CaseID: "c\x1b[31m", Variant: "v\u202e", Repeat: 1, Seed: 7, Attempts: 2,
		Tags: []string{"t\x1b[1m"},
		Transcript: &record.Transcript{
			Messages: []record.Message{
				{Role: "system", Content: "sys" + esc},
				{Role: "user", Content: "hi\r\nthere"},
				{Role: "assistant", ToolCalls: []record.ToolCall{{Name: "x" + esc, Arguments: json.RawMessage(`{"a":"\u001b[2J"}`)}}},
				{Role: "tool", ToolName: "x", Content: "res" + esc},
			},
			Rounds: []record.Round{
				{Index: 1, Wall: 1500 * time.Microsecond, Request: record.Request{ToolsSent: true, Tools: 2},
					Metrics: record.Metrics{PromptEvalCount: 10, EvalCount: 3},
					Response: record.Response{Thinking: "think" + esc, Content: "let me look" + esc,
						ToolCalls: []record.ToolCall{
							{ID: "1", Name: "rm" + esc, Arguments: json.RawMessage(`{"path": "/"}`)},
							{ID: "2", Name: "slow", Arguments: json.RawMessage(`{}`)},
						}},
					Executions: []record.Execution{
						{CallID: "1", Name: "rm" + esc, Server: "fs", Tool: "rm", Arguments: json.RawMessage(`{"path":"/"}`),
							IsError: true, ErrorKind: record.ExecBlocked, Error: "destructive" + esc, Result: "error: blocked" + esc},
						{CallID: "2", Name: "slow", Server: "s", Tool: "slow", Arguments: json.RawMessage(`{}`),
							IsError: true, ErrorKind: record.ExecTimeout, Error: "timed out" + esc, Result: "timed out" + esc},
					}},
				{Index: 2, Wall: 2 * time.Second, Request: record.Request{Final: true},
					Response: record.Response{DoneReason: "length" + esc, Failure: &record.Failure{Kind: record.FailureStream, Message: "broken" + esc}}},
			},
			Answer:  "<script>" + esc + "\u009b2J\x9b",
			Failure: &record.Failure{Kind: record.FailureOllama, Message: "down" + esc, HTTPStatus: 500},
		},
		Score: record.Score{Outcome: record.OutcomeWrongArgs, Detail: "rm (call 1): path" + esc + "\n- \"a\"\n+ \"b\"" + esc, Truncated: true},
	}
}

// TestTranscriptEscapesEverything: no string of a trial reaches the
// terminal with its control characters, in plain or in colour, and the only
// escape sequences in the coloured output are the printer's own SGR codes.
func TestTranscriptEscapesEverything(t *testing.T) {
	for _, color := range []bool{false, true} {
		out := printAll([]*record.Trial{hostile()}, &TranscriptOptions{Color: color})
		rest := stripSGR(out)
		for _, c := range []byte{0x1b, '\a', '\r'} {
			if bytes.IndexByte(rest, c) >= 0 {
				t.Errorf("color %v: a raw %q reached the output:\n%q", color, c, out)
			}
		}
		for _, bad := range []string{"\u202e", "\u009b", "\x9b"} {
			if bytes.Contains(rest, []byte(bad)) {
				t.Errorf("color %v: a raw %q reached the output", color, bad)
			}
		}
		for _, want := range []string{`\x1b[2J\x1b]0;pwned\x07`, `c\x1b[31m`, `v\u202e`, `hi\x0d`, `<script>`, `\u009b2J\x9b`,
			`{"a":"\u001b[2J"}`, `{"path":"/"}`, "blocked, by the suite's tool policy", "timeout, infrastructure",
			"failed (ollama, HTTP 500, infrastructure)", "failed (stream, infrastructure)", "final: no tools", "2 attempts",
			"warning: a prompt reached num_ctx", "let me look", "think"} {
			if !bytes.Contains(rest, []byte(want)) {
				t.Errorf("color %v: the output lacks %q:\n%s", color, want, rest)
			}
		}
	}
	golden(t, "testdata/transcript-hostile.golden", printAll([]*record.Trial{hostile()}, nil))
	golden(t, "testdata/transcript-hostile-color.golden", printAll([]*record.Trial{hostile()}, &TranscriptOptions{Color: true}))
}

func TestTranscriptCut(t *testing.T) {
	long := strings.Repeat("a", 30) + "é" + strings.Repeat("b", 10)
	many := "1\n2\n3\n4\n5"
	p := NewTranscriptPrinter(nil, &TranscriptOptions{CutBytes: 31, CutLines: 3})
	for _, c := range []struct{ in, want string }{
		{"short", "short"},
		{long, strings.Repeat("a", 30) + " [... 12 more bytes; --full shows all]"}, // é is not split
		{many, "1\n>2\n>3 [... 4 more bytes, 2 more lines; --full shows all]"},
		{strings.Repeat("x", 31), strings.Repeat("x", 31)},
	} {
		if got := p.cut(c.in, ">"); got != c.want {
			t.Errorf("cut(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	p.o.Full = true
	if got := p.cut(long, ""); got != long {
		t.Errorf("Full cut %q", got)
	}
}

type failingWriter struct{ n int }

func (w *failingWriter) Write(b []byte) (int, error) {
	w.n++
	return 0, errors.New("disk full")
}

func TestTranscriptWriteErrorSticks(t *testing.T) {
	_, trials := fixture(t)
	w := &failingWriter{}
	p := NewTranscriptPrinter(w, nil)
	for _, tr := range trials[:3] {
		p.Add(tr)
	}
	if p.Err() == nil || w.n != 1 {
		t.Errorf("err %v after %d writes, want the first error and no write after it", p.Err(), w.n)
	}
}
