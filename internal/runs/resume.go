package runs

import (
	"strings"

	"github.com/toolgrade/toolgrade/internal/cli"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/store"
)

// The resume rule: a resumed run finishes what it began, so its trials
// before and after stay comparable. It keeps its models, repeats,
// execution, stopping rule, variants, overrides and shard (the flags that
// would change them are refused), and it is refused when the suite file,
// a model's weights, the servers' tools or a variant's catalog changed
// since it began. Each check runs as soon as what it compares is known.

// checkResumeFlags refuses the flags that would change a resumed run, as
// far as the Spec alone tells.
func (s *Spec) checkResumeFlags() error {
	if s.Resume == "" {
		return nil
	}
	switch {
	case s.Models != nil || s.Repeat != nil:
		return cli.Usagef("run: --models, --repeat and --no-execute cannot change a resumed run")
	case s.StopEarly != nil || s.StopThreshold != nil:
		return cli.Usagef("run: --stop-early and --stop-threshold cannot change a resumed run (it keeps its rule)")
	case s.Variants != nil:
		return cli.Usagef("run: --variants cannot change a resumed run")
	}
	return nil
}

func overridesRefused(given []string) error {
	return cli.Usagef("run: %s cannot change a resumed run: it applies again the settings its %s recorded",
		strings.Join(given, ", "), record.RunFile)
}

// checkNoExecute refuses --no-execute given to a resumed run (old) that
// ran otherwise.
func (s *Spec) checkNoExecute(old *record.Run) error {
	if s.NoExecute != nil && *s.NoExecute != old.NoExecute {
		return cli.Usagef("run: --models, --repeat and --no-execute cannot change a resumed run")
	}
	return nil
}

// checkResume is store.CheckResume as a cli.UsageError of --resume: the suite
// file's hash, the servers' catalog hash or the models' digests.
func checkResume(dir string, old *record.Run, now store.Current) error {
	if err := store.CheckResume(dir, old, now); err != nil {
		return cli.Usagef("--resume: %v", err)
	}
	return nil
}
