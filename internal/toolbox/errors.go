package toolbox

import (
	"errors"
	"fmt"
)

// The kinds of the errors of this package, for errors.Is: a command maps
// them to its exit statuses. An error of neither kind is a failure of
// toolgrade itself.
var (
	// ErrUsage marks a problem with what the toolbox was given: the suite,
	// a variant's or the decoys' files, the variant names, a resume that
	// would change a catalog.
	ErrUsage = errors.New("toolbox: bad input")
	// ErrInfra marks MCP servers that could not be connected or offered no
	// tool.
	ErrInfra = errors.New("toolbox: servers failed")
)

// kindError is err marked with one of the kinds; its message is err's.
type kindError struct{ err, kind error }

func (e *kindError) Error() string   { return e.err.Error() }
func (e *kindError) Unwrap() []error { return []error{e.err, e.kind} }

// usage marks err as ErrUsage; nil stays nil.
func usage(err error) error {
	if err == nil {
		return nil
	}
	return &kindError{err, ErrUsage}
}

func usagef(format string, args ...any) error { return usage(fmt.Errorf(format, args...)) }

// infra marks err as ErrInfra; nil stays nil.
func infra(err error) error {
	if err == nil {
		return nil
	}
	return &kindError{err, ErrInfra}
}
