package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolgrade/toolgrade/internal/cost"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/shard"
)

// MergeOptions tune Merge.
type MergeOptions struct {
	// Drift lists how run b differs from run a in what makes trials
	// comparable, one line per setting ("suite hash: x ≠ y"); Merge refuses
	// shards with any. The command passes internal/compare's drift (store
	// cannot import compare, which reads runs through it). Nil: the suite
	// hash, the catalog hash, the repeat count and the models' digests.
	Drift func(a, b *record.Run) []string
}

// MergeError is a reason Merge refuses its shards; Dir names the shard
// directory, Key the trial when there is one.
type MergeError struct {
	Dir string
	Key *record.TrialKey
	Msg string
}

func (e *MergeError) Error() string {
	if e.Key != nil {
		return fmt.Sprintf("%s: trial %s: %s", e.Dir, KeyString(*e.Key), e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Dir, e.Msg)
}

// KeyString is a trial key as merge errors print it: model/variant/case#repeat.
func KeyString(k record.TrialKey) string {
	v := k.Variant
	if v == "" {
		v = "base"
	}
	return fmt.Sprintf("%s/%s/%s#%d", k.Model, v, k.CaseID, k.Repeat)
}

// Merge joins the shard run directories dirs into one run directory out,
// which must be fresh: it checks that they ran the same suite, catalogs,
// options and models (opts.Drift), that they are shards of one split and
// none twice, and that every trial of the full matrix (models × repeats ×
// variants × cases, from run.json) is in exactly one of them (the last line
// per key within a shard counts). out gets one run.json (no shard, start the
// earliest, end the latest, status complete only when every shard's is)
// and trials.jsonl in the runner's key order. The shards are only read.
// The trials are held in memory to be written in order.
func Merge(out string, dirs []string, opts MergeOptions) (*Reader, []*record.SyntaxError, error) {
	merged, ordered, warnings, err := join(dirs, opts)
	if err != nil {
		return nil, warnings, err
	}
	if err := CheckFresh(out); err != nil {
		return nil, warnings, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, warnings, err
	}
	lock, err := LockDir(out)
	if err != nil {
		return nil, warnings, err
	}
	defer lock.Unlock()
	f, err := os.Create(filepath.Join(out, record.TrialsFile))
	if err != nil {
		return nil, warnings, err
	}
	tw := record.NewWriter(f)
	for _, t := range ordered {
		if err := tw.Write(t); err != nil {
			f.Close()
			return nil, warnings, err
		}
	}
	if err := f.Close(); err != nil {
		return nil, warnings, err
	}
	// run.json last: a merge that fails midway leaves no run a report would
	// take for whole.
	if err := record.WriteRun(out, merged); err != nil {
		return nil, warnings, err
	}
	return &Reader{Dir: out, Run: merged}, warnings, nil
}

// Join checks the shard directories as Merge does and returns them as one
// run held in memory, writing nothing: `report` and `show` read several
// shard directories through it. Its Dir names them all, joined by "+"; it
// is read-only (see Reader.Joined).
func Join(dirs []string, opts MergeOptions) (*Reader, []*record.SyntaxError, error) {
	merged, ordered, warnings, err := join(dirs, opts)
	if err != nil {
		return nil, warnings, err
	}
	return &Reader{Dir: strings.Join(dirs, "+"), Run: merged, joined: ordered}, warnings, nil
}

// join checks the shards and returns the merged run.json and the trials in
// the split's key order.
func join(dirs []string, opts MergeOptions) (*record.Run, []*record.Trial, []*record.SyntaxError, error) {
	if len(dirs) == 0 {
		return nil, nil, nil, errors.New("merge: no shard directories")
	}
	drift := opts.Drift
	if drift == nil {
		drift = basicDrift
	}
	runs := make([]*record.Run, len(dirs))
	for i, d := range dirs {
		r, err := Open(d)
		if err != nil {
			return nil, nil, nil, &MergeError{Dir: d, Msg: err.Error()}
		}
		runs[i] = r.Run
	}
	first := runs[0]
	byIndex := map[int]string{}
	for i, r := range runs {
		if r.Shard == nil {
			return nil, nil, nil, &MergeError{Dir: dirs[i], Msg: "not a shard (run.json has no shard): it holds the whole run already"}
		}
		if r.Shard.N != first.Shard.N || r.Shard.By != first.Shard.By {
			return nil, nil, nil, &MergeError{Dir: dirs[i], Msg: fmt.Sprintf("shard %s of a different split than %s's %s",
				shard.FromRecord(r.Shard), dirs[0], shard.FromRecord(first.Shard))}
		}
		if d, ok := byIndex[r.Shard.I]; ok {
			return nil, nil, nil, &MergeError{Dir: dirs[i], Msg: fmt.Sprintf("holds shard %s, as %s does", shard.FromRecord(r.Shard), d)}
		}
		byIndex[r.Shard.I] = dirs[i]
		if i > 0 {
			if d := drift(first, r); len(d) > 0 {
				return nil, nil, nil, &MergeError{Dir: dirs[i], Msg: fmt.Sprintf("did not run what %s ran, so their trials are not comparable:\n  %s",
					dirs[0], strings.Join(d, "\n  "))}
			}
		}
	}

	m := matrix(first)
	keys := m.Keys()
	owner := shard.FromRecord(first.Shard).Of(m)
	seen := make(map[record.TrialKey]int, len(keys)) // key → index of dirs
	trials := make(map[record.TrialKey]*record.Trial, len(keys))
	var warnings []*record.SyntaxError
	for i, d := range dirs {
		var merr error
		w, err := ReadTrials(d, func(t *record.Trial) {
			if merr != nil {
				return
			}
			k := t.Key()
			o, ok := owner[k]
			switch {
			case !ok:
				merr = &MergeError{Dir: d, Key: &k, Msg: "not in the run's matrix of models, variants, cases and repeats"}
			case seen[k] != 0:
				merr = &MergeError{Dir: d, Key: &k, Msg: fmt.Sprintf("also in %s: a trial must be in exactly one shard", dirs[seen[k]-1])}
			case o != runs[i].Shard.I:
				merr = &MergeError{Dir: d, Key: &k, Msg: fmt.Sprintf("belongs to shard %d/%d, not this shard's %d", o, runs[i].Shard.N, runs[i].Shard.I)}
			default:
				seen[k] = i + 1
				trials[k] = t
			}
		})
		warnings = append(warnings, w...)
		if err == nil {
			err = merr
		}
		if err != nil {
			var me *MergeError
			if errors.As(err, &me) {
				return nil, nil, warnings, err
			}
			return nil, nil, warnings, &MergeError{Dir: d, Msg: err.Error()}
		}
	}
	for _, k := range keys {
		if seen[k] == 0 {
			i := owner[k]
			d, ok := byIndex[i]
			if !ok {
				d = fmt.Sprintf("shard %d/%d (not given)", i, first.Shard.N)
			}
			return nil, nil, warnings, &MergeError{Dir: d, Key: &k, Msg: "missing: no shard holds it (an unfinished shard? `toolgrade run --resume` it)"}
		}
	}

	ordered := make([]*record.Trial, len(keys))
	costs := cost.NewRun()
	for i, k := range keys {
		ordered[i] = trials[k]
		costs.Add(ordered[i])
	}
	merged := mergeRuns(runs)
	// Each shard measured its own trials: the whole run measures them all.
	costs.Record(merged)
	return merged, ordered, warnings, nil
}

// matrix is every trial a run's run.json describes.
func matrix(r *record.Run) shard.Matrix {
	m := shard.Matrix{Repeat: r.Repeat}
	for _, x := range r.Models {
		m.Models = append(m.Models, x.Name)
	}
	for _, c := range r.Catalogs {
		m.Variants = append(m.Variants, c.Variant)
	}
	for id := range r.Cases {
		m.Cases = append(m.Cases, id)
	}
	return m
}

// mergeRuns is the run.json of the merged run.
func mergeRuns(runs []*record.Run) *record.Run {
	out := *runs[0]
	out.Shard = nil
	out.Models = nil
	// A server restarted in any shard restarted in the run.
	out.Servers = slices.Clone(out.Servers)
	for _, r := range runs[1:] {
		restarts := map[string]int{}
		for _, s := range r.Servers {
			restarts[s.Name] = s.Restarts
		}
		out.AddRestarts(restarts)
	}
	out.Status, out.Error = StatusComplete, ""
	for _, r := range runs {
		if r.Start.Before(out.Start) {
			out.Start = r.Start
		}
		if r.End.After(out.End) {
			out.End = r.End
		}
		if r.Status != StatusComplete && out.Status == StatusComplete {
			out.Status, out.Error = r.Status, r.Error
		}
		out.AllRepeats = out.AllRepeats || r.AllRepeats
		out.Schedule = weakerSchedule(out.Schedule, r.Schedule)
		for _, m := range r.Models {
			// A shard that ran none of a model's trials never loaded it:
			// keep the load time of one that did.
			i := slices.IndexFunc(out.Models, func(o record.Model) bool { return o.Name == m.Name })
			switch {
			case i < 0:
				out.Models = append(out.Models, m)
			case out.Models[i].Load == 0:
				out.Models[i] = m
			}
		}
	}
	return &out
}

// weakerSchedule is the order of two shards' models that their merged
// latency rests on: "" (a shard of one model, whose models then ran on
// different machines or sessions) before blocks before abba before
// interleaved.
func weakerSchedule(a, b string) string {
	rank := map[string]int{"": 0, record.ScheduleBlocks: 1, record.ScheduleABBA: 2, record.ScheduleInterleaved: 3}
	if rank[b] < rank[a] {
		return b
	}
	return a
}

func basicDrift(a, b *record.Run) []string {
	var d []string
	add := func(field, x, y string) {
		if x != y {
			d = append(d, fmt.Sprintf("%s: %s ≠ %s", field, x, y))
		}
	}
	add("suite hash", a.Suite.Hash, b.Suite.Hash)
	add("catalog hash", a.CatalogHash, b.CatalogHash)
	add("repeat", fmt.Sprint(a.Repeat), fmt.Sprint(b.Repeat))
	for _, x := range a.Models {
		for _, y := range b.Models {
			if x.Name == y.Name {
				add("model "+x.Name+" digest", x.Digest, y.Digest)
			}
		}
	}
	return d
}
