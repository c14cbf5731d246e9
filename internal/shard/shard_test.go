package shard

import (
	"fmt"
	"testing"

	"github.com/toolgrade/toolgrade/internal/record"
)

// TestEveryTrialInExactlyOneShard: for n = 1..16 and both modes, the shards'
// filters partition the matrix, whatever order the cases are listed in.
func TestEveryTrialInExactlyOneShard(t *testing.T) {
	m := Matrix{Models: []string{"a", "b", "c"}, Variants: []string{"", "terse"}, Cases: []string{"z", "y", "x", "w", "v"}, Repeat: 3}
	rev := m
	rev.Cases = []string{"v", "w", "x", "y", "z"}
	total := len(m.Keys())
	for _, by := range []string{ByTrial, ByModel} {
		for n := 1; n <= 16; n++ {
			count := map[record.TrialKey]int{}
			for i := range n {
				s, err := Make(i, n, by)
				if err != nil {
					t.Fatal(err)
				}
				f, g := s.Of(m), s.Of(rev)
				for k, j := range f {
					if g[k] != j {
						t.Fatalf("%s: %v in shard %d or %d depending on case order", s, k, j, g[k])
					}
					if j == i {
						count[k]++
					}
				}
			}
			if len(count) != total {
				t.Fatalf("by %s n=%d: %d trials in some shard, want %d", by, n, len(count), total)
			}
			for k, c := range count {
				if c != 1 {
					t.Fatalf("by %s n=%d: %v in %d shards", by, n, k, c)
				}
			}
		}
	}
}

// TestByModelLoadsFewModels: with n ≤ models, each shard of a model split
// holds at most two models; a trial split spreads every model everywhere.
func TestByModelLoadsFewModels(t *testing.T) {
	m := Matrix{Models: []string{"a", "b", "c", "d"}, Cases: []string{"1", "2", "3"}, Repeat: 2}
	for i := range 4 {
		s, _ := Make(i, 4, ByModel)
		models := map[string]bool{}
		for k := range s.Filter(m) {
			models[k.Model] = true
		}
		if len(models) != 1 {
			t.Errorf("shard %s holds models %v, want one", s, models)
		}
	}
}

func TestParseAndEnv(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	for _, c := range []struct {
		env   map[string]string
		count int
		want  string
	}{
		{map[string]string{"TOOLGRADE_SHARD": "2/4"}, 0, "2/4 by trial"},
		{map[string]string{"JOB_COMPLETION_INDEX": "3", "TOOLGRADE_SHARDS": "5"}, 0, "3/5 by trial"},
		{map[string]string{"JOB_COMPLETION_INDEX": "1"}, 2, "1/2 by trial"},
		{map[string]string{"JOB_COMPLETION_INDEX": "1"}, 0, "error"},
		{map[string]string{"TOOLGRADE_SHARD": "4/4"}, 0, "error"},
		{map[string]string{}, 0, "error"},
	} {
		s, err := Env(env(c.env), c.count, "")
		got := fmt.Sprint(s)
		if err != nil {
			got = "error"
		}
		if got != c.want {
			t.Errorf("Env(%v, %d) = %s (%v), want %s", c.env, c.count, got, err, c.want)
		}
	}
	for _, bad := range []string{"1", "a/b", "-1/3", "3/3", "0/0"} {
		if _, err := Parse(bad, ""); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}
