package runs

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/toolgrade/toolgrade/internal/cli"
	"github.com/toolgrade/toolgrade/internal/compare"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/store"
)

// Merge joins the shard directories dirs into the run directory out (see
// store.Merge), with MergeDrift as the check that they ran the same thing;
// reading warnings go to stderr. A refusal is a cli.UsageError.
func Merge(out string, dirs []string, stderr io.Writer) (*store.Reader, error) {
	rd, warnings, err := store.Merge(out, dirs, store.MergeOptions{Drift: MergeDrift})
	store.Warn(stderr, warnings)
	if err != nil {
		var me *store.MergeError
		if errors.As(err, &me) {
			return nil, cli.Usagef("merge: %v", err)
		}
		return nil, DirError(out, err)
	}
	return rd, nil
}

// OpenRuns opens the run directory of report or show (cmd), or, given
// several, reads them as the shards of one run, in memory and read-only,
// with the checks of Merge.
func OpenRuns(cmd string, dirs []string, stderr io.Writer) (*store.Reader, error) {
	if len(dirs) == 1 {
		run, err := store.Open(dirs[0])
		if err != nil {
			return nil, cli.AsUsage(fmt.Errorf("%s: %w", cmd, err))
		}
		return run, nil
	}
	if err := wholeRuns(cmd, dirs); err != nil {
		return nil, err
	}
	run, warnings, err := store.Join(dirs, store.MergeOptions{Drift: MergeDrift})
	store.Warn(stderr, warnings)
	if err != nil {
		return nil, cli.Usagef("%s: %v", cmd, err)
	}
	return run, nil
}

// wholeRuns refuses several directories of which two or more hold whole
// runs (no shard): what a glob over runs/ gives once a suite ran twice.
// It names the newest, the one the user most likely meant.
func wholeRuns(cmd string, dirs []string) error {
	var whole []*record.Run
	var names []string
	for _, d := range dirs {
		r, err := record.ReadRun(d)
		if err != nil || r.Shard != nil {
			continue // store.Join says what is wrong with it
		}
		whole, names = append(whole, r), append(names, d)
	}
	if len(whole) < 2 {
		return nil
	}
	newest := 0
	for i, r := range whole {
		if r.Start.After(whole[newest].Start) {
			newest = i
		}
	}
	list := strings.Join(names, ", ")
	if len(names) > 4 {
		list = fmt.Sprintf("%s and %d more", strings.Join(names[:3], ", "), len(names)-3)
	}
	return cli.Usagef("%s: %d of these directories are whole runs, not the shards of one (%s): give one run directory (or the shards of one run); the newest is %s, started %s: `toolgrade %s %s`",
		cmd, len(whole), list, names[newest], whole[newest].Start.Local().Format("2006-01-02 15:04"), cmd, names[newest])
}

// MergeDrift is compare's drift between two shards, less what may differ
// between machines that ran the same thing: the Ollama version (a warning
// a report of hosts makes) is not a reason to refuse.
func MergeDrift(a, b *record.Run) []string {
	d, cat := compare.RunDrift(a, b)
	var out []string
	for _, x := range d {
		if x.Field == "ollama version" {
			continue
		}
		out = append(out, fmt.Sprintf("%s: %s ≠ %s", x.Field, x.Base, x.Current))
	}
	for _, c := range cat {
		s := fmt.Sprintf("catalog %s: %s", c.Variant, c.Change)
		if c.Tool != "" {
			s += " of " + c.Tool
		}
		out = append(out, s)
	}
	return out
}
