// Package srcpos is the position-and-typo layer every config reader of
// toolgrade shares (the servers file, the suite, the fake Ollama's script): a
// position in a file, one error type rendered as file:line:col: message, a
// list of them reported at once, one "did you mean", and the helpers that take
// positions from YAML nodes, YAML errors and JSON byte offsets. A syntax
// error is located at its character (yaml.v3 names only the line of the
// construct around it) and shows its line with a caret.
package srcpos

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Pos is a place in a source file.
type Pos struct {
	File string
	// Line and Col are 1-based; Col is 0 when only the line is known, and both
	// are 0 for the file as a whole.
	Line, Col int
}

// String formats the position as file:line:col, the form editors jump to,
// leaving out the parts that are unknown.
func (p Pos) String() string {
	s := p.File
	if p.Line > 0 {
		s += ":" + strconv.Itoa(p.Line)
		if p.Col > 0 {
			s += ":" + strconv.Itoa(p.Col)
		}
	}
	return s
}

// Node returns the position of a YAML node in file; a nil node, or one
// without a line (built in Go), stands for the whole file.
func Node(file string, n *yaml.Node) Pos {
	if n == nil || n.Line == 0 {
		return Pos{File: file}
	}
	return Pos{File: file, Line: n.Line, Col: n.Column}
}

// Offset returns the position of byte offset off of data in file, the
// column counted in characters as YAML parsers and editors count it. An
// offset past either end is clamped to it.
func Offset(file string, data []byte, off int) Pos {
	off = min(max(off, 0), len(data))
	before := data[:off]
	lineStart := bytes.LastIndexByte(before, '\n') + 1
	return Pos{
		File: file,
		Line: bytes.Count(before, []byte("\n")) + 1,
		Col:  utf8.RuneCount(before[lineStart:]) + 1,
	}
}
