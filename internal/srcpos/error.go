package srcpos

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Error is one problem in a source file, located precisely enough for an
// editor to jump to it.
type Error struct {
	Pos Pos
	// Field is the path of the offending value, e.g. mcpServers.docs.args or
	// cases[2].expect (list indices count from 0); empty when the problem is
	// not about one value (syntax errors).
	Field string
	Msg   string
	// Source is the text of the line at Pos, shown under the message with a
	// caret at Pos.Col, for problems the message alone does not show (a
	// syntax error); empty for the others.
	Source string
}

// Errorf returns an Error at pos.
func Errorf(pos Pos, field, format string, args ...any) *Error {
	return &Error{Pos: pos, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// SyntaxErrorf returns an Error at byte offset off of data in file that
// shows the line there with a caret: a syntax error's message alone does not
// show what is wrong.
func SyntaxErrorf(file string, data []byte, off int, format string, args ...any) *Error {
	e := Errorf(Offset(file, data, off), "", format, args...)
	e.Source = lineAt(data, off)
	return e
}

// Error formats the problem as file:line:col: field: msg, leaving out the
// parts that are unknown, and under it the source line with a caret when
// the error has one.
func (e *Error) Error() string {
	var b strings.Builder
	for _, part := range []string{e.Pos.String(), e.Field, e.Msg} {
		if part == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(": ")
		}
		b.WriteString(part)
	}
	if e.Source != "" && e.Pos.Line > 0 {
		b.WriteString(excerpt(e.Source, e.Pos.Line, e.Pos.Col))
	}
	return b.String()
}

// MaxErrors is how many problems a List's message shows before it stops;
// past that the rest are usually consequences of the same mistake.
const MaxErrors = 20

// List is every problem found in one reading, so a user fixes them all in
// one pass rather than one per run.
type List []*Error

// Error lists the problems one per line; past MaxErrors a last line, at the
// first problem left out, says how many more there are.
func (l List) Error() string {
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		if i == MaxErrors {
			fmt.Fprintf(&b, "%s: too many errors (%d more not shown)", e.Pos, len(l)-MaxErrors)
			break
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Add appends a problem at pos.
func (l *List) Add(pos Pos, field, format string, args ...any) {
	*l = append(*l, Errorf(pos, field, format, args...))
}

// Sort orders the problems by file, then position, keeping the order of
// problems at the same place.
func (l List) Sort() {
	slices.SortStableFunc(l, func(a, b *Error) int {
		return cmp.Or(cmp.Compare(a.Pos.File, b.Pos.File), cmp.Compare(a.Pos.Line, b.Pos.Line), cmp.Compare(a.Pos.Col, b.Pos.Col))
	})
}

// Err returns nil when the list is empty, else the list sorted: the value a
// reader returns as its error.
func (l List) Err() error {
	if len(l) == 0 {
		return nil
	}
	l.Sort()
	return l
}
