// Package shard splits the trials of a run into n disjoint shards, the same
// on every machine for the same suite, models, variants and repeats, so that
// CI matrix jobs or Kubernetes Indexed Job pods each run one part and
// `toolgrade merge` joins them.
package shard

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/toolgrade/toolgrade/internal/record"
)

// Split modes, as --shard-by and run.json's shard.by hold them.
const (
	// ByTrial deals the trials round-robin in Matrix.Keys order (model,
	// repeat, variant, case id): trial p goes to shard p mod n, so shards
	// differ in size by at most one trial.
	ByTrial = "trial"
	// ByModel cuts the same order, model-major, into n contiguous blocks:
	// each shard holds the trials of one or two models (when n exceeds the
	// number of models, a model's trials span several shards), so each
	// shard loads few models.
	ByModel = "model"
)

// Spec is one shard of a run: shard I of N (0 ≤ I < N), split By. The zero
// Spec (N 0) is the whole run.
type Spec struct {
	I  int    `json:"i"`
	N  int    `json:"n"`
	By string `json:"by,omitempty"` // "" is ByTrial
}

// Whole reports whether s is the whole run (no shard, or 0/1).
func (s Spec) Whole() bool { return s.N <= 1 }

func (s Spec) String() string {
	by := s.By
	if by == "" {
		by = ByTrial
	}
	return fmt.Sprintf("%d/%d by %s", s.I, s.N, by)
}

// Parse reads "i/n" (0 ≤ i < n) as --shard and TOOLGRADE_SHARD give it.
func Parse(text, by string) (Spec, error) {
	a, b, ok := strings.Cut(strings.TrimSpace(text), "/")
	i, erri := strconv.Atoi(a)
	n, errn := strconv.Atoi(b)
	if !ok || erri != nil || errn != nil {
		return Spec{}, fmt.Errorf("shard %q: want i/n, e.g. 0/4 (i counts from 0)", text)
	}
	return Make(i, n, by)
}

// Make checks i, n and by and returns the Spec.
func Make(i, n int, by string) (Spec, error) {
	if n < 1 || i < 0 || i >= n {
		return Spec{}, fmt.Errorf("shard %d/%d: want 0 ≤ i < n", i, n)
	}
	switch by {
	case "", ByTrial, ByModel:
	default:
		return Spec{}, fmt.Errorf("shard by %q: want %s or %s", by, ByTrial, ByModel)
	}
	if by == "" {
		by = ByTrial
	}
	return Spec{I: i, N: n, By: by}, nil
}

// Env reads a shard from the environment as the engines give it: first
// TOOLGRADE_SHARD ("i/n", which a CI matrix maps from its own variables),
// then Kubernetes Indexed Jobs' JOB_COMPLETION_INDEX (i) with n from count
// when positive, else from TOOLGRADE_SHARDS. getenv is os.Getenv in use.
func Env(getenv func(string) string, count int, by string) (Spec, error) {
	if v := getenv("TOOLGRADE_SHARD"); v != "" {
		s, err := Parse(v, by)
		if err != nil {
			return Spec{}, fmt.Errorf("TOOLGRADE_SHARD: %w", err)
		}
		return s, nil
	}
	idx := getenv("JOB_COMPLETION_INDEX")
	if idx == "" {
		return Spec{}, fmt.Errorf("--shard-from env: set TOOLGRADE_SHARD=i/n, or JOB_COMPLETION_INDEX (Kubernetes Indexed Jobs) with --shards N or TOOLGRADE_SHARDS")
	}
	i, err := strconv.Atoi(idx)
	if err != nil {
		return Spec{}, fmt.Errorf("JOB_COMPLETION_INDEX %q: not a number", idx)
	}
	n := count
	if n <= 0 {
		c := getenv("TOOLGRADE_SHARDS")
		if n, err = strconv.Atoi(c); c == "" || err != nil {
			return Spec{}, fmt.Errorf("JOB_COMPLETION_INDEX is set but the shard count is not: give --shards N or TOOLGRADE_SHARDS (the Job's completions)")
		}
	}
	return Make(i, n, by)
}

// Matrix is the full set of trials of a run.
type Matrix struct {
	Models   []string // in run order
	Variants []string // in run order; nil: the base alone ("")
	Cases    []string // case ids, any order
	Repeat   int      // zero: 1
}

// Keys lists every trial of m in the order the split deals them: model,
// then repeat, then variant (as the runner runs them), then case id in
// sorted order. Sorted ids, not the suite's order, so that `merge` can
// recompute the split from run.json, which keeps cases as a map.
func (m Matrix) Keys() []record.TrialKey {
	variants := m.Variants
	if len(variants) == 0 {
		variants = []string{""}
	}
	cases := slices.Clone(m.Cases)
	slices.Sort(cases)
	var keys []record.TrialKey
	for _, model := range m.Models {
		for rep := range max(m.Repeat, 1) {
			for _, v := range variants {
				for _, c := range cases {
					keys = append(keys, record.TrialKey{Model: model, CaseID: c, Variant: v, Repeat: rep})
				}
			}
		}
	}
	return keys
}

// Of says which shard each trial of m is in under s (all in shard 0 when s
// is the whole run).
func (s Spec) Of(m Matrix) map[record.TrialKey]int {
	keys := m.Keys()
	out := make(map[record.TrialKey]int, len(keys))
	n := max(s.N, 1)
	for p, k := range keys {
		if s.By == ByModel {
			out[k] = p * n / len(keys)
		} else {
			out[k] = p % n
		}
	}
	return out
}

// Filter returns the trials of m in shard s; nil when s is the whole run.
func (s Spec) Filter(m Matrix) map[record.TrialKey]bool {
	if s.Whole() {
		return nil
	}
	in := map[record.TrialKey]bool{}
	for k, i := range s.Of(m) {
		if i == s.I {
			in[k] = true
		}
	}
	return in
}

// Record is s as run.json records it; nil for the whole run.
func (s Spec) Record() *record.RunShard {
	if s.Whole() {
		return nil
	}
	return &record.RunShard{I: s.I, N: s.N, By: s.By}
}

// FromRecord is the Spec run.json recorded; the whole run for nil.
func FromRecord(r *record.RunShard) Spec {
	if r == nil {
		return Spec{}
	}
	return Spec{I: r.I, N: r.N, By: r.By}
}
