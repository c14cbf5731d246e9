package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/toolgrade/toolgrade/internal/report"
	"github.com/toolgrade/toolgrade/internal/toolbox"
)

// connectOptions are the server flags as the toolbox connects with them,
// its lines printed to stderr.
func connectOptions(sf *serverFlags, stderr io.Writer) (toolbox.ConnectOptions, error) {
	opts, err := sf.options(stderr)
	if err != nil {
		return toolbox.ConnectOptions{}, err
	}
	return toolbox.ConnectOptions{
		Servers:   opts,
		Log:       func(line string) { fmt.Fprintf(stderr, "toolgrade: %s\n", line) },
		Printable: report.Printable,
	}, nil
}

// toolboxErr is a toolbox error with the exit status its kind asks for.
func toolboxErr(err error) error {
	switch {
	case errors.Is(err, toolbox.ErrUsage):
		return asUsage(err)
	case errors.Is(err, toolbox.ErrInfra):
		return asInfra(err)
	}
	return err
}
