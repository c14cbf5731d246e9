package view

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"

	"github.com/toolgrade/toolgrade/internal/cli"
	"github.com/toolgrade/toolgrade/internal/proxy"
	"github.com/toolgrade/toolgrade/internal/runs"
)

// Options are `toolgrade view`'s settings.
type Options struct {
	// Dirs are the folders of run directories (or run directories);
	// none: runs, where `toolgrade run` writes.
	Dirs []string
	// Listen is the loopback address to listen on.
	Listen string
	// AddrFile, when set, receives the address listened on (for scripts
	// and tests that listen on port 0).
	AddrFile string
	// Hosts are Host names let in beside loopback ones.
	Hosts []string
}

// CheckListen refuses an address off loopback, as serve does: the viewer
// shows every run's transcripts to whoever can reach it.
func CheckListen(addr string) error {
	if err := proxy.LoopbackOnly(addr); err != nil {
		return cli.Usagef("view: --listen %q: view listens on loopback only (127.0.0.1, ::1 or localhost): it shows your runs to whoever calls it", addr)
	}
	return nil
}

// Serve runs the viewer until ctx ends, saying where on stderr.
func Serve(ctx context.Context, o Options, stderr io.Writer) error {
	if err := CheckListen(o.Listen); err != nil {
		return err
	}
	if len(o.Dirs) == 0 {
		o.Dirs = []string{"runs"}
	}
	for _, d := range o.Dirs {
		if _, err := os.Stat(d); err != nil {
			fmt.Fprintf(stderr, "toolgrade view: %v (listed with its error)\n", err)
		}
	}
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return runs.AsInfra(fmt.Errorf("view: %w", err))
	}
	fmt.Fprintf(stderr, "toolgrade view: http://%s/ shows the runs in %s\n", ln.Addr(), strings.Join(o.Dirs, ", "))
	if o.AddrFile != "" {
		if err := os.WriteFile(o.AddrFile, []byte(ln.Addr().String()+"\n"), 0o644); err != nil {
			ln.Close()
			return err
		}
	}
	host, _, _ := net.SplitHostPort(o.Listen)
	h := Handler(o.Dirs, append([]string{host}, o.Hosts...))
	if err := proxy.Serve(ctx, ln, h, proxy.ServeOptions{Grace: 2 * time.Second}); err != nil {
		return runs.AsInfra(fmt.Errorf("view: %w", err))
	}
	return ctx.Err()
}
