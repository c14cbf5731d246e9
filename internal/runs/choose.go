package runs

import (
	"errors"
	"io"

	"github.com/toolgrade/toolgrade/internal/choose"
	"github.com/toolgrade/toolgrade/internal/cli"
	"github.com/toolgrade/toolgrade/internal/store"
)

// ChooseSpec is `toolgrade choose` as its flags gave it; the format the
// choice is written in is the command's (internal/report's registry).
type ChooseSpec struct {
	// Dirs are the run directory, or the shard directories of one run.
	Dirs []string
	// Options are the reference, the margin (0: the run's own) and
	// truncated trials.
	Options choose.Options
}

// Choose makes the choice of spec (package choose), warning about the
// run's bad lines on stderr. A directory or reference the run cannot take
// is a *cli.UsageError.
func Choose(spec ChooseSpec, stderr io.Writer) (*choose.Choice, error) {
	if len(spec.Dirs) == 0 {
		return nil, cli.Usagef("choose: give a run directory, or the shard directories of one run")
	}
	run, err := OpenRuns("choose", spec.Dirs, stderr)
	if err != nil {
		return nil, err
	}
	c, warnings, err := choose.Choose(run, spec.Options)
	store.Warn(stderr, warnings)
	if ue := (*cli.UsageError)(nil); errors.As(err, &ue) {
		return nil, cli.Usagef("choose: %v", err)
	} else if err != nil {
		return nil, err
	}
	return c, nil
}
