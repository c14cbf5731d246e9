package runs

import (
	"errors"
	"fmt"
	"io"

	"github.com/toolgrade/toolgrade/internal/compare"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/store"
)

// Merge joins the shard directories dirs into the run directory out (see
// store.Merge), with MergeDrift as the check that they ran the same thing;
// reading warnings go to stderr. A refusal is a UsageError.
func Merge(out string, dirs []string, stderr io.Writer) (*store.Reader, error) {
	rd, warnings, err := store.Merge(out, dirs, store.MergeOptions{Drift: MergeDrift})
	store.Warn(stderr, warnings)
	if err != nil {
		var me *store.MergeError
		if errors.As(err, &me) {
			return nil, Usagef("merge: %v", err)
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
			return nil, AsUsage(fmt.Errorf("%s: %w", cmd, err))
		}
		return run, nil
	}
	run, warnings, err := store.Join(dirs, store.MergeOptions{Drift: MergeDrift})
	store.Warn(stderr, warnings)
	if err != nil {
		return nil, Usagef("%s: %v", cmd, err)
	}
	return run, nil
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
