package main

import (
	"errors"
	"flag"
	"fmt"
)

// usageError is bad input from the user: flags, arguments, config files.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usageErrorf(format string, a ...any) error {
	return &usageError{fmt.Errorf(format, a...)}
}

// asUsage marks err as the user's input being wrong.
func asUsage(err error) error {
	if err == nil {
		return nil
	}
	return &usageError{err}
}

// infraError is Ollama or an MCP server preventing the work.
type infraError struct{ err error }

func (e *infraError) Error() string { return e.err.Error() }
func (e *infraError) Unwrap() error { return e.err }

func asInfra(err error) error {
	if err == nil {
		return nil
	}
	return &infraError{err}
}

// gateError is a complete run that failed a CI gate: the model got worse,
// nothing broke. The lines saying which gates failed are already printed.
type gateError struct{ failed, total int }

func (e *gateError) Error() string {
	return fmt.Sprintf("%d of %d gates failed", e.failed, e.total)
}

func exitCode(err error, interrupted bool) int {
	var ue *usageError
	var ie *infraError
	var ge *gateError
	switch {
	case interrupted:
		return exitInterrupted
	case err == nil || errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.As(err, &ge):
		return exitGate
	case errors.As(err, &ue):
		return exitUsage
	case errors.As(err, &ie):
		return exitInfra
	default:
		return exitFailed
	}
}
