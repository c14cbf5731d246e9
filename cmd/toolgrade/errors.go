package main

import (
	"errors"
	"flag"
	"fmt"

	"github.com/toolgrade/toolgrade/internal/cli"
	"github.com/toolgrade/toolgrade/internal/runs"
	"github.com/toolgrade/toolgrade/internal/termtext"
)

// gateError is a complete run that failed a CI gate: the model got worse,
// nothing broke. The lines saying which gates failed are already printed.
type gateError struct{ failed, total int }

func (e *gateError) Error() string {
	return fmt.Sprintf("%d of %s failed", e.failed, termtext.Count(e.total, "gate"))
}

// exitCode is the exit status of a command that ended with err: usage
// errors (cli.UsageError, whichever package refused) are 2, Ollama or a
// server (runs.InfraError) 3, a failed gate 4.
func exitCode(err error, interrupted bool) int {
	var ue *cli.UsageError
	var ie *runs.InfraError
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
