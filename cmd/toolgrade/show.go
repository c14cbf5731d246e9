package main

import (
	"bufio"
	"context"
	"io"
	"os"

	"github.com/toolgrade/toolgrade/internal/cli"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/report"
	"github.com/toolgrade/toolgrade/internal/runs"
	"golang.org/x/term"
)

func runShow(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("show", "DIR | SHARD_DIR...", stderr)
	var f runs.TrialFilter
	fs.StringVar(&f.Model, "model", "", "show only the trials of this model: a `NAME`, or a glob such as 'qwen3:*'")
	fs.StringVar(&f.Variant, "variant", "", "show only the trials of this variant (`NAME`; base: the servers' own descriptions), or a glob")
	fs.StringVar(&f.Case, "case", "", "show only the trials of this case: an `ID`, or a glob such as 'menu-*'")
	fs.Var(&f.Repeat, "repeat", "show only repeat `N` of each case (0 is the first)")
	outcomes := fs.String("outcome", "", "show only the trials with one of these outcomes `O` (comma-separated; fail: every scored trial that did not pass)")
	colorMode := fs.String("color", "auto", "colour, `auto|always|never`: auto (on a terminal, unless NO_COLOR is set), always or never")
	full := fs.Bool("full", false, "show every tool result and argument whole instead of cutting long ones")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return cli.Usagef("show: give a run directory, or the shard directories of one run")
	}
	if err := f.SetOutcomes(*outcomes); err != nil {
		return err
	}
	if err := f.Check(); err != nil {
		return err
	}
	color, err := colorOn(*colorMode, stdout, os.Getenv)
	if err != nil {
		return err
	}
	run, err := runs.OpenRuns("show", pos, stderr)
	if err != nil {
		return err
	}
	f.Judge = record.JudgeOptionsOf(run.Run)
	out := bufio.NewWriter(stdout)
	p := report.NewTranscriptPrinter(out, &report.TranscriptOptions{Color: color, Full: *full})
	seen := runs.NewTrialsSeen()
	// Trials streams one trial at a time, so only the one being printed
	// is held, whatever the size of the run.
	if err := run.EachTrial(stderr, func(t *record.Trial) {
		seen.Add(t, &f)
		if ctx.Err() == nil && f.Match(t) {
			p.Add(t)
		}
	}); err != nil {
		return err
	}
	if err := out.Flush(); err != nil {
		return err
	}
	if err := p.Err(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if p.Count() == 0 {
		return f.NoMatch(run.Dir, seen)
	}
	return nil
}

// colorOn decides whether show colours its output: always and never say so;
// auto colours when w is a terminal, unless NO_COLOR is set to anything (as
// no-color.org asks) or TERM is dumb. A flag beats the environment, so
// always colours even under NO_COLOR.
func colorOn(mode string, w io.Writer, getenv func(string) string) (bool, error) {
	switch mode {
	case "always":
		return true, nil
	case "never":
		return false, nil
	case "auto":
		if getenv("NO_COLOR") != "" || getenv("TERM") == "dumb" {
			return false, nil
		}
		f, ok := w.(*os.File)
		return ok && term.IsTerminal(int(f.Fd())), nil
	}
	return false, cli.Usagef("--color %q: must be auto, always or never", mode)
}
