package main

import (
	"context"
	"fmt"
	"io"
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

// runRescore judges a run's recorded transcripts again against an edited
// suite, offline: no Ollama, no MCP server. A trial is judged again when its
// case still asks exactly what the trial was asked (the same conversation,
// round limit and execution) and its variant still exists; the others are
// copied unchanged and listed. The tool catalog is the one run.json recorded,
// byte for byte, so it is unchanged by construction: an edit of the servers
// or of a variant's overlays is not seen here (rerun for that).
func runRescore(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("rescore", "DIR --suite SUITE.yaml", stderr)
	suitePath := fs.String("suite", "", "the edited suite `FILE` to judge the transcripts against (required)")
	out := fs.String("out", "", "the new run `DIR` (default: DIR-rescored-TIMESTAMP; DIR itself is never written)")
	keepTruncated := fs.Bool("keep-truncated", false, keepTruncatedUsage+"; the new run.json records it")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || *suitePath == "" {
		return usageErrorf("rescore: give one run directory and --suite SUITE.yaml")
	}
	src := pos[0]
	from, err := store.Open(src)
	if err != nil {
		return runDirError(src, err)
	}
	s, err := suite.Load(*suitePath)
	if err != nil {
		return asUsage(err)
	}
	meta := from.Run
	// The settings the run was given over its suite apply to the edited one,
	// so its conversations compare like for like.
	if err := applyOverrides(s, meta.Overrides); err != nil {
		return err
	}
	cats, err := toolbox.RecordedCatalogs(meta)
	if err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(src, record.RunFile), err)
	}
	base := cats[""]
	if base == nil {
		return usageErrorf("rescore: %s records no tool catalog (written before toolgrade recorded catalogs): rerun it", filepath.Join(src, record.RunFile))
	}
	if err := s.Check(base); err != nil {
		return asUsage(err)
	}
	dst := *out
	if dst == "" {
		dst = fmt.Sprintf("%s-rescored-%s", filepath.Clean(src), time.Now().Format("20060102-150405"))
	}
	if same, _ := sameDir(src, dst); same {
		return usageErrorf("rescore: --out %s is the run itself; rescoring never overwrites a run", dst)
	}

	var trials []*record.Trial
	if err := eachTrial(from, stderr, func(t *record.Trial) { trials = append(trials, t) }); err != nil {
		return err
	}
	variants := map[string]*suite.Variant{"": nil}
	for i := range s.Variants {
		variants[s.Variants[i].Name] = &s.Variants[i]
	}
	numCtx := map[string]int{}
	for _, m := range meta.Models {
		numCtx[m.Name] = m.NumCtx
	}
	// A case is judged by one expectation or the other, never a mix: when
	// any of its trials was asked something else, all of them are copied.
	copied := map[string]string{} // case id → why
	ran := map[string]bool{}
	for _, t := range trials {
		ran[t.CaseID] = true
		if _, ok := copied[t.CaseID]; ok {
			continue
		}
		c := s.Case(t.CaseID)
		v, hasVariant := variants[t.Variant]
		why := ""
		switch {
		case c == nil:
			why = "no longer in the suite"
		case !hasVariant:
			why = fmt.Sprintf("variant %q no longer in the suite", t.Variant)
		case cats[t.Variant] == nil:
			why = fmt.Sprintf("%s records no catalog for variant %q", record.RunFile, t.Variant)
		case t.Transcript == nil:
			why = "a trial has no transcript"
		default:
			why = askedChange(s, c, v, t.Transcript, meta.NoExecute)
			if why == "" {
				why = base.ToolsChange(c)
			}
		}
		if why != "" {
			copied[t.CaseID] = why
		}
	}
	rescored := 0
	for _, t := range trials {
		if _, ok := copied[t.CaseID]; ok {
			continue
		}
		c := s.Case(t.CaseID)
		opts := score.OptionsFor(&s.Defaults)
		switch {
		case t.NumCtx > 0:
			// What the trial ran with (-o num_ctx, a variant's options)
			// is what its prompts were cut at.
			opts.NumCtx = t.NumCtx
		case opts.NumCtx == 0:
			opts.NumCtx = numCtx[t.Model]
		}
		opts.Tools = cats[t.Variant].ForCase(t.CaseID)
		t.Score = score.Score(t.Transcript, &c.Expect, opts)
		t.Tags = c.Tags
		rescored++
	}

	run := *meta
	run.KeepTruncated = run.KeepTruncated || *keepTruncated
	run.Suite = record.RunSuite{Name: s.Name, Path: absPath(s.Path), Hash: s.Hash}
	run.Cases = map[string]string{}
	for i := range s.Cases {
		if _, ok := copied[s.Cases[i].ID]; !ok {
			run.Cases[s.Cases[i].ID] = s.CaseHash(&s.Cases[i])
		}
	}
	for id := range copied {
		// A copied case keeps the hash of what it was judged by.
		if h, ok := meta.Cases[id]; ok {
			run.Cases[id] = h
		}
	}
	var missing []string
	for i := range s.Cases {
		if !ran[s.Cases[i].ID] {
			missing = append(missing, s.Cases[i].ID)
		}
	}
	run.Rescored = &record.RunRescored{
		From: absPath(src), FromSuiteHash: meta.Suite.Hash, Time: time.Now().UTC(),
		Rescored: rescored, Copied: slices.Sorted(maps.Keys(copied)), Missing: missing,
	}
	w, err := store.Create(dst, &run)
	if err != nil {
		return runDirError(dst, err)
	}
	defer w.Close()
	for _, t := range trials {
		if err := w.Trials().Write(t); err != nil {
			return fmt.Errorf("writing trials: %w", err)
		}
	}
	if err := w.Update(func(r *record.Run) { r.Status = meta.Status }); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "toolgrade: rescored %d trials of %s against %s into %s\n", rescored, src, s.Path, dst)
	for _, id := range run.Rescored.Copied {
		fmt.Fprintf(stderr, "toolgrade: case %s not rescored (%s): its trials are copied unchanged\n", id, copied[id])
	}
	for _, id := range missing {
		fmt.Fprintf(stderr, "toolgrade: case %s is new: the run has no trial of it\n", id)
	}
	if _, err := writeReports(w.Reader(), stdout, stderr); err != nil {
		return err
	}
	return nil
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
