package toolbox

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/cli"
	"github.com/toolgrade/toolgrade/internal/mcpclient"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/serversfile"
	"github.com/toolgrade/toolgrade/internal/srcpos"
	"github.com/toolgrade/toolgrade/internal/suite"
)

// Spec is what Open needs to ready the variants of one run.
type Spec struct {
	// Suite is the suite run; it must have passed Check against Catalog.
	Suite *suite.Suite
	// Catalog is the suite's catalog: the MCP servers' and the cases' own.
	Catalog *Base
	// Policy is the base's toolbox over Catalog: the suite's tool policy
	// (allow_tools, deny_tools) as a bridge.Policy.
	Policy bridge.Toolbox
	// Variants names the variants to run, "base" for the base, in any
	// order (the base runs first). Nil: the base and every variant of the
	// suite, or, on resume, the variants Recorded has; an empty list that
	// is not nil is an error.
	Variants []string
	// Recorded is run.json of the run being resumed; nil for a new run. Its
	// variants run again, and one whose catalog changed since is refused
	// (see SameCatalogs).
	Recorded *record.Run
	// Dir is the run directory, named in the errors of a resume.
	Dir string
	// Connect says how the servers files of variants and of decoys are
	// connected, and where warnings go.
	Connect ConnectOptions
}

// Set is the variants of one run, ready: what each sends and runs, and what
// run.json records of them. Close ends the servers it connected.
type Set struct {
	// Variants are the variants in run order (the base first when it
	// runs), as runner.Config.Variants takes them.
	Variants []Variant
	// Catalogs is what run.json records of each variant (record.Run's
	// Catalogs), in the same order.
	Catalogs []record.RunCatalog
	// conns are the servers files of variants connected here.
	conns []*mcpclient.Catalog
}

// Close closes the catalogs the variants connected; Spec.Catalog is the
// caller's.
func (s *Set) Close() {
	for _, c := range s.conns {
		c.Close()
	}
}

// Open readies the variants a run runs: the base's tools (Spec.Policy) or a
// variant's own servers file, connected once per distinct file and checked
// against the cases, with the variant's overlays, decoys and hints; and,
// per variant, the same over each case catalog, built once and shared by
// the cases that list the same tools. On resume it refuses a variant whose
// catalog changed. The caller closes what it returns.
func Open(ctx context.Context, spec Spec) (*Set, error) {
	names, err := VariantNames(spec.Suite, spec.Variants, spec.Recorded)
	if err != nil {
		return nil, err
	}
	o := &opener{spec: spec, set: &Set{}, pool: newDecoyPool(spec.Suite, spec.Connect), byFile: map[string]*Base{}}
	for _, name := range names {
		if err := o.variant(ctx, name); err != nil {
			o.set.Close()
			return nil, err
		}
	}
	if spec.Recorded != nil {
		if err := SameCatalogs(spec.Dir, spec.Recorded, o.set.Catalogs); err != nil {
			o.set.Close()
			return nil, err
		}
	}
	return o.set, nil
}

// VariantNames is the variants a run runs, by name ("" for the base):
// those a resumed run recorded (meta), else those named (the base only
// when they name base), else the base and every variant of the suite.
func VariantNames(s *suite.Suite, named []string, meta *record.Run) ([]string, error) {
	if meta != nil {
		if named != nil {
			return nil, cli.Usagef("run: --variants cannot change a resumed run")
		}
		if len(meta.Catalogs) == 0 {
			return []string{""}, nil // a run from before variants
		}
		var out []string
		for _, c := range meta.Catalogs {
			if c.Variant != "" && s.Variant(c.Variant) == nil {
				return nil, cli.Usagef("--resume: the run has variant %s, which %s no longer defines", c.Variant, s.Path)
			}
			out = append(out, c.Variant)
		}
		return out, nil
	}
	if named == nil {
		return append([]string{""}, s.VariantNames()...), nil
	}
	known := append([]string{suite.BaseVariant}, s.VariantNames()...)
	var out []string
	for _, name := range named {
		if !slices.Contains(known, name) {
			return nil, cli.Usagef("--variants: %s", srcpos.Unknown("variant", name, known))
		}
		if name == suite.BaseVariant {
			name = ""
		}
		if slices.Contains(out, name) {
			return nil, cli.Usagef("--variants: %s is listed twice", displayVariant(name))
		}
		out = append(out, name)
	}
	if len(out) == 0 {
		return nil, cli.Usagef("--variants: name at least one variant (%s)", strings.Join(known, ", "))
	}
	// The base runs (and is recorded) first, whatever order they are named in.
	if i := slices.Index(out, ""); i > 0 {
		out = slices.Concat([]string{""}, out[:i], out[i+1:])
	}
	return out, nil
}

// displayVariant is a variant's name as the CLI shows it: "base" for "".
func displayVariant(name string) string {
	if name == "" {
		return suite.BaseVariant
	}
	return name
}

// opener readies the variants of one Open.
type opener struct {
	spec   Spec
	set    *Set
	pool   *decoyPool
	byFile map[string]*Base // the variants' servers files, connected
}

// variant readies variant name ("" the base) and adds it to the set.
func (o *opener) variant(ctx context.Context, name string) error {
	s := o.spec.Suite
	var sv *suite.Variant
	base, tools := o.spec.Catalog, o.spec.Policy // the catalog the variant sends, and its toolbox
	if name != "" {
		sv = s.Variant(name)
		if sv.ServersPath != "" {
			var err error
			if base, tools, err = o.ownServers(ctx, sv); err != nil {
				return err
			}
		}
	}
	c := composer{s: s, v: sv, pool: o.pool}
	vt, err := c.compose(ctx, tools, base.Catalog, base.HiddenOf)
	if err != nil {
		return err
	}
	v := Variant{Name: name, Suite: sv, Tools: vt.Tools, Catalog: vt.Catalog}
	rc, err := VariantCatalog(name, sv, v.Tools)
	if err != nil {
		return err
	}
	if vt.decoys != nil {
		rc.Decoys = vt.decoys.Decoys()
	}
	if name == "" {
		rc.Sweep = suite.SweepMap(s.BasePoint())
	}
	v.Cases, err = caseOffers(s, base, func(tools bridge.Toolbox, st *Static) (Offer, error) {
		ct, err := c.compose(ctx, tools, st, st.HiddenOf)
		return ct.Offer, err
	})
	if err != nil {
		return err
	}
	if rc.Cases, err = caseCatalogs(s, v.Cases, rc.System); err != nil {
		return err
	}
	o.set.Variants = append(o.set.Variants, v)
	o.set.Catalogs = append(o.set.Catalogs, rc)
	return nil
}

// ownServers is the catalog of variant sv's own servers file, connected
// once per distinct file (the suite's own is the base's) and checked
// against the cases, and the suite's tool policy over it.
func (o *opener) ownServers(ctx context.Context, sv *suite.Variant) (*Base, bridge.Toolbox, error) {
	s, base := o.spec.Suite, o.spec.Catalog
	o.byFile[s.ServersPath] = base
	vc := o.byFile[sv.ServersPath]
	if vc == nil {
		cfg, err := serversfile.Load(ctx, sv.ServersPath)
		if err != nil {
			return nil, nil, cli.AsUsage(fmt.Errorf("variant %s: %w", sv.Name, err))
		}
		cat, err := Connect(ctx, cfg, o.spec.Connect)
		if err != nil {
			return nil, nil, fmt.Errorf("variant %s: %w", sv.Name, err)
		}
		o.set.conns = append(o.set.conns, cat)
		vc = NewBase(cat)
		o.byFile[sv.ServersPath] = vc
	}
	if err := s.CheckVariant(sv, vc); err != nil {
		return nil, nil, cli.AsUsage(err)
	}
	if vc == base {
		return base, o.spec.Policy, nil
	}
	allow, deny := suite.Globs(s.Defaults.AllowTools), suite.Globs(s.Defaults.DenyTools)
	return vc, &bridge.Policy{Tools: vc.Catalog, Info: vc.Catalog, Allow: allow, Deny: deny}, nil
}
