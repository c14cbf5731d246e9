package runs

import (
	"context"
	"fmt"
	"io"

	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/cli"
	"github.com/toolgrade/toolgrade/internal/mcpclient"
	"github.com/toolgrade/toolgrade/internal/serversfile"
	"github.com/toolgrade/toolgrade/internal/suite"
	"github.com/toolgrade/toolgrade/internal/termtext"
)

// ConnectServers connects every server of cfg with opts, tells stderr of
// the ones disabled, skipped or warned about, and insists on at least one
// tool (an InfraError otherwise).
func ConnectServers(ctx context.Context, cfg *serversfile.Config, opts *mcpclient.Options, stderr io.Writer) (*mcpclient.Catalog, error) {
	for _, w := range cfg.Warnings {
		fmt.Fprintf(stderr, "toolgrade: warning: %s\n", w)
	}
	for _, name := range cfg.Disabled {
		fmt.Fprintf(stderr, "toolgrade: server %q is disabled in %s; not started\n", name, cfg.Path)
	}
	cat, err := mcpclient.Connect(ctx, cfg, opts)
	if err != nil {
		return nil, AsInfra(err)
	}
	for _, f := range cat.Failed() {
		// The error may quote the server's stderr.
		fmt.Fprintf(stderr, "toolgrade: server %q skipped: %s\n", f.Name, termtext.Printable(f.Err.Error()))
	}
	for _, w := range cat.Warnings() {
		fmt.Fprintf(stderr, "toolgrade: warning: %s\n", termtext.Printable(w))
	}
	if len(cat.Tools()) == 0 {
		cat.Close()
		if len(cfg.Servers) == 0 && len(cfg.Disabled) > 0 {
			return nil, AsInfra(fmt.Errorf("no tools: every server in %s is disabled", cfg.Path))
		}
		return nil, AsInfra(fmt.Errorf("no tools: the servers in %s offered none (%d of %d failed to connect)",
			cfg.Path, len(cat.Failed()), len(cfg.Servers)))
	}
	return cat, nil
}

// SuiteServers reads the suite's servers: a file beside it, or inline.
func SuiteServers(ctx context.Context, s *suite.Suite) (*serversfile.Config, error) {
	switch {
	case s.ServersNode != nil:
		return serversfile.ParseNode(s.ServersNode, s.Path, s.Dir)
	case s.ServersPath != "":
		return serversfile.Load(ctx, s.ServersPath)
	}
	return nil, fmt.Errorf("%s names no MCP servers: add `servers: FILE` (an mcpServers file) or an inline mcpServers object", s.Path)
}

// runServers is the servers a run of s starts: SuiteServers, or nil for a
// suite that names none and whose every case brings its own tools.
func runServers(ctx context.Context, s *suite.Suite) (*serversfile.Config, error) {
	own := len(s.Cases) > 0
	for i := range s.Cases {
		own = own && s.Cases[i].Tools != nil
	}
	if s.ServersPath == "" && s.ServersNode == nil && own {
		return nil, nil
	}
	cfg, err := SuiteServers(ctx, s)
	return cfg, cli.AsUsage(err)
}

// toolInfos is what a tool policy knows of every tool of the catalog.
func toolInfos(cat *mcpclient.Catalog) []bridge.ToolInfo {
	var out []bridge.ToolInfo
	for _, t := range cat.Tools() {
		if info, ok := cat.ToolInfo(t.Exposed); ok {
			out = append(out, info)
		}
	}
	return out
}
