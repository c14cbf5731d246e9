package main

import (
	"fmt"
	"io"

	"github.com/toolgrade/toolgrade/internal/termtext"
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
		Printable: termtext.Printable,
	}, nil
}
