package main

import (
	"flag"

	"github.com/toolgrade/toolgrade/internal/runs"
	"github.com/toolgrade/toolgrade/internal/shard"
)

// shardFlags are run's --shard, --shard-from, --shard-by and --shards.
type shardFlags struct {
	shard  string
	from   string
	by     string
	shards int
}

func (f *shardFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.shard, "shard", "", "run only shard `i/n` of the trials (i from 0): the same split on every machine; join the shards with toolgrade merge")
	fs.StringVar(&f.from, "shard-from", "", "`env`: read the shard from TOOLGRADE_SHARD=i/n, else JOB_COMPLETION_INDEX with --shards or TOOLGRADE_SHARDS")
	fs.StringVar(&f.by, "shard-by", shard.ByTrial, "split the trials by `trial` (round-robin) or model (contiguous blocks, so each shard loads few models)")
	fs.IntVar(&f.shards, "shards", 0, "the shard count `N` with --shard-from env and JOB_COMPLETION_INDEX (default: TOOLGRADE_SHARDS)")
}

// spec is the shard the flags ask for; given are the flags set.
func (f *shardFlags) spec(given map[string]bool) runs.Shard {
	s := runs.Shard{Spec: f.shard, From: f.from, Count: ifGiven(given, "shards", f.shards)}
	if given["shard-by"] {
		s.By = f.by
	}
	return s
}
