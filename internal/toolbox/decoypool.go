package toolbox

import (
	"context"
	"fmt"

	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/cli"
	"github.com/toolgrade/toolgrade/internal/serversfile"
	"github.com/toolgrade/toolgrade/internal/suite"
	"github.com/toolgrade/toolgrade/internal/toolschema"
)

// decoyPool is a suite's decoy pool, read once when a variant first needs
// it, and the warnings already logged, so each is said once.
type decoyPool struct {
	s      *suite.Suite
	conn   ConnectOptions
	pool   *Pool
	warned map[string]bool
}

func newDecoyPool(s *suite.Suite, conn ConnectOptions) *decoyPool {
	return &decoyPool{s: s, conn: conn, warned: map[string]bool{}}
}

// load reads the pool: each file or folder, and the tools of each decoy
// servers file, whose servers are closed again once listed (decoys are
// never called).
func (d *decoyPool) load(ctx context.Context) (*Pool, error) {
	if d.pool != nil {
		return d.pool, nil
	}
	var tools []toolschema.Tool
	for _, src := range d.s.Decoys {
		if src.Path != "" {
			ts, err := LoadDecoys(src.Path, d.conn.propertyOrder())
			if err != nil {
				return nil, cli.AsUsage(fmt.Errorf("decoys (%s): %w", src.Pos, err))
			}
			tools = append(tools, ts...)
			continue
		}
		cfg, err := serversfile.Load(ctx, src.ServersPath)
		if err != nil {
			return nil, cli.AsUsage(fmt.Errorf("decoys (%s): %w", src.Pos, err))
		}
		cat, err := Connect(ctx, cfg, d.conn)
		if err != nil {
			return nil, fmt.Errorf("decoys (%s): %w", src.Pos, err)
		}
		tools = append(tools, cat.Tools()...)
		cat.Close()
	}
	d.pool = NewPool(tools)
	d.warn(d.pool.Warnings())
	return d.pool, nil
}

func (d *decoyPool) warn(ws []string) {
	for _, w := range ws {
		if !d.warned[w] {
			d.warned[w] = true
			d.conn.warn(w)
		}
	}
}

// add offers n decoys beside tools (cat resolves and validates the real
// ones), drawn with the suite's seed; tools may be any base (the servers',
// an overlay's, one case's).
func (d *decoyPool) add(ctx context.Context, tools bridge.Toolbox, cat suite.Catalog, n int) (*Decoyed, error) {
	pool, err := d.load(ctx)
	if err != nil {
		return nil, err
	}
	tb, err := AddDecoys(tools, cat, pool, n, d.s.DrawSeed())
	if err != nil {
		return nil, cli.AsUsage(err)
	}
	d.warn(tb.Warnings())
	return tb, nil
}
