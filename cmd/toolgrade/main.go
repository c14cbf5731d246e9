// Command toolgrade measures how well Ollama models choose and fill the tools
// of MCP servers. Run `toolgrade help` for the commands.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/toolgrade/toolgrade/internal/cli"
	"github.com/toolgrade/toolgrade/internal/srcpos"
	"github.com/toolgrade/toolgrade/internal/termtext"
)

// Exit codes, documented in docs/commands.md.
const (
	exitOK          = 0
	exitFailed      = 1   // the command ran but its work failed (e.g. Ollama broke mid-conversation)
	exitUsage       = 2   // bad flags, arguments or config files
	exitInfra       = 3   // infrastructure (Ollama, MCP servers) prevented the work
	exitGate        = 4   // the work completed and a CI gate (--gate, gates:, --max-regressions) failed
	exitInterrupted = 130 // stopped by Ctrl-C or SIGTERM
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		// After the first Ctrl-C the run winds down cleanly; a second one
		// gets Go's default, which ends the process at once.
		<-ctx.Done()
		stop()
	}()
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	interrupted := ctx.Err() != nil
	stop()
	printError(os.Stderr, err, interrupted)
	os.Exit(exitCode(err, interrupted))
}

// printError prints the error that ended the command, if there is one to
// print: -h is none, and neither is the cancellation of Ctrl-C, whose
// message the command has already printed, nor a failed gate, whose lines
// must stay the last ones.
func printError(w io.Writer, err error, interrupted bool) {
	var ge *gateError
	if err == nil || errors.Is(err, flag.ErrHelp) || (interrupted && errors.Is(err, context.Canceled)) || errors.As(err, &ge) {
		return
	}
	// Errors may quote what a server or Ollama sent.
	fmt.Fprintln(w, "toolgrade:", termtext.Printable(err.Error()))
}

// command is one subcommand.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"ask", "ask one question through the bridge loop and print the tool calls and the answer", runAsk},
		{"tools", "print the tool catalog as the model will see it", runTools},
		{"run", "run a suite of cases against models and write the results", runRun},
		{"report", "rebuild a run's reports from its files alone", runReport},
		{"merge", "join the shard directories of a run (run --shard) into one run directory", runMerge},
		{"show", "print the transcripts of a run's trials, filtered by model, variant, case, repeat or outcome", runShow},
		{"serve", "serve an Ollama-compatible proxy that adds the MCP tools to every /api/chat and runs their calls", runServe},
		{"view", "serve a local page of every run in folders of runs (default runs/): trends, reports, comparisons, live progress", runView},
		{"init", "start a folder: a servers file (yours, or Claude Desktop's) and a starter suite, drafted by a model with --model", runInit},
		{"cases", "draft a suite: from recorded conversations (serve --record) or a run's transcripts, cases from DIR...; by an author model, cases generate", runCases},
		{"rescore", "judge a run's recorded transcripts again against an edited suite, offline", runRescore},
		{"compare", "compare two runs, or two models or variants of one run, case by case with paired verdicts", runCompare},
		{"choose", "choose a model: every model of a run with its quality beside its cost, the Pareto frontier, and whether a cheaper one is not worse by more than a margin", runChoose},
		{"plan", "how many paired trials would show a model not worse than another by more than a margin, from a pilot run", runPlan},
		{"import", "write a suite from another benchmark's files: import bfcl, the Berkeley Function-Calling Leaderboard's questions and possible answers", runImport},
		{"fake-ollama", "serve a scripted fake Ollama (for demos and tests)", runFakeOllama},
		{"fake-mcp", "serve a fake MCP server over stdio (docs, faulty, notes)", runFakeMCP},
		{"version", "print toolgrade's version, and the Go and the Ollama and MCP modules it was built with", runVersion},
	}
}

// run is the whole program; tests call it in-process.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) > 0 && (args[0] == "--version" || args[0] == "-version") {
		return runVersion(ctx, args[1:], stdin, stdout, stderr)
	}
	if len(args) > 1 && args[0] == "help" {
		return run(ctx, []string{args[1], "-h"}, stdin, stdout, stderr) // as `go help build`
	}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stdout)
		if len(args) == 0 {
			return cli.Usagef("no command given")
		}
		return nil
	}
	var names []string
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(ctx, args[1:], stdin, stdout, stderr)
		}
		names = append(names, c.name)
	}
	return cli.Usagef("%s", srcpos.Unknown("command", args[0], names))
}

// commandSummary is what command (its first word) does, as help lists it.
func commandSummary(command string) string {
	name, _, _ := strings.Cut(command, " ")
	for _, c := range commands() {
		if c.name == name {
			return c.summary
		}
	}
	return ""
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "toolgrade measures how well Ollama models choose and fill the tools of MCP servers.")
	fmt.Fprintln(w, "\nUsage: toolgrade COMMAND [flags] [args]\n\nCommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-12s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun `toolgrade COMMAND -h` for a command's flags.")
}
