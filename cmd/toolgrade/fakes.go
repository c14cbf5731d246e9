package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"

	fakemcp "github.com/toolgrade/toolgrade/fakes/mcp"
	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/internal/cli"
	"github.com/toolgrade/toolgrade/internal/runs"
	"github.com/toolgrade/toolgrade/internal/srcpos"
)

func runFakeOllama(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("fake-ollama", "", stderr)
	listen := fs.String("listen", "127.0.0.1:11434", "`ADDR` to listen on (loopback)")
	script := fs.String("script", "", "script `FILE` (default: the embedded demo script)")
	seed := fs.Uint64("seed", 1, "seed for call ids")
	latency := fs.Duration("latency", -1, "latency before each answer, replacing the script's (default: the script's)")
	addrFile := fs.String("addr-file", "", "write the address it listens on to `FILE` once listening (for scripts using --listen 127.0.0.1:0)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return cli.Usagef("fake-ollama: unexpected argument %q", pos[0])
	}
	var s *fakeollama.Script
	if *script == "" {
		s, err = fakeollama.DemoScript()
	} else {
		s, err = fakeollama.LoadScript(*script)
	}
	if err != nil {
		return cli.AsUsage(err)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return runs.AsInfra(fmt.Errorf("fake-ollama: %w", err))
	}
	fmt.Fprintf(stderr, "fake Ollama listening on http://%s\n", ln.Addr())
	if err := writeAddrFile(*addrFile, ln); err != nil {
		return err
	}
	srv := fakeollama.New(s, &fakeollama.Options{Seed: *seed, Latency: *latency})
	return srv.Serve(ctx, ln)
}

func runFakeMCP(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	more := "Servers:"
	for _, n := range fakemcp.Names() {
		more += fmt.Sprintf("\n  %-7s %s", n, fakemcp.About(n))
	}
	more += "\n\nIn a servers file: \"docs\": {\"command\": \"toolgrade\", \"args\": [\"fake-mcp\", \"docs\"]}"
	fs := newFlagsHelp(cli.Help{Command: "fake-mcp", Args: "NAME", More: more}, stderr)
	dir := fs.String("dir", "", "`DIR` holding notes' "+fakemcp.NotesFile+" (default: the working directory)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	names := fakemcp.Names()
	if len(pos) != 1 {
		return cli.Usagef("fake-mcp: give one server name: %s or %s", strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
	}
	if !slices.Contains(names, pos[0]) {
		return cli.Usagef("fake-mcp: %s", srcpos.Unknown("server", pos[0], names))
	}
	if *dir != "" {
		if pos[0] != "notes" {
			return cli.Usagef("fake-mcp: --dir is for notes, which keeps its notes in a directory; %s keeps none", pos[0])
		}
		return fakemcp.Serve(ctx, fakemcp.Notes(&fakemcp.NotesOptions{Dir: *dir}), stdin, stdout)
	}
	return fakemcp.ServeStdio(ctx, pos[0], stdin, stdout)
}
