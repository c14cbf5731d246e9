package main

import (
	"errors"
	"flag"
	"fmt"

	"github.com/toolgrade/toolgrade/internal/runs"
	"github.com/toolgrade/toolgrade/internal/termtext"
)

// usageError is bad input from the user: flags, arguments, config files;
// infraError is Ollama or an MCP server preventing the work. They are
// internal/runs' kinds, so an error its library returns keeps its exit code.
type (
	usageError = runs.UsageError
	infraError = runs.InfraError
)

func usageErrorf(format string, a ...any) error { return runs.Usagef(format, a...) }

// asUsage marks err as the user's input being wrong.
func asUsage(err error) error { return runs.AsUsage(err) }

func asInfra(err error) error { return runs.AsInfra(err) }

// gateError is a complete run that failed a CI gate: the model got worse,
// nothing broke. The lines saying which gates failed are already printed.
type gateError struct{ failed, total int }

func (e *gateError) Error() string {
	return fmt.Sprintf("%d of %s failed", e.failed, termtext.Count(e.total, "gate"))
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
