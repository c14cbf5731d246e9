package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/toolgrade/toolgrade/internal/author"
	"github.com/toolgrade/toolgrade/internal/cli"
	"github.com/toolgrade/toolgrade/internal/draft"
	"github.com/toolgrade/toolgrade/internal/runs"
	"github.com/toolgrade/toolgrade/internal/serversfile"
	"github.com/toolgrade/toolgrade/internal/toolbox"
)

// genFlags are the flags of a draft an author model writes: `cases
// generate`'s, and `init`'s with --model.
type genFlags struct {
	model, ollamaURL          string
	ot                        ollamaTimeouts
	perTool, irrelevant, seed int
	confusable                *float64
}

func (g *genFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&g.model, "model", "", "the author model `NAME` that drafts the cases (an Ollama model)")
	fs.StringVar(&g.ollamaURL, "ollama", "", "Ollama `URL` (default: OLLAMA_HOST, else http://127.0.0.1:11434)")
	g.ot.register(fs)
	fs.IntVar(&g.perTool, "per-tool", 3, "questions to ask the author for each tool, and for each confusable pair")
	fs.IntVar(&g.irrelevant, "irrelevant", 3, "questions no tool answers to ask for (no_tool cases); 0: none")
	fs.IntVar(&g.seed, "seed", author.DefaultSeed, "the seed of every request to the author (recorded with it)")
	g.confusable = confusableFlag(fs)
}

func (g *genFlags) check(cmd string) error {
	if g.perTool < 1 || g.irrelevant < 0 {
		return cli.Usagef("%s: --per-tool must be at least 1 and --irrelevant at least 0", cmd)
	}
	return checkConfusable(cmd, *g.confusable)
}

// generate has the author model draft the suite out (stdout when "") for
// the servers of cfg, which the draft names as serversRef.
func (g *genFlags) generate(ctx context.Context, cfg *serversfile.Config, sf *serverFlags, out, serversRef, cmd string, stdout, stderr io.Writer) error {
	ol, err := dialOllama(ctx, g.ollamaURL, &g.ot)
	if err != nil {
		return err
	}
	// An author writes JSON: it needs only be pulled, not call tools.
	info, err := ol.Models.Find(ctx, g.model)
	if err != nil {
		return runs.AsInfra(err)
	}
	conn, err := connectOptions(sf, stderr)
	if err != nil {
		return err
	}
	cat, err := toolbox.Connect(ctx, cfg, conn)
	if err != nil {
		return runs.ToolboxErr(err)
	}
	defer cat.Close()
	job := &author.Job{Out: out, Servers: serversRef, Command: cmd, Stdout: stdout, Stderr: stderr, Spec: author.Spec{
		Model: info, Chat: ol.Chat, Tools: cat.Tools(), PerTool: g.perTool, Irrelevant: g.irrelevant, Seed: g.seed, Confusable: *g.confusable}}
	d, err := job.Run(ctx)
	if re := (*author.RequestError)(nil); errors.As(err, &re) {
		return runs.AsInfra(err)
	}
	if err == nil && out != "" {
		fmt.Fprintf(stderr, "toolgrade: drafted %s into %s (the generation log: %s); every one awaits review (review: true)\n", d.Summary(), out, out+author.LogSuffix)
	}
	return err
}

// runCasesGenerate is `toolgrade cases generate`: an author model drafts a
// suite for the servers' tools (internal/author).
func runCasesGenerate(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagsHelp(cli.Help{Command: "cases generate", Summary: "an author model drafts a suite for the servers' tools: questions needing each tool, no_tool questions, questions telling confusable tools apart; each checked, marked review: true, its request logged"}, stderr)
	var sf serverFlags
	sf.register(fs)
	var g genFlags
	g.register(fs)
	out := fs.String("o", "", "write the draft to `FILE` and its generation log to FILE.gen.jsonl (neither may exist yet) instead of stdout")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return cli.Usagef("cases generate: unexpected argument %q", pos[0])
	}
	if sf.file == "" || g.model == "" {
		return cli.Usagef("cases generate: give --servers FILE and --model NAME, the author model")
	}
	if err := g.check("cases generate"); err != nil {
		return err
	}
	if in := draft.InTheWay(*out, *out+author.LogSuffix); *out != "" && len(in) > 0 {
		return cli.AsUsage(draft.ErrInTheWay("cases generate", in))
	}
	cfg, err := serversfile.Load(ctx, sf.file)
	if err != nil {
		return cli.AsUsage(err)
	}
	ref := sf.file
	if *out != "" {
		if ref, err = draft.ServersRef(sf.file, *out); err != nil {
			return cli.Usagef("cases generate: %v", err)
		}
	}
	return g.generate(ctx, cfg, &sf, *out, ref, "toolgrade cases generate", stdout, stderr)
}
