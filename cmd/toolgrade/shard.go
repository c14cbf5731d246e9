package main

import (
	"flag"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/runner"
	"github.com/toolgrade/toolgrade/internal/shard"
	"github.com/toolgrade/toolgrade/internal/suite"
)

// shardFlags are run's --shard, --shard-from, --shard-by and --shards.
type shardFlags struct {
	fs     *flag.FlagSet
	shard  string
	from   string
	by     string
	shards int
}

func (f *shardFlags) register(fs *flag.FlagSet) {
	f.fs = fs
	fs.StringVar(&f.shard, "shard", "", "run only shard `i/n` of the trials (i from 0): the same split on every machine; join the shards with toolgrade merge")
	fs.StringVar(&f.from, "shard-from", "", "`env`: read the shard from TOOLGRADE_SHARD=i/n, else JOB_COMPLETION_INDEX with --shards or TOOLGRADE_SHARDS")
	fs.StringVar(&f.by, "shard-by", shard.ByTrial, "split the trials by `trial` (round-robin) or model (contiguous blocks, so each shard loads few models)")
	fs.IntVar(&f.shards, "shards", 0, "the shard count `N` with --shard-from env and JOB_COMPLETION_INDEX (default: TOOLGRADE_SHARDS)")
}

// spec is the shard this run holds: the flags', or the resumed run's
// (meta), which flags may repeat but not change.
func (f *shardFlags) spec(meta *record.Run, getenv func(string) string) (shard.Spec, error) {
	set := map[string]bool{}
	f.fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	var (
		s   shard.Spec
		err error
	)
	switch {
	case f.shard != "" && f.from != "":
		return s, usageErrorf("run: give --shard or --shard-from, not both")
	case f.shard != "":
		s, err = shard.Parse(f.shard, f.by)
	case f.from == "env":
		s, err = shard.Env(getenv, f.shards, f.by)
	case f.from != "":
		return s, usageErrorf("run: --shard-from %q: the only source is env", f.from)
	case set["shard-by"] || set["shards"]:
		return s, usageErrorf("run: --shard-by and --shards need --shard or --shard-from")
	}
	if err != nil {
		return s, usageErrorf("run: %v", err)
	}
	if meta != nil {
		old := shard.FromRecord(meta.Shard)
		if f.shard == "" && f.from == "" {
			return old, nil
		}
		if s != old && !(s.Whole() && old.Whole()) {
			return s, usageErrorf("--resume: the run holds shard %v; --shard cannot change it", describeShard(old))
		}
	}
	return s, nil
}

func describeShard(s shard.Spec) string {
	if s.Whole() {
		return "all (no shard)"
	}
	return s.String()
}

// runMatrix is every trial of the run in the runner's order, which the shard
// split is computed over.
func runMatrix(s *suite.Suite, models []record.Model, variants []runner.Variant, repeat int) shard.Matrix {
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
