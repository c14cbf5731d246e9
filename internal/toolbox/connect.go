package toolbox

import (
	"context"
	"fmt"

	"github.com/toolgrade/toolgrade/internal/mcpclient"
	"github.com/toolgrade/toolgrade/internal/serversfile"
)

// ConnectOptions say how the toolbox connects servers files (the suite's,
// a variant's, the decoys') and where it says what did not stop it. The
// zero value connects with the servers' defaults and says nothing.
type ConnectOptions struct {
	// Servers are the options servers are connected with; nil: the
	// defaults of mcpclient.Connect.
	Servers *mcpclient.Options
	// Log receives each line there is to say, without the "toolgrade: " a
	// command prints first; warnings begin "warning: ". Nil: nothing is
	// said.
	Log func(line string)
	// Printable escapes the text servers and files wrote (their errors,
	// their warnings, tool names) before it goes to Log, for a terminal
	// (reports.Printable); nil keeps it as written.
	Printable func(string) string
}

func (o ConnectOptions) log(format string, args ...any) {
	if o.Log != nil {
		o.Log(fmt.Sprintf(format, args...))
	}
}

func (o ConnectOptions) printable(s string) string {
	if o.Printable == nil {
		return s
	}
	return o.Printable(s)
}

// warn logs a warning whose text came from servers or files.
func (o ConnectOptions) warn(w string) { o.log("warning: %s", o.printable(w)) }

func (o ConnectOptions) propertyOrder() string {
	if o.Servers == nil {
		return ""
	}
	return o.Servers.PropertyOrder
}

// Connect connects the servers of cfg and logs what did not stop it: the
// file's warnings, its disabled servers, the servers that failed and were
// skipped, the catalog's warnings. It fails, as ErrInfra, when the servers
// offer no tool. Nil cfg (a suite without servers whose every case brings
// its own tools) starts no server: an empty catalog.
func Connect(ctx context.Context, cfg *serversfile.Config, o ConnectOptions) (*mcpclient.Catalog, error) {
	if cfg == nil {
		cat, err := mcpclient.Connect(ctx, &serversfile.Config{}, o.Servers)
		return cat, infra(err)
	}
	for _, w := range cfg.Warnings {
		o.log("warning: %s", w)
	}
	for _, name := range cfg.Disabled {
		o.log("server %q is disabled in %s; not started", name, cfg.Path)
	}
	cat, err := mcpclient.Connect(ctx, cfg, o.Servers)
	if err != nil {
		return nil, infra(err)
	}
	for _, f := range cat.Failed() {
		// The error may quote the server's stderr.
		o.log("server %q skipped: %s", f.Name, o.printable(f.Err.Error()))
	}
	for _, w := range cat.Warnings() {
		o.warn(w)
	}
	if len(cat.Tools()) == 0 {
		cat.Close()
		if len(cfg.Servers) == 0 && len(cfg.Disabled) > 0 {
			return nil, infra(fmt.Errorf("no tools: every server in %s is disabled", cfg.Path))
		}
		return nil, infra(fmt.Errorf("no tools: the servers in %s offered none (%d of %d failed to connect)",
			cfg.Path, len(cat.Failed()), len(cfg.Servers)))
	}
	return cat, nil
}
