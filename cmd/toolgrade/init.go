package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"

	"github.com/toolgrade/toolgrade/internal/author"
	"github.com/toolgrade/toolgrade/internal/cli"
	"github.com/toolgrade/toolgrade/internal/confusable"
	"github.com/toolgrade/toolgrade/internal/draft"
	"github.com/toolgrade/toolgrade/internal/initdir"
	"github.com/toolgrade/toolgrade/internal/runs"
	"github.com/toolgrade/toolgrade/internal/toolbox"
)

// runInit is `toolgrade init`: a servers file and a starter suite in a
// folder (internal/initdir), the cases drafted by an author model with
// --model.
func runInit(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) (err error) {
	fs := newFlags("init", "", stderr)
	var sf serverFlags
	sf.register(fs)
	claude := fs.Bool("from-claude-desktop", false, "read the servers from Claude Desktop's config, where the app keeps it")
	var g genFlags
	g.register(fs)
	dir := fs.String("o", ".", "write the servers file and the suite into folder `DIR`")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return cli.Usagef("init: unexpected argument %q; the folder is -o DIR", pos[0])
	}
	src := sf.file
	if *claude == (src != "") {
		return cli.Usagef("init: give one of --servers FILE (an mcpServers file) and --from-claude-desktop")
	}
	if *claude {
		home, _ := os.UserHomeDir()
		src = initdir.ClaudeDesktopConfig(runtime.GOOS, home, os.Getenv)
	}
	if err := g.check("init"); err != nil {
		return err
	}
	sv, err := initdir.ReadServers(ctx, src, *dir, !*claude)
	if *claude && errors.Is(err, os.ErrNotExist) {
		return cli.Usagef("init: no Claude Desktop config at %s: give --servers FILE, an mcpServers file, instead", src)
	} else if err != nil {
		return cli.Usagef("init: %v", err)
	}
	serversPath, suitePath := filepath.Join(*dir, sv.Name), filepath.Join(*dir, initdir.SuiteFile)
	if in := draft.InTheWay(serversPath, suitePath, suitePath+author.LogSuffix); len(in) > 0 {
		return cli.AsUsage(draft.ErrInTheWay("init", in))
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		return err
	}
	if err := draft.WriteNew(serversPath, sv.Data); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.Remove(serversPath) // written by this init: nothing of the user's is lost
		}
	}()
	if g.model != "" {
		err = g.generate(ctx, sv.Config, &sf, suitePath, sv.Name, "toolgrade init", stdout, stderr)
	} else {
		err = writeStarter(ctx, sv, &sf, suitePath, *g.confusable, stderr)
	}
	if err == nil {
		fmt.Fprint(stdout, initdir.Next(serversPath, suitePath, g.model, sv))
	}
	return err
}

// writeStarter writes the starter suite of commented example cases.
func writeStarter(ctx context.Context, sv *initdir.Servers, sf *serverFlags, path string, minConfusable float64, stderr io.Writer) error {
	conn, err := connectOptions(sf, stderr)
	if err != nil {
		return err
	}
	cat, err := toolbox.Connect(ctx, sv.Config, conn)
	if err != nil {
		return runs.ToolboxErr(err)
	}
	defer cat.Close()
	pairs := confusable.Rank(confusable.FromOllama(cat.OllamaTools()), minConfusable)
	return draft.WriteNew(path, initdir.Starter(cat.Tools(), sv.Name, pairs))
}
