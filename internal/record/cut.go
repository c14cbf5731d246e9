package record

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/dustin/go-humanize"
)

// MaxWrittenLine is the longest trial line a Writer writes: a longer one
// (a tool result of many MiB the model was shown whole, with
// --max-result-bytes -1) has its longest texts cut, each with a note, until
// it fits. Every reader reads lines up to MaxLine, so what a run writes,
// every command reads, with room for lines older builds wrote.
const MaxWrittenLine = 16 << 20

// MaxLine is the longest line a Reader reads; a longer one is a warning
// naming its file and line, and reading goes on after it.
const MaxLine = 64 << 20

// fitLine returns the line of t, cut to at most limit bytes: the texts of
// its transcript and score (messages, answers, thinking, tool results,
// details) are shortened, the longest first, to a common length that is
// halved until the line fits. The trial itself is not changed. A line that
// does not fit even so (its arguments alone are too long) is an error.
func fitLine(t *Trial, limit int) ([]byte, error) {
	b, err := json.Marshal(trialLine{Format: Format, Trial: t})
	if err != nil || len(b) <= limit {
		return b, err
	}
	for keep := limit / 4; keep >= 256; keep /= 2 {
		c := cutTexts(t, keep)
		if b, err = json.Marshal(trialLine{Format: Format, Trial: c}); err != nil || len(b) <= limit {
			return b, err
		}
	}
	return nil, fmt.Errorf("its line is %s even with every text cut, more than %s: its tool calls' arguments are too long to record",
		humanize.IBytes(uint64(len(b))), humanize.IBytes(uint64(limit)))
}

// cutTexts is a copy of t whose texts longer than keep bytes are cut to it,
// each ending with a note of what was cut.
func cutTexts(t *Trial, keep int) *Trial {
	c := *t
	cut := func(s *string) {
		if len(*s) <= keep {
			return
		}
		n := keep
		for n > 0 && !utf8.RuneStart((*s)[n]) {
			n--
		}
		*s = (*s)[:n] + fmt.Sprintf("… [toolgrade cut %s of this text from the record, which keeps at most %s a trial; the model was shown all of it]",
			humanize.IBytes(uint64(len(*s)-n)), humanize.IBytes(MaxWrittenLine))
	}
	cut(&c.Score.Detail)
	if t.Transcript == nil {
		return &c
	}
	tr := *t.Transcript
	c.Transcript = &tr
	cut(&tr.Answer)
	tr.Messages = append([]Message(nil), tr.Messages...)
	for i := range tr.Messages {
		cut(&tr.Messages[i].Content)
		cut(&tr.Messages[i].Thinking)
	}
	tr.Rounds = append([]Round(nil), tr.Rounds...)
	for i := range tr.Rounds {
		r := &tr.Rounds[i]
		cut(&r.Response.Content)
		cut(&r.Response.Thinking)
		r.Executions = append([]Execution(nil), r.Executions...)
		for j := range r.Executions {
			cut(&r.Executions[j].Result)
			cut(&r.Executions[j].Error)
		}
	}
	tr.Turns = append([]Turn(nil), tr.Turns...)
	for i := range tr.Turns {
		cut(&tr.Turns[i].User)
		cut(&tr.Turns[i].Answer)
	}
	tr.Setup = append([]Execution(nil), tr.Setup...)
	for i := range tr.Setup {
		cut(&tr.Setup[i].Result)
		cut(&tr.Setup[i].Error)
	}
	tr.Checks = append([]Check(nil), tr.Checks...)
	for i := range tr.Checks {
		cut(&tr.Checks[i].Result)
		cut(&tr.Checks[i].Error)
		cut(&tr.Checks[i].Detail)
	}
	return &c
}

// errLongLine is the warning for a line past MaxLine, which no reader holds.
var errLongLine = fmt.Errorf("a line longer than %s, more than toolgrade reads: skipped (toolgrade cuts a trial's texts to keep its lines under %s; an older one did not)",
	humanize.IBytes(MaxLine), humanize.IBytes(MaxWrittenLine))

// lineReader splits its input into lines as bufio.Scanner does, but a line
// longer than max is skipped whole, marked long, instead of stopping the
// reading: the lines after it are read.
type lineReader struct {
	br   *bufio.Reader
	max  int
	buf  []byte // a line longer than br's buffer, gathered
	line []byte // the line: in br's buffer, or buf
	long bool
	err  error
}

// Scan reads the next line; false at the end or on a read error.
func (l *lineReader) Scan() bool {
	l.buf, l.long = l.buf[:0], false
	for first := true; ; first = false {
		chunk, err := l.br.ReadSlice('\n')
		if first && err == nil && len(chunk) <= l.max {
			// The whole line is in the buffer: read there, not copied
			// (it stays until the next Scan).
			l.line = chunk
			return true
		}
		l.line = l.buf
		if !l.long && len(l.buf)+len(chunk) > l.max {
			l.long, l.buf = true, l.buf[:0]
		}
		if !l.long {
			l.buf = append(l.buf, chunk...)
			l.line = l.buf
		}
		switch err {
		case nil:
			return true
		case bufio.ErrBufferFull:
			continue
		case io.EOF:
			return len(l.buf) > 0 || l.long
		default:
			l.err = err
			return false
		}
	}
}

// Bytes is the line Scan read, with its newline, until the next Scan.
func (l *lineReader) Bytes() []byte { return l.line }

// Err is the read error that stopped Scan; nil at the end of the input.
func (l *lineReader) Err() error { return l.err }
