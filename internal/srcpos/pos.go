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

// Cursor turns byte offsets of one file into positions, as Offset does, in
// time proportional to the distance from the offset it was last asked: a
// reader that asks in increasing order (a JSON decoder's tokens) pays for
// the file once, where Offset would count from the start every time.
type Cursor struct {
	file string
	data []byte
	off  int // the offset last asked, and what is known of it:
	line int // its line,
	bol  int // the offset its line starts at,
	col  int // its column, counted in characters
	// scanned counts the bytes read to answer, which tests hold to the
	// file's size for offsets asked in order.
	scanned int
}

// NewCursor returns a Cursor over data, the contents of file.
func NewCursor(file string, data []byte) *Cursor {
	return &Cursor{file: file, data: data, line: 1, col: 1}
}

// Pos is Offset(file, data, off).
func (c *Cursor) Pos(off int) Pos {
	off = min(max(off, 0), len(c.data))
	if off < c.off {
		c.off, c.line, c.bol, c.col = 0, 1, 0, 1
	}
	seg := c.data[c.off:off]
	c.scanned += len(seg)
	if nl := bytes.LastIndexByte(seg, '\n'); nl >= 0 {
		c.line += bytes.Count(seg, []byte("\n"))
		c.bol = c.off + nl + 1
		c.col = utf8.RuneCount(c.data[c.bol:off]) + 1
		c.scanned += off - c.bol
	} else {
		c.col += utf8.RuneCount(seg)
	}
	c.off = off
	return Pos{File: c.file, Line: c.line, Col: c.col}
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
