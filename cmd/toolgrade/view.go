package main

import (
	"context"
	"io"

	"github.com/toolgrade/toolgrade/internal/view"
)

// runView is `toolgrade view [DIR...]`: every run in the folders, on a
// local page (internal/view).
func runView(ctx context.Context, args []string, _ io.Reader, _, stderr io.Writer) error {
	fs := newFlags("view", "[DIR...]", stderr)
	o := view.Options{}
	var hosts stringList
	fs.StringVar(&o.Listen, "listen", "127.0.0.1:0", "loopback `ADDR` to listen on (port 0: any free port)")
	fs.StringVar(&o.AddrFile, "addr-file", "", "write the address listened on to `FILE`")
	fs.Var(&hosts, "allow-host", "Host `NAME` let in beside loopback names and addresses; repeatable")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	o.Dirs, o.Hosts = pos, hosts
	return view.Serve(ctx, o, stderr)
}
