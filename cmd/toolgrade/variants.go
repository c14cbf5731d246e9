package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/ollama/ollama/api"
	"github.com/toolgrade/toolgrade/harness/bridge"
	"github.com/toolgrade/toolgrade/harness/decoys"
	"github.com/toolgrade/toolgrade/harness/overlay"
	"github.com/toolgrade/toolgrade/harness/record"
	"github.com/toolgrade/toolgrade/harness/runner"
	"github.com/toolgrade/toolgrade/harness/servers"
	"github.com/toolgrade/toolgrade/harness/srcpos"
	"github.com/toolgrade/toolgrade/harness/suite"
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
func setupVariants(ctx context.Context, s *suite.Suite, cat *servers.Catalog, tools bridge.Toolbox, flag string, given bool, meta *record.Run, dir string, sf *serverFlags, stderr io.Writer) (*runVariants, error) {
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

// connectVariants makes the tools of each named variant: the base's tools
// (tools, over cat) with the variant's overlays, or those of the variant's
// own servers file, connected once per distinct file and checked against
// the cases. The suite must have passed Check against cat.
func connectVariants(ctx context.Context, s *suite.Suite, cat *servers.Catalog, tools bridge.Toolbox, names []string, sf *serverFlags, stderr io.Writer) (*runVariants, error) {
	rv := &runVariants{}
	ds := newDecoySet(s, sf, stderr)
	byFile := map[string]*servers.Catalog{}
	fail := func(err error) (*runVariants, error) {
		rv.Close()
		return nil, err
	}
	for _, name := range names {
		v := runner.Variant{Name: name, Tools: tools, Catalog: cat}
		var sv *suite.Variant
		hidden := cat // the catalog whose hidden constraints hints name
		if name != "" {
			sv = s.Variant(name)
			v.Suite = sv
			if sv.ServersPath != "" {
				// The suite's own file is connected once, as the base.
				byFile[s.ServersPath] = cat
				vc := byFile[sv.ServersPath]
				if vc == nil {
					cfg, err := servers.Load(sv.ServersPath)
					if err != nil {
						return fail(asUsage(fmt.Errorf("variant %s: %w", name, err)))
					}
					if vc, err = connectServers(ctx, cfg, sf, stderr); err != nil {
						return fail(fmt.Errorf("variant %s: %w", name, err))
					}
					byFile[sv.ServersPath] = vc
					rv.conns = append(rv.conns, vc)
				}
				if err := s.CheckVariant(sv, vc); err != nil {
					return fail(asUsage(err))
				}
				if vc != cat {
					v.Catalog, hidden = vc, vc
					v.Tools = &bridge.Policy{Tools: vc, Info: vc, Allow: suite.Globs(s.Defaults.AllowTools), Deny: suite.Globs(s.Defaults.DenyTools)}
				}
			}
			if len(sv.Tools) > 0 {
				ov, err := overlay.New(v.Tools, sv.Tools)
				if err != nil {
					return fail(err)
				}
				v.Tools = ov
			}
		}
		hiddenOf := hidden.HiddenOf
		var dt *decoys.Toolbox
		if sv != nil && sv.Decoys > 0 {
			cat := v.Catalog
			if cat == nil {
				cat = hidden
			}
			var err error
			if dt, err = ds.add(ctx, v.Tools, cat, sv.Decoys); err != nil {
				return fail(fmt.Errorf("variant %s: %w", name, err))
			}
			v.Tools, v.Catalog, hiddenOf = dt, dt, dt.HiddenOf(hidden.HiddenOf)
		}
		if s.SchemaHints(sv) == suite.HintsDescription {
			v.Tools = overlay.WithHints(v.Tools, hiddenOf)
		}
		rc, err := variantCatalog(name, sv, v.Tools)
		if err != nil {
			return fail(err)
		}
		if dt != nil {
			rc.Decoys = dt.Decoys()
		}
		if name == "" {
			rc.Sweep = suite.SweepMap(s.BasePoint())
		}
		rv.list = append(rv.list, v)
		rv.catalogs = append(rv.catalogs, rc)
	}
	return rv, nil
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
// since the run began: its trials before and after would not be comparable.
func sameCatalogs(dir string, meta *record.Run, now []record.RunCatalog) error {
	for _, c := range now {
		for _, old := range meta.Catalogs {
			if old.Variant == c.Variant && old.Hash != c.Hash {
				return usageErrorf("--resume: the catalog of variant %s changed since the run in %s began (hash %.12s, now %.12s): its trials would not be comparable",
					displayVariant(c.Variant), dir, old.Hash, c.Hash)
			}
		}
	}
	return nil
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
	var tb bridge.Toolbox = cat
	if vt.variant != nil && len(vt.variant.Tools) > 0 {
		if err := vt.suite.CheckOverlays(vt.variant, cat); err != nil {
			return nil, nil, asUsage(err)
		}
		ov, err := overlay.New(cat, vt.variant.Tools)
		if err != nil {
			return nil, nil, err
		}
		tb = ov
	}
	hiddenOf := cat.HiddenOf
	var dt *decoys.Toolbox
	if vt.variant != nil && vt.variant.Decoys > 0 {
		var err error
		if dt, err = newDecoySet(vt.suite, sf, stderr).add(ctx, tb, cat, vt.variant.Decoys); err != nil {
			return nil, nil, err
		}
		tb, hiddenOf = dt, dt.HiddenOf(cat.HiddenOf)
	}
	tools := tb.OllamaTools()
	if vt.suite != nil && vt.suite.SchemaHints(vt.variant) == suite.HintsDescription {
		tools = overlay.Hints(tools, hiddenOf)
	}
	return tools, dt, nil
}
