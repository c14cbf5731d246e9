package srcpos

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// yaml.v3 knows where a syntax error is (its problem mark) but says only the
// line of the construct around it (its context mark), and for its parser's
// errors counts that line from 0: a tab on line 18 inside a value begun on
// line 17 is "line 17", a dedented key in the tenth case "line 9" or wherever
// the list of cases began. It parses a stream front to back and stops at the
// first problem, so a cut of the text that ends just past the offending
// character fails with the very same message, and every shorter cut does
// not: the shortest failing cut finds the character.

// syntaxError is yaml.v3's message for the YAML stream data, "" when every
// document of it parses. A panic inside yaml.v3 counts as a message.
func syntaxError(data []byte) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint("yaml: internal error: ", r)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return ""
		}
		if err != nil {
			return err.Error()
		}
	}
}

// problemOffset returns the offset of the character at which data fails to
// parse with the message full (syntaxError's), searching from offset from,
// which must be at or before it. Each cut has the flow collections still open
// at its end closed, so that a cut inside one does not fail for that alone.
// ok is false when even the whole text, so closed, does not fail that way:
// the problem is then the end of the text inside a flow collection.
func problemOffset(data []byte, full string, from int) (int, bool) {
	fails := func(k int) bool {
		cut := data[:k:k]
		return syntaxError(append(cut, closers(cut)...)) == full
	}
	if !fails(len(data)) {
		return 0, false
	}
	// The problem is usually a few lines past from, in a file that may be
	// large: widen the window from there, then halve it. Each probe parses
	// the text from its start, so a large file is read some thirty times.
	lo, step := from, 128
	hi := min(from+step, len(data))
	for !fails(hi) {
		lo, step = hi, step*4
		hi = min(from+step, len(data))
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if fails(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	off := hi - 1
	for off > 0 && !utf8.RuneStart(data[off]) {
		off--
	}
	return off, true
}

// keyStart returns the start of the mapping key whose ':' is at offset
// colon. yaml.v3 knows a plain or quoted scalar is a key only once it meets
// the ':', so a parser error about a key is found at its ':'; the key itself
// is what is misplaced.
func keyStart(data []byte, colon int) int {
	line := bytes.LastIndexByte(data[:colon], '\n') + 1
	end := colon
	for end > line && (data[end-1] == ' ' || data[end-1] == '\t') {
		end--
	}
	if end > line && (data[end-1] == '"' || data[end-1] == '\'') {
		if open := bytes.LastIndexByte(data[line:end-1], data[end-1]); open >= 0 {
			return line + open
		}
	}
	start := line
	for i := line; i < end; i++ {
		switch c := data[i]; {
		case c == '{' || c == '[' || c == ',':
			start = i + 1
		case (c == '-' || c == '?') && i+1 < end && (data[i+1] == ' ' || data[i+1] == '\t'):
			if i == start || onlyBlanks(data[start:i]) {
				start = i + 1
			}
		}
	}
	for start < end && (data[start] == ' ' || data[start] == '\t') {
		start++
	}
	return start
}

func onlyBlanks(b []byte) bool {
	return !slices.ContainsFunc(b, func(c byte) bool { return c != ' ' && c != '\t' })
}

// firstOnLine reports whether only blanks come before offset off on its
// line.
func firstOnLine(data []byte, off int) bool {
	return onlyBlanks(data[bytes.LastIndexByte(data[:off], '\n')+1 : off])
}

// lineOffset is the offset of the start of line n (1-based) of data, 0 for
// a line before the first and len(data) for one past the last.
func lineOffset(data []byte, n int) int {
	off := 0
	for ; n > 1; n-- {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			return len(data)
		}
		off += i + 1
	}
	return off
}

// lineAt returns the line of data that holds offset off, without its line
// break.
func lineAt(data []byte, off int) string {
	off = min(max(off, 0), len(data))
	start := bytes.LastIndexByte(data[:off], '\n') + 1
	end := bytes.IndexByte(data[off:], '\n')
	if end < 0 {
		end = len(data)
	} else {
		end += off
	}
	return strings.TrimSuffix(string(data[start:end]), "\r")
}
