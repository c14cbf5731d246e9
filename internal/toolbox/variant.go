package toolbox

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/suite"
)

// Variant is one version of the tools (and system prompt) that every case
// of a run is sent with: a suite variant, or the base. runner.Variant is
// this type.
type Variant struct {
	// Name is recorded in Trial.Variant; "" is the base.
	Name string
	// Suite is the suite's variant, whose system prompt replaces the
	// suite's; nil for the base.
	Suite *suite.Variant
	// Tools offers and runs this variant's tools; nil: runner.Runner's
	// Tools.
	Tools bridge.Toolbox
	// Catalog checks the calls of trials without execution; nil:
	// runner.Runner's Catalog when Tools is nil, else Tools when it is a
	// suite.Catalog.
	Catalog suite.Catalog
	// Cases are this variant's toolboxes for the cases that bring their own
	// tools, by case id (cases with identical tools share one); a case not
	// in it runs with Tools. Nil: every case runs with Tools.
	Cases map[string]Offer
}

// Offer is what one catalog is sent with: the toolbox that offers and runs
// its tools, and the catalog that checks their calls. runner.CaseTools is
// this type.
type Offer struct {
	// Tools offers and runs them; required.
	Tools bridge.Toolbox
	// Catalog checks the calls of trials without execution; nil: Tools,
	// when it is a suite.Catalog.
	Catalog suite.Catalog
}

// composed is one variant's toolbox over one catalog, the suite's or a
// case's own, and the decoys it adds (nil when none).
type composed struct {
	Offer
	decoys *Decoyed
}

// composer applies one variant (nil: the base) to the toolbox of any
// catalog, the suite's or a case's own, so that a variant composes over a
// plain bridge.Toolbox: its description overlays of the tools that catalog
// has, then its decoys (drawn from pool), then schema hints, which cover the
// decoys too.
type composer struct {
	s    *suite.Suite // nil: no suite, nothing to apply
	v    *suite.Variant
	pool *decoyPool
}

// compose applies c's variant to base, whose calls cat checks and whose
// tools' hidden constraints hidden gives.
func (c composer) compose(ctx context.Context, base bridge.Toolbox, cat suite.Catalog, hidden HiddenOf) (composed, error) {
	out := composed{Offer: Offer{Tools: base, Catalog: cat}}
	v := c.v
	if v != nil && len(v.Tools) > 0 {
		tools, err := overlayOffered(base, v.Tools)
		if err != nil {
			return composed{}, err
		}
		out.Tools = tools
	}
	if v != nil && v.Decoys > 0 {
		d, err := c.pool.add(ctx, out.Tools, cat, v.Decoys)
		if err != nil {
			return composed{}, fmt.Errorf("variant %s: %w", v.Name, err)
		}
		out.Tools, out.Catalog, out.decoys, hidden = d, d, d, d.HiddenOf(hidden)
	}
	if c.s != nil && c.s.SchemaHints(v) == suite.HintsDescription {
		out.Tools = WithHints(out.Tools, hidden)
	}
	return out, nil
}

// overlayOffered applies the overlays that name a tool base offers: Check
// made sure each names a tool of some catalog, and this one may have only
// some of them.
func overlayOffered(base bridge.Toolbox, overlays []suite.ToolOverlay) (bridge.Toolbox, error) {
	offered := map[string]bool{}
	for _, t := range base.OllamaTools() {
		offered[t.Function.Name] = true
	}
	var ovs []suite.ToolOverlay
	for _, o := range overlays {
		if offered[o.Exposed] {
			ovs = append(ovs, o)
		}
	}
	if len(ovs) == 0 {
		return base, nil
	}
	return Overlay(base, ovs)
}

// VariantCatalog is what run.json records of one variant (nil v: the base)
// sent with tools: the tools JSON exactly as sent, the system prompt, think
// and options it sets, its grid point, and their Hash (which covers think
// and options only when the variant sets them, so older runs keep their
// hashes).
func VariantCatalog(name string, v *suite.Variant, tools bridge.Toolbox) (record.RunCatalog, error) {
	b, err := json.Marshal(tools.OllamaTools())
	if err != nil {
		return record.RunCatalog{}, err
	}
	rc := record.RunCatalog{Variant: name, Tools: b}
	if v != nil {
		rc.System, rc.Think, rc.Options, rc.Sweep = v.System, v.Think, v.Options, suite.SweepMap(v.Sweep)
	}
	rc.Hash = Hash(b, rc.System)
	if rc.Think != "" || len(rc.Options) > 0 {
		// What the variant sends besides its tools is part of what its
		// trials ran with: a resume that would change it is refused.
		opts, err := json.Marshal(rc.Options) // map keys sorted: stable
		if err != nil {
			return record.RunCatalog{}, err
		}
		rc.Hash = Hash(b, rc.System+"\x00think="+rc.Think+"\x00options="+string(opts))
	}
	return rc, nil
}

// caseCatalogs is what run.json records of the case offers of one variant
// whose system prompt is system: each distinct tools JSON once, with the
// cases sent it, in case order.
func caseCatalogs(s *suite.Suite, byCase map[string]Offer, system string) ([]record.RunCaseCatalog, error) {
	var recs []record.RunCaseCatalog
	recorded := map[string]int{}          // by hash: index in recs
	hashed := map[bridge.Toolbox]string{} // a toolbox shared by cases is encoded once
	for i := range s.Cases {
		c := &s.Cases[i]
		o, ok := byCase[c.ID]
		if !ok {
			continue
		}
		h, seen := hashed[o.Tools]
		if !seen {
			b, err := json.Marshal(o.Tools.OllamaTools())
			if err != nil {
				return nil, err
			}
			h = Hash(b, system)
			hashed[o.Tools] = h
			if _, dup := recorded[h]; !dup {
				recorded[h] = len(recs)
				recs = append(recs, record.RunCaseCatalog{Hash: h, Tools: b})
			}
		}
		recs[recorded[h]].Cases = append(recs[recorded[h]].Cases, c.ID)
	}
	return recs, nil
}

// BaseCatalog is what run.json records of the base variant sent tools, with
// the catalogs of the cases' own offers (CaseOffers), for a run made without
// Open (tgtest), so its directory can be rescored like any other.
func BaseCatalog(s *suite.Suite, tools bridge.Toolbox, offers map[string]Offer) (record.RunCatalog, error) {
	rc, err := VariantCatalog("", nil, tools)
	if err != nil {
		return rc, err
	}
	rc.Sweep = suite.SweepMap(s.BasePoint())
	rc.Cases, err = caseCatalogs(s, offers, rc.System)
	return rc, err
}
