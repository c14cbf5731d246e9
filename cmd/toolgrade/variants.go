package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/ollama/ollama/api"
	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/casetools"
	"github.com/toolgrade/toolgrade/internal/decoys"
	"github.com/toolgrade/toolgrade/internal/overlay"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/runner"
	"github.com/toolgrade/toolgrade/internal/score"
	"github.com/toolgrade/toolgrade/internal/servers"
	"github.com/toolgrade/toolgrade/internal/srcpos"
	"github.com/toolgrade/toolgrade/internal/suite"
)

// runVariants are the variants one run runs, in run order (the base first
// when it runs), each with its tools ready and the catalog it sends.
type runVariants struct {
	list []runner.Variant
	// catalogs are what run.json records of each variant, in the same order.
	catalogs []record.RunCatalog
	// conns are the servers files of variants connected here; Close ends them.
	conns []*servers.Catalog
}

// Close closes the catalogs the variants connected; the base's is the
// caller's.
func (rv *runVariants) Close() {
	for _, c := range rv.conns {
		c.Close()
	}
}

// setupVariants readies the variants a run runs (see variantNames and
// connectVariants) and, on resume, refuses a variant whose catalog changed.
// tools is the base's toolbox over cat; the caller closes what it returns.
func setupVariants(ctx context.Context, s *suite.Suite, cat *casetools.Catalogs, tools bridge.Toolbox, flag string, given bool, meta *record.Run, dir string, sf *serverFlags, stderr io.Writer) (*runVariants, error) {
	names, err := variantNames(s, flag, given, meta)
	if err != nil {
		return nil, err
	}
	rv, err := connectVariants(ctx, s, cat, tools, names, sf, stderr)
	if err != nil {
		return nil, err
	}
	if meta != nil {
		if err := sameCatalogs(dir, meta, rv.catalogs); err != nil {
			rv.Close()
			return nil, err
		}
	}
	return rv, nil
}

// variantNames is the variants a run runs, by name ("" for the base): those
// a resumed run recorded, else --variants (the base only when it names
// base), else the base and every variant of the suite.
func variantNames(s *suite.Suite, flag string, given bool, meta *record.Run) ([]string, error) {
	if meta != nil {
		if given {
			return nil, usageErrorf("run: --variants cannot change a resumed run")
		}
		if len(meta.Catalogs) == 0 {
			return []string{""}, nil // a run from before variants
		}
		var out []string
		for _, c := range meta.Catalogs {
			if c.Variant != "" && s.Variant(c.Variant) == nil {
				return nil, usageErrorf("--resume: the run has variant %s, which %s no longer defines", c.Variant, s.Path)
			}
			out = append(out, c.Variant)
		}
		return out, nil
	}
	if !given {
		return append([]string{""}, s.VariantNames()...), nil
	}
	known := append([]string{suite.BaseVariant}, s.VariantNames()...)
	var out []string
	for _, name := range splitList(flag) {
		if !slices.Contains(known, name) {
			return nil, usageErrorf("--variants: %s", srcpos.Unknown("variant", name, known))
		}
		if name == suite.BaseVariant {
			name = ""
		}
		if slices.Contains(out, name) {
			return nil, usageErrorf("--variants: %s is listed twice", displayVariant(name))
		}
		out = append(out, name)
	}
	if len(out) == 0 {
		return nil, usageErrorf("--variants: name at least one variant (%s)", strings.Join(known, ", "))
	}
	// The base runs (and is recorded) first, whatever order the flag says.
	if i := slices.Index(out, ""); i > 0 {
		out = slices.Concat([]string{""}, out[:i], out[i+1:])
	}
	return out, nil
}

// transformed is one variant's toolbox over one catalog, the suite's or
// a case's own: what it offers and runs, what checks its calls, and the
// decoys it adds (nil when none).
type transformed struct {
	Tools   bridge.Toolbox
	Catalog score.Catalog
	Decoys  *decoys.Toolbox
}

// toolTransform is what a variant does to the toolbox of one catalog, the
// suite's or a case's own: cat checks the base's calls and hidden names the
// hidden constraints of its tools (for schema hints). A variant is applied
// as one of these to every catalog it sends, so transformations compose
// over a plain bridge.Toolbox.
type toolTransform func(base bridge.Toolbox, cat score.Catalog, hidden overlay.HiddenOf) (transformed, error)

// variantTransform is variant v's transformation (nil v: the base's): its
// description overlays of the tools the catalog has, then its decoys (drawn
// from ds), then schema hints, which cover the decoys too.
func variantTransform(ctx context.Context, s *suite.Suite, v *suite.Variant, ds *decoySet) toolTransform {
	return func(base bridge.Toolbox, cat score.Catalog, hidden overlay.HiddenOf) (transformed, error) {
		out := transformed{Tools: base, Catalog: cat}
		if v != nil && len(v.Tools) > 0 {
			// Check made sure each overlay names a tool of some catalog;
			// this one may have only some of them.
			offered := map[string]bool{}
			for _, t := range base.OllamaTools() {
				offered[t.Function.Name] = true
			}
			var ovs []suite.ToolOverlay
			for _, o := range v.Tools {
				if offered[o.Exposed] {
					ovs = append(ovs, o)
				}
			}
			if len(ovs) > 0 {
				ov, err := overlay.New(out.Tools, ovs)
				if err != nil {
					return transformed{}, err
				}
				out.Tools = ov
			}
		}
		if v != nil && v.Decoys > 0 {
			dt, err := ds.add(ctx, out.Tools, cat, v.Decoys)
			if err != nil {
				return transformed{}, fmt.Errorf("variant %s: %w", v.Name, err)
			}
			out.Tools, out.Catalog, out.Decoys, hidden = dt, dt, dt, dt.HiddenOf(hidden)
		}
		if s != nil && s.SchemaHints(v) == suite.HintsDescription {
			out.Tools = overlay.WithHints(out.Tools, hidden)
		}
		return out, nil
	}
}

// connectVariants makes the tools of each named variant: the base's tools
// (tools, over cat) with the variant's transformation, or those of the
// variant's own servers file, connected once per distinct file and checked
// against the cases; and, per variant, the toolboxes of the cases that bring
// their own tools, the same transformation over each distinct case catalog,
// built once and shared by the cases that list the same tools. The suite
// must have passed Check against cat.
func connectVariants(ctx context.Context, s *suite.Suite, cat *casetools.Catalogs, tools bridge.Toolbox, names []string, sf *serverFlags, stderr io.Writer) (*runVariants, error) {
	rv := &runVariants{}
	ds := newDecoySet(s, sf, stderr)
	byFile := map[string]*casetools.Catalogs{}
	fail := func(err error) (*runVariants, error) {
		rv.Close()
		return nil, err
	}
	allow, deny := suite.Globs(s.Defaults.AllowTools), suite.Globs(s.Defaults.DenyTools)
	for _, name := range names {
		var sv *suite.Variant
		vcat, base := cat, tools // the catalog the variant sends, and its toolbox
		if name != "" {
			sv = s.Variant(name)
			if sv.ServersPath != "" {
				// The suite's own file is connected once, as the base.
				byFile[s.ServersPath] = cat
				vc := byFile[sv.ServersPath]
				if vc == nil {
					cfg, err := servers.Load(sv.ServersPath)
					if err != nil {
						return fail(asUsage(fmt.Errorf("variant %s: %w", name, err)))
					}
					c, err := connectServers(ctx, cfg, sf, stderr)
					if err != nil {
						return fail(fmt.Errorf("variant %s: %w", name, err))
					}
					rv.conns = append(rv.conns, c)
					vc = casetools.New(c)
					byFile[sv.ServersPath] = vc
				}
				if err := s.CheckVariant(sv, vc); err != nil {
					return fail(asUsage(err))
				}
				if vc != cat {
					vcat = vc
					base = &bridge.Policy{Tools: vc.Catalog, Info: vc.Catalog, Allow: allow, Deny: deny}
				}
			}
		}
		transform := variantTransform(ctx, s, sv, ds)
		vt, err := transform(base, vcat.Catalog, vcat.HiddenOf)
		if err != nil {
			return fail(err)
		}
		v := runner.Variant{Name: name, Suite: sv, Tools: vt.Tools, Catalog: vt.Catalog}
		rc, err := variantCatalog(name, sv, v.Tools)
		if err != nil {
			return fail(err)
		}
		if vt.Decoys != nil {
			rc.Decoys = vt.Decoys.Decoys()
		}
		if name == "" {
			rc.Sweep = suite.SweepMap(s.BasePoint())
		}
		if v.Cases, rc.Cases, err = caseToolboxes(s, vcat, transform, rc.System); err != nil {
			return fail(err)
		}
		rv.list = append(rv.list, v)
		rv.catalogs = append(rv.catalogs, rc)
	}
	return rv, nil
}

// caseToolboxes applies one variant's transformation to the catalog of
// every case that brings its own tools (see casetools.Toolboxes): what
// run.json records of them is each distinct tools JSON once, with the cases
// sent it.
func caseToolboxes(s *suite.Suite, vcat *casetools.Catalogs, transform toolTransform, system string) (map[string]runner.CaseTools, []record.RunCaseCatalog, error) {
	byCase, err := casetools.Toolboxes(s, vcat, func(tools bridge.Toolbox, st *servers.Static) (runner.CaseTools, error) {
		vt, err := transform(tools, st, st.HiddenOf)
		return runner.CaseTools{Tools: vt.Tools, Catalog: vt.Catalog}, err
	})
	if err != nil {
		return nil, nil, err
	}
	var recs []record.RunCaseCatalog
	recorded := map[string]int{}          // by hash: index in recs
	hashed := map[bridge.Toolbox]string{} // a toolbox shared by cases is encoded once
	for i := range s.Cases {
		c := &s.Cases[i]
		ct, ok := byCase[c.ID]
		if !ok {
			continue
		}
		h, seen := hashed[ct.Tools]
		if !seen {
			b, err := json.Marshal(ct.Tools.OllamaTools())
			if err != nil {
				return nil, nil, err
			}
			h = catalogHash(b, system)
			hashed[ct.Tools] = h
			if _, dup := recorded[h]; !dup {
				recorded[h] = len(recs)
				recs = append(recs, record.RunCaseCatalog{Hash: h, Tools: b})
			}
		}
		recs[recorded[h]].Cases = append(recs[recorded[h]].Cases, c.ID)
	}
	return byCase, recs, nil
}

// variantCatalog is what run.json records of one variant: the tools JSON
// exactly as sent, the system prompt, think and options it sets, its grid
// point, and their hash (which covers think and options only when the
// variant sets them, so older runs keep their hashes).
func variantCatalog(name string, v *suite.Variant, tools bridge.Toolbox) (record.RunCatalog, error) {
	b, err := json.Marshal(tools.OllamaTools())
	if err != nil {
		return record.RunCatalog{}, err
	}
	rc := record.RunCatalog{Variant: name, Tools: b}
	if v != nil {
		rc.System, rc.Think, rc.Options, rc.Sweep = v.System, v.Think, v.Options, suite.SweepMap(v.Sweep)
	}
	rc.Hash = catalogHash(b, rc.System)
	if rc.Think != "" || len(rc.Options) > 0 {
		// What the variant sends besides its tools is part of what its
		// trials ran with: a resume that would change it is refused.
		opts, err := json.Marshal(rc.Options) // map keys sorted: stable
		if err != nil {
			return record.RunCatalog{}, err
		}
		rc.Hash = catalogHash(b, rc.System+"\x00think="+rc.Think+"\x00options="+string(opts))
	}
	return rc, nil
}

// catalogHash is the sha256 (hex) of a variant's tools JSON, followed, when
// the variant sets a system prompt, by a NUL byte and that prompt; for the
// base it equals the servers catalog's Hash.
func catalogHash(tools []byte, system string) string {
	h := sha256.New()
	h.Write(tools)
	if system != "" {
		h.Write([]byte{0})
		h.Write([]byte(system))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// sameCatalogs refuses to resume a run when a variant's catalog changed
// since the run began, or the catalog it sends one of the cases that bring
// their own tools: its trials before and after would not be comparable.
func sameCatalogs(dir string, meta *record.Run, now []record.RunCatalog) error {
	for _, c := range now {
		for _, old := range meta.Catalogs {
			if old.Variant != c.Variant {
				continue
			}
			if old.Hash != c.Hash {
				return usageErrorf("--resume: the catalog of variant %s changed since the run in %s began (hash %.12s, now %.12s): its trials would not be comparable",
					displayVariant(c.Variant), dir, old.Hash, c.Hash)
			}
			was, is := caseHashes(old.Cases), caseHashes(c.Cases)
			for _, id := range slices.Sorted(maps.Keys(is)) {
				if was[id] != is[id] {
					return usageErrorf("--resume: the tools of case %s in variant %s changed since the run in %s began (hash %.12s, now %.12s): its trials would not be comparable",
						id, displayVariant(c.Variant), dir, orNone(was[id]), is[id])
				}
			}
			for _, id := range slices.Sorted(maps.Keys(was)) {
				if _, ok := is[id]; !ok {
					return usageErrorf("--resume: case %s in variant %s had its own tools when the run in %s began and has none now: its trials would not be comparable",
						id, displayVariant(c.Variant), dir)
				}
			}
		}
	}
	return nil
}

// caseHashes maps each case id of a variant's case catalogs to its hash.
func caseHashes(cs []record.RunCaseCatalog) map[string]string {
	out := map[string]string{}
	for _, c := range cs {
		for _, id := range c.Cases {
			out[id] = c.Hash
		}
	}
	return out
}

func orNone(h string) string {
	if h == "" {
		return "none"
	}
	return h
}

// displayVariant is a variant's name as the CLI shows it: "base" for "".
func displayVariant(name string) string {
	if name == "" {
		return suite.BaseVariant
	}
	return name
}

// variantTools is what `toolgrade tools` shows: the servers file to connect
// and the variant (nil: the base) whose overlays apply.
type variantTools struct {
	// cfg is nil for a suite without servers whose cases bring their own
	// tools.
	cfg     *servers.Config
	suite   *suite.Suite
	variant *suite.Variant
}

// loadVariantTools reads --suite and finds --variant in it: the servers are
// --servers, else the variant's own file, else the suite's.
func loadVariantTools(suitePath, variant, serversFile string) (*variantTools, error) {
	vt := &variantTools{}
	if suitePath == "" {
		if variant != "" {
			return nil, usageErrorf("tools: --variant needs --suite FILE, the suite that defines it")
		}
		if serversFile == "" {
			return nil, usageErrorf("tools: --servers FILE is required")
		}
		cfg, err := servers.Load(serversFile)
		vt.cfg = cfg
		return vt, asUsage(err)
	}
	s, err := suite.Load(suitePath)
	if err != nil {
		return nil, asUsage(err)
	}
	vt.suite = s
	if variant != "" && variant != suite.BaseVariant {
		if vt.variant = s.Variant(variant); vt.variant == nil {
			return nil, usageErrorf("tools: --variant: %s", srcpos.Unknown("variant", variant, append([]string{suite.BaseVariant}, s.VariantNames()...)))
		}
	}
	var cfg *servers.Config
	switch {
	case vt.variant != nil && vt.variant.ServersPath != "":
		cfg, err = servers.Load(vt.variant.ServersPath)
	case serversFile != "":
		cfg, err = servers.Load(serversFile)
	case !hasServers(s) && allOwnTools(s):
		// No servers to start: every case brings its own tools.
	default:
		cfg, err = suiteServers(s)
	}
	if err != nil {
		return nil, asUsage(err)
	}
	vt.cfg = cfg
	return vt, nil
}

// tools is the tool list the variant sends over cat, its overlays checked,
// and its decoys (nil when it has none).
func (vt *variantTools) tools(ctx context.Context, cat *servers.Catalog, sf *serverFlags, stderr io.Writer) ([]api.Tool, *decoys.Toolbox, error) {
	if vt.variant != nil && len(vt.variant.Tools) > 0 {
		if err := vt.suite.CheckOverlays(vt.variant, cat); err != nil {
			return nil, nil, asUsage(err)
		}
	}
	out, err := variantTransform(ctx, vt.suite, vt.variant, newDecoySet(vt.suite, sf, stderr))(cat, cat, cat.HiddenOf)
	if err != nil {
		return nil, nil, err
	}
	return out.Tools.OllamaTools(), out.Decoys, nil
}
