package toolbox

import (
	"errors"
)

// ErrInfra marks, for errors.Is, MCP servers that could not be connected
// or offered no tool: a command maps it to its exit status. A problem with
// what the toolbox was given (the suite, a variant's or the decoys' files,
// the variant names, a resume that would change a catalog) is a
// *cli.UsageError; an error of neither kind is a failure of toolgrade
// itself.
var ErrInfra = errors.New("toolbox: servers failed")

// kindError is err marked with one of the kinds; its message is err's.
type kindError struct{ err, kind error }

func (e *kindError) Error() string   { return e.err.Error() }
func (e *kindError) Unwrap() []error { return []error{e.err, e.kind} }

// infra marks err as ErrInfra; nil stays nil.
func infra(err error) error {
	if err == nil {
		return nil
	}
	return &kindError{err, ErrInfra}
}
