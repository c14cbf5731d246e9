package rescore

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"time"

	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/score"
	"github.com/toolgrade/toolgrade/internal/store"
	"github.com/toolgrade/toolgrade/internal/suite"
	"github.com/toolgrade/toolgrade/internal/toolbox"
)

// judge is one rescore's run, edited suite and recorded catalogs, and what
// it decided of each case.
type judge struct {
	from *store.Reader
	s    *suite.Suite
	cats map[string]*toolbox.Recorded
	// copied are the cases whose trials are copied unchanged, by id, with
	// why; ran the cases the run has trials of.
	copied map[string]string
	ran    map[string]bool
}

// classify decides which cases are copied. A case is judged by one
// expectation or the other, never a mix: when any of its trials was asked
// something else, all of them are copied.
func (j *judge) classify(trials []*record.Trial) {
	variants := map[string]*suite.Variant{"": nil}
	for i := range j.s.Variants {
		variants[j.s.Variants[i].Name] = &j.s.Variants[i]
	}
	for _, t := range trials {
		j.ran[t.CaseID] = true
		if _, ok := j.copied[t.CaseID]; ok {
			continue
		}
		c := j.s.Case(t.CaseID)
		v, hasVariant := variants[t.Variant]
		why := ""
		switch {
		case c == nil:
			why = "no longer in the suite"
		case !hasVariant:
			why = fmt.Sprintf("variant %q no longer in the suite", t.Variant)
		case j.cats[t.Variant] == nil:
			why = fmt.Sprintf("%s records no catalog for variant %q", record.RunFile, t.Variant)
		case t.Transcript == nil:
			why = "a trial has no transcript"
		default:
			why = askedChange(j.s, c, v, t.Transcript, j.from.Run.NoExecute)
			if why == "" {
				why = j.cats[""].ToolsChange(c)
			}
		}
		if why != "" {
			j.copied[t.CaseID] = why
		}
	}
}

// rescore scores again the trials of the cases not copied, in place, and
// counts them.
func (j *judge) rescore(trials []*record.Trial) int {
	numCtx := map[string]int{}
	for _, m := range j.from.Run.Models {
		numCtx[m.Name] = m.NumCtx
	}
	n := 0
	for _, t := range trials {
		if _, ok := j.copied[t.CaseID]; ok {
			continue
		}
		c := j.s.Case(t.CaseID)
		opts := score.OptionsFor(&j.s.Defaults)
		switch {
		case t.NumCtx > 0:
			// What the trial ran with (-o num_ctx, a variant's options)
			// is what its prompts were cut at.
			opts.NumCtx = t.NumCtx
		case opts.NumCtx == 0:
			opts.NumCtx = numCtx[t.Model]
		}
		opts.Tools = j.cats[t.Variant].ForCase(t.CaseID)
		t.Score = score.Case(t.Transcript, c, opts)
		t.Tags = c.Tags
		n++
	}
	return n
}

// newRun is the new run's run.json: the old one's, with the edited suite,
// its cases' hashes (a copied case keeps the hash of what it was judged
// by), and what was rescored, copied and is missing.
func (j *judge) newRun(spec *Spec, rescored int, now time.Time) *record.Run {
	meta, s := j.from.Run, j.s
	run := *meta
	run.KeepTruncated = run.KeepTruncated || spec.KeepTruncated
	run.Suite = record.RunSuite{Name: s.Name, Path: record.AbsPath(s.Path), Hash: s.Hash}
	run.Cases = map[string]string{}
	var missing []string
	for i := range s.Cases {
		id := s.Cases[i].ID
		if _, ok := j.copied[id]; !ok {
			run.Cases[id] = s.CaseHash(&s.Cases[i])
		}
		if !j.ran[id] {
			missing = append(missing, id)
		}
	}
	for id := range j.copied {
		if h, ok := meta.Cases[id]; ok {
			run.Cases[id] = h
		}
	}
	run.Rescored = &record.RunRescored{
		From: record.AbsPath(spec.Run), FromSuiteHash: meta.Suite.Hash, Time: now.UTC(),
		Rescored: rescored, Copied: slices.Sorted(maps.Keys(j.copied)), Missing: missing,
	}
	return &run
}

// askedChange says how the edited case c (in variant v) asks something other
// than what transcript tr was asked, or "" when it asks the same: the
// conversation as sent, the round limit and whether tools ran. Expectations
// may change freely: they are what rescoring judges again.
func askedChange(s *suite.Suite, c *suite.Case, v *suite.Variant, tr *record.Transcript, noExecute bool) string {
	conv := s.VariantConversation(c, v)
	same := len(conv) == len(tr.Messages)
	for i := 0; same && i < len(conv); i++ {
		same = conv[i].Role == tr.Messages[i].Role && conv[i].Content == tr.Messages[i].Content
	}
	if !same {
		return "its conversation changed"
	}
	rounds := c.MaxRounds
	if rounds == 0 {
		rounds = bridge.DefaultMaxRounds
	}
	// A trial without execution records max_rounds as run but stops at one
	// round; its limit changes nothing.
	if !tr.NotExecuted && tr.MaxRounds != 0 && tr.MaxRounds != rounds {
		return fmt.Sprintf("its round limit changed from %d to %d", tr.MaxRounds, rounds)
	}
	if exec := !(noExecute || c.NoExecute); exec == tr.NotExecuted {
		return "whether its tools run changed"
	}
	return ""
}

// sameDir reports whether a and b name the same directory.
func sameDir(a, b string) (bool, error) {
	aa, err := filepath.Abs(a)
	if err != nil {
		return false, err
	}
	bb, err := filepath.Abs(b)
	if err != nil {
		return false, err
	}
	return aa == bb, nil
}
