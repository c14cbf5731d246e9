package suite

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// MaxErrors is how many problems an Errors message lists before it stops;
// past that the rest are usually consequences of the same mistake.
const MaxErrors = 20

// Error is one problem in a suite file.
type Error struct {
	Pos Pos
	// Field is the path of the offending value, e.g.
	// cases[2].expect.args.query (list indices count from 0); empty for YAML
	// syntax errors.
	Field string
	Msg   string
}

// Error formats the problem as file:line:col: field: msg.
func (e *Error) Error() string {
	if e.Field == "" {
		return e.Pos.String() + ": " + e.Msg
	}
	return e.Pos.String() + ": " + e.Field + ": " + e.Msg
}

// Errors is every problem found in a suite, sorted by position. Its message
// puts each on its own line, up to MaxErrors of them.
type Errors []*Error

// Error lists the problems one per line; past MaxErrors a last line, at the
// first problem left out, says how many more there are.
func (es Errors) Error() string {
	var b strings.Builder
	for i, e := range es {
		if i > 0 {
			b.WriteByte('\n')
		}
		if i == MaxErrors {
			fmt.Fprintf(&b, "%s: too many errors (%d more not shown)", e.Pos, len(es)-MaxErrors)
			break
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

func (es Errors) sort() {
	slices.SortStableFunc(es, func(a, b *Error) int {
		return cmp.Or(cmp.Compare(a.Pos.Line, b.Pos.Line), cmp.Compare(a.Pos.Col, b.Pos.Col))
	})
}
