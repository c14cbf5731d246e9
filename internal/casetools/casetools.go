// Package casetools builds the own tools of the suite cases that bring them
// (a case's tools:): each case's catalog over the servers' catalog, built
// once per distinct list, and the toolboxes the runner sends those cases.
// `toolgrade run`, `toolgrade tools`, tgtest and the benchmarks all build
// them here, so a case is offered the same tools whichever runs it.
package casetools

import (
	"fmt"

	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/runner"
	"github.com/toolgrade/toolgrade/internal/servers"
	"github.com/toolgrade/toolgrade/internal/suite"
)

// Catalogs is the servers' catalog as suite.Check takes it, that also
// builds the catalogs of the cases that bring their own tools
// (suite.CaseCatalogs): cases that list the same tools share one. It is safe
// for concurrent use.
type Catalogs struct {
	*servers.Catalog
	statics *servers.Statics
}

// New returns the case catalogs over cat, the servers' catalog whose tools
// the cases name (it may have none when every case's tools are inline).
func New(cat *servers.Catalog) *Catalogs {
	return &Catalogs{Catalog: cat, statics: servers.NewStatics(cat)}
}

// CaseCatalog is the catalog of c's own tools (suite.CaseCatalogs).
func (cc *Catalogs) CaseCatalog(c *suite.Case) (suite.Catalog, error) {
	st, err := cc.Static(c)
	if err != nil {
		return nil, err
	}
	return st, nil
}

// Static is the catalog of c's own tools, in c.Tools order. Its named tools
// are found by the exposed names suite.Check sets, so the suite must have
// passed Check against cc first.
func (cc *Catalogs) Static(c *suite.Case) (*servers.Static, error) {
	return cc.statics.Static(Defs(c))
}

// Built is how many distinct case catalogs cc has built.
func (cc *Catalogs) Built() int { return cc.statics.Len() }

// Defs is c's tools as servers.NewStatic takes them: an inline definition
// as written, a named tool by its exposed name.
func Defs(c *suite.Case) []servers.StaticTool {
	defs := make([]servers.StaticTool, len(c.Tools))
	for i, t := range c.Tools {
		defs[i] = servers.StaticTool{Name: t.Exposed, Description: t.Description, Schema: t.Parameters}
	}
	return defs
}

// Transform turns the toolbox of one case catalog into what the case is
// sent (a variant's overlays, decoys and hints, say): tools is the tool
// policy over st.
type Transform func(tools bridge.Toolbox, st *servers.Static) (runner.CaseTools, error)

// Toolboxes is the toolbox of every case of s that brings its own tools, by
// case id, as runner.Variant.Cases takes them: a tool policy over the
// case's catalog from cc (its named tools run on their servers under the
// suite's allow_tools and deny_tools), through transform; nil transform
// sends the policy as it is, and checks calls against the case's catalog.
// Each distinct case catalog is transformed once, and the cases that list
// the same tools share the result. Nil when no case brings tools. The suite
// must have passed Check against cc.
func Toolboxes(s *suite.Suite, cc *Catalogs, transform Transform) (map[string]runner.CaseTools, error) {
	if transform == nil {
		transform = func(tools bridge.Toolbox, st *servers.Static) (runner.CaseTools, error) {
			return runner.CaseTools{Tools: tools, Catalog: st}, nil
		}
	}
	allow, deny := suite.Globs(s.Defaults.AllowTools), suite.Globs(s.Defaults.DenyTools)
	var byCase map[string]runner.CaseTools
	made := map[*servers.Static]runner.CaseTools{}
	for i := range s.Cases {
		c := &s.Cases[i]
		if c.Tools == nil {
			continue
		}
		st, err := cc.Static(c)
		if err != nil {
			return nil, fmt.Errorf("case %s: %w", c.ID, err)
		}
		ct, ok := made[st]
		if !ok {
			if ct, err = transform(&bridge.Policy{Tools: st, Info: st, Allow: allow, Deny: deny}, st); err != nil {
				return nil, fmt.Errorf("case %s: %w", c.ID, err)
			}
			made[st] = ct
		}
		if byCase == nil {
			byCase = map[string]runner.CaseTools{}
		}
		byCase[c.ID] = ct
	}
	return byCase, nil
}
