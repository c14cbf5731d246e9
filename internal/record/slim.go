package record

import (
	"bytes"
	"errors"
	"fmt"
)

// prune is which members of a JSON object a slim read leaves out (drop) and
// which it walks into to prune further (into); every other member is kept
// as written.
type prune struct {
	drop []string
	into map[string]*prune
}

// Slim trials keep what verdicts and numbers are made of, and leave out the
// transcript's bulk: the messages, what each round sent, the text, thinking
// and calls of each response, and the arguments and result of each
// execution, and the call id that ties an execution to its call (the
// calls are left out). Kept: the key, tags, score, judged verdicts, the
// answer, each round's wall time, metrics and done reason, each
// execution's name, tool and error (kind and detail), and the
// transcript's wall time, failure and round limit.
var (
	slimTrial = &prune{into: map[string]*prune{"transcript": {
		drop: []string{"messages"},
		into: map[string]*prune{"rounds": {
			drop: []string{"request"},
			into: map[string]*prune{
				"response":   {drop: []string{"content", "thinking", "tool_calls"}},
				"executions": {drop: []string{"call_id", "arguments", "result"}},
			},
		}},
	}}}
	// keyOnly is the first pass of ReadLast: a line's key and format.
	keyOnly = &prune{drop: []string{"transcript", "score", "judged", "tags"}}
)

var errTorn = errors.New("unexpected end of JSON input")

// pruneLine returns the JSON object b with the members p drops left out,
// appended to dst. It checks the structure of what it leaves out (strings
// closed, brackets matched), so a torn line is an error, but not every byte
// of it: what it keeps is checked by the decoder it goes to. A value that
// is not an object where p walks into one is kept as written.
func pruneLine(dst, b []byte, p *prune) ([]byte, error) {
	i := skipSpace(b, 0)
	out, i, err := pruneValue(dst, b, i, p)
	if err != nil {
		return dst, err
	}
	if i = skipSpace(b, i); i != len(b) {
		return dst, fmt.Errorf("invalid character %q after top-level value", b[i])
	}
	return out, nil
}

// pruneValue copies the value at b[i:] to dst, pruned by p when it is an
// object (or, for an array, each object in it), and returns where it ends.
func pruneValue(dst, b []byte, i int, p *prune) ([]byte, int, error) {
	if p != nil && i < len(b) {
		switch b[i] {
		case '{':
			return pruneObject(dst, b, i, p)
		case '[':
			return pruneArray(dst, b, i, p)
		}
	}
	end, err := skipValue(b, i)
	if err != nil {
		return dst, i, err
	}
	return append(dst, b[i:end]...), end, nil
}

func pruneObject(dst, b []byte, i int, p *prune) ([]byte, int, error) {
	dst = append(dst, '{')
	i = skipSpace(b, i+1)
	first := true
	for {
		if i >= len(b) {
			return dst, i, errTorn
		}
		if b[i] == '}' {
			return append(dst, '}'), i + 1, nil
		}
		if !first {
			if b[i] != ',' {
				return dst, i, fmt.Errorf("invalid character %q after object member", b[i])
			}
			i = skipSpace(b, i+1)
		}
		first = false
		keyEnd, err := skipString(b, i)
		if err != nil {
			return dst, i, err
		}
		key := b[i+1 : keyEnd-1]
		j := skipSpace(b, keyEnd)
		if j >= len(b) || b[j] != ':' {
			return dst, j, errTorn
		}
		j = skipSpace(b, j+1)
		if p.drops(key) {
			if i, err = skipValue(b, j); err != nil {
				return dst, i, err
			}
			i = skipSpace(b, i)
			continue
		}
		if dst[len(dst)-1] != '{' {
			dst = append(dst, ',')
		}
		dst = append(dst, b[i:keyEnd]...)
		dst = append(dst, ':')
		if dst, i, err = pruneValue(dst, b, j, p.into[string(key)]); err != nil {
			return dst, i, err
		}
		i = skipSpace(b, i)
	}
}

func pruneArray(dst, b []byte, i int, p *prune) ([]byte, int, error) {
	dst = append(dst, '[')
	i = skipSpace(b, i+1)
	for n := 0; ; n++ {
		if i >= len(b) {
			return dst, i, errTorn
		}
		if b[i] == ']' {
			return append(dst, ']'), i + 1, nil
		}
		if n > 0 {
			if b[i] != ',' {
				return dst, i, fmt.Errorf("invalid character %q after array element", b[i])
			}
			dst = append(dst, ',')
			i = skipSpace(b, i+1)
		}
		var err error
		if dst, i, err = pruneValue(dst, b, i, p); err != nil {
			return dst, i, err
		}
		i = skipSpace(b, i)
	}
}

func (p *prune) drops(key []byte) bool {
	for _, d := range p.drop {
		if string(key) == d {
			return true
		}
	}
	return false
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the end of the string at b[i:], past its closing
// quote. The bulk of a transcript is strings, so this is a memchr.
func skipString(b []byte, i int) (int, error) {
	if i >= len(b) {
		return i, errTorn
	}
	if b[i] != '"' {
		return i, fmt.Errorf("invalid character %q looking for beginning of string", b[i])
	}
	j := i + 1
	// Keys and most values are short: a loop finds their end sooner than
	// a call does.
	for end := min(j+16, len(b)); j < end && b[j] != '"'; j++ {
	}
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return len(b), errTorn
		}
		j += k
		// The quote closes the string unless an odd run of backslashes
		// escapes it.
		bs := 0
		for b[j-1-bs] == '\\' && j-1-bs > i {
			bs++
		}
		if bs%2 == 0 {
			return j + 1, nil
		}
		j++
	}
}

// skipValue returns the end of the value at b[i:].
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return i, errTorn
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		return skipNested(b, i)
	}
	j := i
	for j < len(b) && scalarByte(b[j]) {
		j++
	}
	if j == i {
		return i, fmt.Errorf("invalid character %q looking for beginning of value", b[i])
	}
	return j, nil
}

// skipNested returns the end of the object or array at b[i:], its brackets
// matched outside strings.
func skipNested(b []byte, i int) (int, error) {
	var open [64]byte
	stack := open[:0]
	for j := i; j < len(b); j++ {
		switch c := b[j]; c {
		case '"':
			end, err := skipString(b, j)
			if err != nil {
				return end, err
			}
			j = end - 1
		case '{', '[':
			stack = append(stack, c+2) // '}' is '{'+2, ']' is '['+2
		case '}', ']':
			if len(stack) == 0 || stack[len(stack)-1] != c {
				return j, fmt.Errorf("invalid character %q: brackets do not match", c)
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return j + 1, nil
			}
		}
	}
	return len(b), errTorn
}

// scalarByte reports whether c may be part of a number, true, false or null.
func scalarByte(c byte) bool {
	switch {
	case c >= '0' && c <= '9', c >= 'a' && c <= 'z', c == '-', c == '+', c == '.', c == 'E':
		return true
	}
	return false
}
