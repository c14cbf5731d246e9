package runs

import (
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/termtext"
)

// keptDirs gathers the per-trial directories a run kept (run
// --keep-trial-dirs), for its end to say where they are.
type keptDirs struct {
	mu   sync.Mutex
	dirs []string
}

// add is runner.Runner.OnKeptDir.
func (k *keptDirs) add(key record.TrialKey, dir string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.dirs = append(k.dirs, fmt.Sprintf("%s (%s, %s, repeat %d)", dir, key.Model, key.CaseID, key.Repeat))
}

// maxKeptListed is how many kept directories the run's end lists by name.
const maxKeptListed = 20

// say tells w where the kept directories are.
func (k *keptDirs) say(w io.Writer) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(k.dirs) == 0 {
		return
	}
	slices.Sort(k.dirs)
	fmt.Fprintf(w, "toolgrade: kept the per-trial directories of %s that did not pass (--keep-trial-dirs); remove them when done:\n", termtext.Count(len(k.dirs), "trial"))
	for i, d := range k.dirs {
		if i == maxKeptListed {
			fmt.Fprintf(w, "  ... and %d more\n", len(k.dirs)-maxKeptListed)
			break
		}
		fmt.Fprintf(w, "  %s\n", termtext.Printable(d))
	}
}
