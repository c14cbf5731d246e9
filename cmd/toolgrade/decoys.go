package main

import (
	"context"
	"fmt"
	"io"

	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/decoys"
	"github.com/toolgrade/toolgrade/internal/score"
	"github.com/toolgrade/toolgrade/internal/servers"
	"github.com/toolgrade/toolgrade/internal/suite"
	"github.com/toolgrade/toolgrade/reports"
)

// decoySet is a suite's decoy pool, read once per command when a variant
// first needs it, and the warnings already printed, so each is said once.
type decoySet struct {
	s      *suite.Suite
	sf     *serverFlags
	stderr io.Writer
	pool   *decoys.Pool
	warned map[string]bool
}

func newDecoySet(s *suite.Suite, sf *serverFlags, stderr io.Writer) *decoySet {
	return &decoySet{s: s, sf: sf, stderr: stderr, warned: map[string]bool{}}
}

// load reads the pool: each file or folder, and the tools of each decoy
// servers file, whose servers are closed again once listed (decoys are
// never called).
func (d *decoySet) load(ctx context.Context) (*decoys.Pool, error) {
	if d.pool != nil {
		return d.pool, nil
	}
	var tools []servers.Tool
	for _, src := range d.s.Decoys {
		if src.Path != "" {
			ts, err := decoys.LoadPath(src.Path, d.sf.propertyOrder)
			if err != nil {
				return nil, asUsage(fmt.Errorf("decoys (%s): %w", src.Pos, err))
			}
			tools = append(tools, ts...)
			continue
		}
		cfg, err := servers.Load(src.ServersPath)
		if err != nil {
			return nil, asUsage(fmt.Errorf("decoys (%s): %w", src.Pos, err))
		}
		cat, err := connectServers(ctx, cfg, d.sf, d.stderr)
		if err != nil {
			return nil, fmt.Errorf("decoys (%s): %w", src.Pos, err)
		}
		tools = append(tools, cat.Tools()...)
		cat.Close()
	}
	d.pool = decoys.NewPool(tools)
	d.warn(d.pool.Warnings())
	return d.pool, nil
}

func (d *decoySet) warn(ws []string) {
	for _, w := range ws {
		if !d.warned[w] {
			d.warned[w] = true
			fmt.Fprintf(d.stderr, "toolgrade: warning: %s\n", reports.Printable(w))
		}
	}
}

// add offers n decoys beside tools (cat resolves and validates the real
// ones), drawn with the suite's seed; tools may be any base (the servers',
// an overlay's, one case's).
func (d *decoySet) add(ctx context.Context, tools bridge.Toolbox, cat score.Catalog, n int) (*decoys.Toolbox, error) {
	pool, err := d.load(ctx)
	if err != nil {
		return nil, err
	}
	tb, err := decoys.New(tools, cat, pool, n, d.s.DrawSeed())
	if err != nil {
		return nil, asUsage(err)
	}
	d.warn(tb.Warnings())
	return tb, nil
}
