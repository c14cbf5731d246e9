package runs

import (
	"errors"
	"io"

	"github.com/toolgrade/toolgrade/internal/choose"
	"github.com/toolgrade/toolgrade/internal/cli"
	"github.com/toolgrade/toolgrade/internal/report"
	"github.com/toolgrade/toolgrade/internal/store"
)

// ChooseSpec is `toolgrade choose` as its flags gave it.
type ChooseSpec struct {
	// Dirs are the run directory, or the shard directories of one run.
	Dirs []string
	// Options are the reference, the margin (0: the run's own) and
	// truncated trials.
	Options choose.Options
	// Format is one of ChooseFormats; Out the file to write ("": stdout).
	Format, Out string
}

// Choose makes the choice of spec (package choose) and writes it. A flag
// or reference the run cannot take is a cli.UsageError.
func Choose(spec ChooseSpec, stdout, stderr io.Writer) error {
	write := map[string]func(io.Writer, *choose.Choice) error{
		"terminal": report.WriteChooseTerminal, "markdown": report.WriteChooseMarkdown,
		"json": report.WriteChooseJSON, "html": report.WriteChooseHTML,
	}[spec.Format]
	switch {
	case len(spec.Dirs) == 0:
		return cli.Usagef("choose: give a run directory, or the shard directories of one run")
	case write == nil:
		return cli.Usagef("choose: --format %q: want one of terminal, markdown, json, html", spec.Format)
	}
	run, err := OpenRuns("choose", spec.Dirs, stderr)
	if err != nil {
		return err
	}
	c, warnings, err := choose.Choose(run, spec.Options)
	store.Warn(stderr, warnings)
	if ue := (*cli.UsageError)(nil); errors.As(err, &ue) {
		return cli.Usagef("choose: %v", err)
	} else if err != nil {
		return err
	}
	return WriteOutput(spec.Out, stdout, func(w io.Writer) error { return write(w, c) })
}
