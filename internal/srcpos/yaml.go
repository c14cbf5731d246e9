package srcpos

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

var yamlLineRE = regexp.MustCompile(`(?s)^(?:yaml: )?line (\d+): (.*)$`)

// yamlParserErrors are the messages of yaml.v3's parser (as opposed to its
// scanner): it reports their line counting from 0, and the start of the
// enclosing construct rather than the problem when that is not on the first
// line.
var yamlParserErrors = []string{
	"did not find expected <stream-start>", "did not find expected <document start>",
	"did not find expected node content", "did not find expected key",
	"did not find expected '-' indicator", "did not find expected ',' or ']'",
	"did not find expected ',' or '}'", "found duplicate %YAML directive",
	"found duplicate %TAG directive", "found incompatible YAML document",
	"found undefined tag handle",
}

// YAMLSyntax turns an error of yaml.v3's parser on data into an Error with
// the message "YAML: ...", at the character that is wrong (see
// problemOffset), with its line's text and, for the common mistakes, what
// to do instead.
func YAMLSyntax(file string, data []byte, err error) *Error {
	full := err.Error()
	msg, line := strings.TrimPrefix(full, "yaml: "), 0
	if m := yamlLineRE.FindStringSubmatch(full); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
	}
	at := func(off int, hint string) *Error {
		return SyntaxErrorf(file, data, off, "YAML: %s%s", msg, hint)
	}
	if a, ok := strings.CutPrefix(msg, "unknown anchor '"); ok {
		name := strings.TrimSuffix(a, "' referenced")
		if i := bytes.Index(data, []byte("*"+name)); i >= 0 {
			return at(i, "")
		}
	}
	if line == 0 {
		if off, ok := badChar(data); ok {
			return at(off, "")
		}
	}
	if off, ok := problemOffset(data, full, lineOffset(data, line)); ok {
		if data[off] == ':' && slices.Contains(yamlParserErrors, msg) {
			off = keyStart(data, off)
		}
		return at(off, yamlHint(data, off, msg))
	}
	if open := openFlows(data); len(open) > 0 && strings.HasPrefix(msg, "did not find expected ") {
		off := open[len(open)-1]
		return at(off, fmt.Sprintf(" (this %c is never closed)", data[off]))
	}
	// yaml.v3 counts its parser's lines from 0.
	if slices.Contains(yamlParserErrors, msg) {
		line++
	}
	return Errorf(Pos{File: file, Line: max(line, 1), Col: 1}, "", "YAML: %s", msg)
}

// badChar finds the first byte YAML rejects: invalid UTF-8 or a control
// character other than tab and line breaks.
func badChar(data []byte) (int, bool) {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		bad := r == utf8.RuneError && size <= 1
		if !bad && r != '\t' && r != '\n' && r != '\r' && r != 0x85 && r != 0xFEFF {
			bad = unicode.IsControl(r) || (r >= 0xD800 && r <= 0xDFFF) || r == 0xFFFE || r == 0xFFFF
		}
		if bad {
			return i, true
		}
		i += size
	}
	return 0, false
}

// YAMLDecode turns the error of decoding the YAML text data (parsed as root)
// into Go values into a List: a syntax error as YAMLSyntax does, and each
// problem of a *yaml.TypeError at its line, with the column of the value it
// names when that can be found on the line.
func YAMLDecode(file string, data []byte, root *yaml.Node, err error) List {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return List{YAMLSyntax(file, data, err)}
	}
	var l List
	for _, msg := range te.Errors {
		m := yamlLineRE.FindStringSubmatch(msg)
		if m == nil {
			l = append(l, Errorf(Pos{File: file}, "", "%s", msg))
			continue
		}
		line, _ := strconv.Atoi(m[1])
		l = append(l, Errorf(Pos{File: file, Line: line, Col: columnAt(root, line, quoted(m[2]))}, "", "%s", m[2]))
	}
	return l
}

var quotedRE = regexp.MustCompile("`([^`]*)`")

// quoted returns the value a yaml.v3 type error quotes in backquotes
// ("cannot unmarshal !!str `soon` into ...").
func quoted(msg string) string {
	if m := quotedRE.FindStringSubmatch(msg); m != nil {
		return m[1]
	}
	return ""
}

// columnAt gives the column of the scalar on line whose value is want, or
// of the first node on that line when want is empty or not found.
func columnAt(root *yaml.Node, line int, want string) int {
	first := 0
	var walk func(n *yaml.Node) int
	walk = func(n *yaml.Node) int {
		if n == nil {
			return 0
		}
		if n.Line == line {
			if want != "" && n.Kind == yaml.ScalarNode && n.Value == want {
				return n.Column
			}
			if first == 0 || n.Column < first {
				first = n.Column
			}
		}
		for _, c := range n.Content {
			if col := walk(c); col > 0 {
				return col
			}
		}
		return 0
	}
	if col := walk(root); col > 0 {
		return col
	}
	return first
}
