package store

import (
	"errors"
	"io"

	"github.com/toolgrade/toolgrade/internal/cli"
	"github.com/toolgrade/toolgrade/internal/record"
)

// EachTrial calls fn for every trial of the run (the last line of each
// key), warns about unreadable lines on warn, and makes a run a newer
// toolgrade wrote a *cli.UsageError: upgrading is the user's to do. It is
// how every report and command reads a run's trials.
func (r *Reader) EachTrial(warn io.Writer, fn func(*record.Trial)) error {
	warnings, err := r.Trials(fn)
	return warnAndClassify(warn, warnings, err)
}

// EachSlimTrial is EachTrial with the trials read slim (SlimTrials): no
// messages, requests, response text or tool arguments and results; in one
// pass when it can, calling reset should it start over.
func (r *Reader) EachSlimTrial(warn io.Writer, reset func(), fn func(*record.Trial)) error {
	warnings, err := r.SlimTrials(reset, fn)
	return warnAndClassify(warn, warnings, err)
}

// warnAndClassify prints a read's warnings and makes a newer format's
// error a usage error.
func warnAndClassify(warn io.Writer, warnings []*record.SyntaxError, err error) error {
	Warn(warn, warnings)
	var fe *record.FormatError
	if errors.As(err, &fe) {
		return cli.AsUsage(err)
	}
	return err
}
