package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/toolgrade/toolgrade/internal/cli"
	"github.com/toolgrade/toolgrade/internal/draft"
	"github.com/toolgrade/toolgrade/internal/runs"
	"github.com/toolgrade/toolgrade/internal/store"
	"github.com/toolgrade/toolgrade/internal/termtext"
)

// runCases is `toolgrade cases SUBCOMMAND`: from or generate.
func runCases(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		switch args[0] {
		case "from":
			return runCasesFrom(ctx, args[1:], stdin, stdout, stderr)
		case "generate":
			return runCasesGenerate(ctx, args[1:], stdin, stdout, stderr)
		case "-h", "-help", "--help":
			runCasesFrom(ctx, args, stdin, stdout, stderr)
			return runCasesGenerate(ctx, args, stdin, stdout, stderr)
		}
		return cli.Usagef("cases: unknown subcommand %q; the ones there are: toolgrade cases from DIR..., toolgrade cases generate --servers FILE --model NAME", args[0])
	}
	return cli.Usagef("cases: give a subcommand: toolgrade cases from DIR..., or toolgrade cases generate --servers FILE --model NAME")
}

// runCasesFrom is `toolgrade cases from DIR...`: a draft suite from recorded
// conversations (serve --record) or a run's trials, written by
// internal/draft. Unreadable lines are warnings and skipped, as every reader
// of trials treats them; an input that cannot be read at all, or that holds
// no conversation a case can be drafted from, is a usage error.
func runCasesFrom(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("cases from", "DIR...", stderr)
	outPath := fs.String("o", "", "write the draft suite to `FILE` (which must not exist yet) instead of stdout")
	servers := fs.String("servers", "", "mcpServers `FILE` to name in the draft's servers: key (written relative to -o's folder)")
	name := fs.String("name", "", "the draft suite's `NAME` (default: the file's name)")
	minSim := fs.Float64("min-similarity", draft.DefaultMinSimilarity, "merge two questions whose normalised edit similarity is at least `S` (0 < S ≤ 1; 1: only questions equal once case, spaces and punctuation are ignored) and whose expected tools agree")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return cli.Usagef("cases from: give a serve --record directory, a run directory or a trials or transcripts file")
	}
	if math.IsNaN(*minSim) || *minSim <= 0 || *minSim > 1 {
		return cli.Usagef("cases from: --min-similarity %g: must be above 0 and at most 1", *minSim)
	}
	if *outPath != "" {
		if _, err := os.Lstat(*outPath); err == nil {
			return cli.Usagef("cases from: -o %s exists; a draft never replaces a suite someone may have reviewed: give a new file, or delete it first", *outPath)
		}
	}
	serversRef := ""
	if *servers != "" {
		if serversRef, err = draft.ServersRef(*servers, *outPath); err != nil {
			return cli.Usagef("cases from: %v", err)
		}
	}
	var convs []draft.Conversation
	for _, p := range pos {
		warnings, err := draft.Read(p, func(c draft.Conversation) { convs = append(convs, c) })
		store.Warn(stderr, warnings)
		if err != nil {
			var pe *os.PathError
			if errors.As(err, &pe) {
				return cli.Usagef("cases from: cannot read %s: %v", pe.Path, pe.Err)
			}
			return cli.Usagef("cases from: %v", err)
		}
	}
	d := draft.Build(convs, &draft.Options{Name: *name, Servers: serversRef, MinSimilarity: *minSim})
	for _, s := range d.Skipped {
		fmt.Fprintf(stderr, "toolgrade: warning: %s: skipped: %s\n", s.Source, s.Reason)
	}
	if len(d.Cases) == 0 {
		return cli.Usagef("cases from: no case to draft: %s read, %d skipped", termtext.Count(d.Read, "conversation"), len(d.Skipped))
	}
	if err := runs.WriteOutput(*outPath, stdout, func(w io.Writer) error { return d.WriteYAML(w, pos) }); err != nil {
		return err
	}
	where := ""
	if *outPath != "" {
		where = " into " + *outPath
	}
	fmt.Fprintf(stderr, "toolgrade: drafted %s%s; every one awaits review (review: true)\n", d.Summary(), where)
	return nil
}
