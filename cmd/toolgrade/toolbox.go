package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/servers"
	"github.com/toolgrade/toolgrade/internal/suite"
	"github.com/toolgrade/toolgrade/internal/toolbox"
	"github.com/toolgrade/toolgrade/reports"
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
		Printable: reports.Printable,
	}, nil
}

// connectSuiteServers connects the servers of cfg (toolbox.Connect); nil
// cfg (a suite without servers whose every case brings its own tools) gets
// an empty catalog, and no server starts.
func connectSuiteServers(ctx context.Context, cfg *servers.Config, sf *serverFlags, stderr io.Writer) (*servers.Catalog, error) {
	conn, err := connectOptions(sf, stderr)
	if err != nil {
		return nil, err
	}
	cat, err := toolbox.Connect(ctx, cfg, conn)
	return cat, toolboxErr(err)
}

// setupVariants readies the variants a run runs (toolbox.Open) from its
// flags: --variants (flag, when given), the resumed run's meta and dir, and
// the server flags that variants' and decoys' servers connect with. tools
// is the base's toolbox over cat; the caller closes what it returns.
func setupVariants(ctx context.Context, s *suite.Suite, cat *toolbox.Base, tools bridge.Toolbox, flag string, given bool, meta *record.Run, dir string, sf *serverFlags, stderr io.Writer) (*toolbox.Set, error) {
	conn, err := connectOptions(sf, stderr)
	if err != nil {
		return nil, err
	}
	var names []string
	if given {
		names = append([]string{}, splitList(flag)...) // not nil: given
	}
	set, err := toolbox.Open(ctx, toolbox.Spec{Suite: s, Catalog: cat, Policy: tools, Variants: names, Recorded: meta, Dir: dir, Connect: conn})
	return set, toolboxErr(err)
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
