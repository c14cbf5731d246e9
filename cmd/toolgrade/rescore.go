package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/ollama/ollama/api"

	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/score"
	"github.com/toolgrade/toolgrade/internal/servers"
	"github.com/toolgrade/toolgrade/internal/store"
	"github.com/toolgrade/toolgrade/internal/suite"
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
	cats, err := recordedCatalogs(meta)
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
				why = toolsChange(c, base)
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
		opts.Tools = cats[t.Variant].forCase(t.CaseID)
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

// toolsChange says how the edited case c's own tools differ from those the
// run recorded for it in base (the base variant's catalogs), or "" when they
// do not: whether it brings tools at all, and their names in order. The
// schemas of the tools are the recorded ones either way, since those are what
// the model was shown.
func toolsChange(c *suite.Case, base *recordedCatalog) string {
	own := base.cases[c.ID]
	switch {
	case own == nil && c.Tools == nil:
		return ""
	case own == nil:
		return "it brings its own tools now"
	case c.Tools == nil:
		return "it no longer brings its own tools"
	}
	var names []string
	for _, t := range c.Tools {
		if t.Exposed == "" {
			return "its tools changed" // a named tool Check did not resolve
		}
		names = append(names, t.Exposed)
	}
	if !slices.Equal(names, own.names) {
		return fmt.Sprintf("its tools changed from %s to %s", strings.Join(own.names, ", "), strings.Join(names, ", "))
	}
	return ""
}

// recordedCatalogs rebuilds, from run.json's catalogs, what scoring and
// Suite.Check need of each variant's tools, by variant name.
func recordedCatalogs(meta *record.Run) (map[string]*recordedCatalog, error) {
	servers := map[string][]string{}
	for _, srv := range meta.Servers {
		servers[srv.Name] = srv.Tools
	}
	out := map[string]*recordedCatalog{}
	for _, rc := range meta.Catalogs {
		c, err := newRecordedCatalog(rc.Tools, servers)
		if err != nil {
			return nil, fmt.Errorf("catalog of variant %q: %w", rc.Variant, err)
		}
		c.decoys = rc.Decoys
		for _, cc := range rc.Cases {
			own, err := newRecordedCatalog(cc.Tools, servers)
			if err != nil {
				return nil, fmt.Errorf("catalog of variant %q for case %s: %w", rc.Variant, strings.Join(cc.Cases, ", "), err)
			}
			own.decoys = rc.Decoys // a variant draws the same decoys into every catalog
			if c.cases == nil {
				c.cases = map[string]*recordedCatalog{}
			}
			for _, id := range cc.Cases {
				c.cases[id] = own
			}
		}
		out[rc.Variant] = c
	}
	return out, nil
}

// newRecordedCatalog reads one recorded tools array.
func newRecordedCatalog(data json.RawMessage, servers map[string][]string) (*recordedCatalog, error) {
	var tools api.Tools
	if err := json.Unmarshal(data, &tools); err != nil {
		return nil, err
	}
	c := &recordedCatalog{tools: tools, schemas: map[string]*jsonschema.Resolved{}, partial: map[string]*jsonschema.Resolved{}, params: map[string]json.RawMessage{}, servers: servers}
	for _, t := range tools {
		c.names = append(c.names, t.Function.Name)
		b, err := json.Marshal(t.Function.Parameters)
		if err != nil {
			return nil, err
		}
		c.params[t.Function.Name] = b
		var sch jsonschema.Schema
		if json.Unmarshal(b, &sch) != nil {
			continue // not checkable offline: left unchecked
		}
		if r, err := sch.Resolve(nil); err == nil {
			c.schemas[t.Function.Name] = r
		}
		p := sch
		p.Required = nil
		if r, err := p.Resolve(nil); err == nil {
			c.partial[t.Function.Name] = r
		}
	}
	return c, nil
}

// CaseCatalog is the recorded catalog of case c's own tools, for
// Suite.Check; a case the run sent the variant's catalog has none.
func (c *recordedCatalog) CaseCatalog(k *suite.Case) (suite.Catalog, error) {
	own := c.cases[k.ID]
	if own == nil {
		return nil, fmt.Errorf("%s records no catalog of case %s's own tools: the run sent it the suite's tools", record.RunFile, k.ID)
	}
	return own, nil
}

// forCase is the catalog a trial of case id was sent.
func (c *recordedCatalog) forCase(id string) *recordedCatalog {
	if own := c.cases[id]; own != nil {
		return own
	}
	return c
}

// recordedCatalog is a run's recorded tool catalog as a score.Catalog and a
// suite.Catalog: names resolve as the live catalog resolves them, and
// arguments are validated against the parameters the model was shown. Those
// are the tools' schemas without the constraints Ollama's shape cannot carry
// (see hidden constraints), so offline validation is weaker than live: an
// argument breaking only a hidden constraint passes here. Executed trials
// are not affected: their executions recorded the live verdict.
type recordedCatalog struct {
	tools   api.Tools
	names   []string
	schemas map[string]*jsonschema.Resolved
	partial map[string]*jsonschema.Resolved
	params  map[string]json.RawMessage // exposed name → the parameters as sent
	servers map[string][]string        // server → exposed tool names
	// cases are the catalogs of the cases that brought their own tools, by
	// case id; nil when none did.
	cases  map[string]*recordedCatalog
	decoys []string // the decoys among tools (RunCatalog.Decoys)
}

// Coerce coerces arguments against the parameters the model was shown, as
// servers.Catalog does against the full schema (servers.CoerceArgs).
func (c *recordedCatalog) Coerce(exposed string, args json.RawMessage) (json.RawMessage, bool) {
	p, ok := c.params[exposed]
	if !ok {
		return args, false
	}
	return servers.CoerceArgs(p, args)
}

func (c *recordedCatalog) Names() []string { return c.names }

// Decoy reports whether the run offered name as a decoy, for scoring.
func (c *recordedCatalog) Decoy(name string) bool { return slices.Contains(c.decoys, name) }

func (c *recordedCatalog) OllamaTools() api.Tools { return c.tools }

func (c *recordedCatalog) Resolve(name string) (string, bool) {
	if slices.Contains(c.names, name) {
		return name, true
	}
	for server, exposed := range c.servers {
		for _, sep := range []string{servers.PrefixSep, "."} {
			rest, ok := strings.CutPrefix(name, server+sep)
			if !ok {
				continue
			}
			for _, e := range exposed {
				if (e == rest || e == server+servers.PrefixSep+rest) && slices.Contains(c.names, e) {
					return e, true
				}
			}
		}
	}
	return "", false
}

func (c *recordedCatalog) ValidateArgs(exposed string, args json.RawMessage) error {
	return validate(c.schemas[exposed], exposed, args)
}

func (c *recordedCatalog) ValidatePartial(exposed string, args json.RawMessage) error {
	return validate(c.partial[exposed], exposed, args)
}

func validate(r *jsonschema.Resolved, exposed string, args json.RawMessage) error {
	if r == nil {
		return nil
	}
	var v any = map[string]any{}
	if len(args) > 0 {
		if err := json.Unmarshal(args, &v); err != nil {
			return fmt.Errorf("arguments of %s are not JSON: %w", exposed, err)
		}
	}
	return r.Validate(v)
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
