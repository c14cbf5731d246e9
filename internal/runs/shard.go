package runs

import (
	"cmp"

	"github.com/toolgrade/toolgrade/internal/cli"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/runner"
	"github.com/toolgrade/toolgrade/internal/shard"
	"github.com/toolgrade/toolgrade/internal/suite"
)

// Shard says which part of the trials a run holds (run's --shard,
// --shard-from, --shard-by and --shards); the zero Shard is every trial.
type Shard struct {
	// Spec is "i/n", shard i (from 0) of n; "": none.
	Spec string
	// From names where the shard is read instead: "env" (TOOLGRADE_SHARD=i/n,
	// else JOB_COMPLETION_INDEX with Count or TOOLGRADE_SHARDS); "": Spec.
	From string
	// By splits the trials by shard.ByTrial or shard.ByModel; "": not given
	// (by trial).
	By string
	// Count is the shard count with From "env" and JOB_COMPLETION_INDEX;
	// nil: not given (TOOLGRADE_SHARDS).
	Count *int
}

// check refuses contradictory shard flags and a malformed Spec.
func (sh *Shard) check() error {
	switch {
	case sh.Spec != "" && sh.From != "":
		return cli.Usagef("run: give --shard or --shard-from, not both")
	case sh.Spec != "":
		if _, err := shard.Parse(sh.Spec, cmp.Or(sh.By, shard.ByTrial)); err != nil {
			return cli.Usagef("run: %v", err)
		}
	case sh.From == "env":
	case sh.From != "":
		return cli.Usagef("run: --shard-from %q: the only source is env", sh.From)
	case sh.By != "" || sh.Count != nil:
		return cli.Usagef("run: --shard-by and --shards need --shard or --shard-from")
	}
	return nil
}

// resolve is the shard the run holds: sh's, reading the environment with
// getenv for From "env", or the resumed run's (resumed non-nil), which sh
// may repeat but not change.
func (sh *Shard) resolve(resumed *record.Run, getenv func(string) string) (shard.Spec, error) {
	if err := sh.check(); err != nil {
		return shard.Spec{}, err
	}
	var (
		s   shard.Spec
		err error
	)
	by := cmp.Or(sh.By, shard.ByTrial)
	switch {
	case sh.Spec != "":
		s, err = shard.Parse(sh.Spec, by)
	case sh.From == "env":
		count := 0
		if sh.Count != nil {
			count = *sh.Count
		}
		s, err = shard.Env(getenv, count, by)
	}
	if err != nil {
		return s, cli.Usagef("run: %v", err)
	}
	if resumed == nil {
		return s, nil
	}
	old := shard.FromRecord(resumed.Shard)
	if sh.Spec == "" && sh.From == "" {
		return old, nil
	}
	if s != old && !(s.Whole() && old.Whole()) {
		return s, cli.Usagef("--resume: the run holds shard %v; --shard cannot change it", describeShard(old))
	}
	return s, nil
}

func describeShard(s shard.Spec) string {
	if s.Whole() {
		return "all (no shard)"
	}
	return s.String()
}

// matrix is every trial of the run in the runner's order, which the shard
// split is computed over.
func matrix(s *suite.Suite, models []record.Model, variants []runner.Variant, repeat int) shard.Matrix {
	m := shard.Matrix{Repeat: repeat}
	for _, x := range models {
		m.Models = append(m.Models, x.Name)
	}
	for _, v := range variants {
		m.Variants = append(m.Variants, v.Name)
	}
	for i := range s.Cases {
		m.Cases = append(m.Cases, s.Cases[i].ID)
	}
	return m
}
