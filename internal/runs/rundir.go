package runs

import (
	"errors"

	"github.com/toolgrade/toolgrade/internal/cli"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/store"
)

// DirError says what a run directory refused in terms of run's flags: a
// fresh run into a folder that holds files, a run another process holds, a
// --resume of a folder that holds no run or one a newer toolgrade wrote.
// These are the user's to fix (a cli.UsageError); other errors (the disk's)
// pass unchanged.
func DirError(dir string, err error) error {
	var (
		ne   *store.NotEmptyError
		busy *store.BusyError
		nr   *store.NotRunError
		fe   *record.FormatError
	)
	switch {
	case errors.As(err, &ne) && ne.HasRun:
		return heldRun(dir)
	case errors.As(err, &ne):
		return cli.Usagef("run: %v; a fresh run needs an empty or new --out folder", err)
	case errors.As(err, &busy):
		return cli.AsUsage(err)
	case errors.As(err, &nr):
		return cli.Usagef("--resume: %v", err)
	case errors.As(err, &fe):
		// A trials line of a newer toolgrade: upgrading is the user's to do.
		return cli.AsUsage(err)
	}
	return err
}

// heldRun is the refusal of a fresh run into dir, which holds a run: a
// finished one is to be kept (another --out), an unfinished one resumed.
func heldRun(dir string) error {
	if r, err := record.ReadRun(dir); err == nil && r.Status == store.StatusComplete {
		return cli.Usagef("run: %s holds a finished run (of %s, %s): give another --out, or leave --out out for a new folder under runs/; `toolgrade report %s` shows it",
			dir, r.Suite.Name, r.Start.Local().Format("2006-01-02 15:04"), dir)
	}
	return cli.Usagef("run: %s already holds a run that did not finish; use --resume %s to finish it, or another --out", dir, dir)
}
