package toolbox

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/mcpclient"
	"github.com/toolgrade/toolgrade/internal/suite"
)

// Base is the catalog a suite is checked against and its variants are built
// over: the MCP servers' catalog, which it embeds, and the catalogs of the
// cases that bring their own tools (a case's tools:), each distinct list
// built once, so the cases that list the same tools share one Static and
// what is converted, sent and recorded once is one value. `toolgrade run`,
// `toolgrade tools`, tgtest and the benchmarks all build case catalogs
// here, so a case is offered the same tools whichever runs it. It is safe
// for concurrent use.
type Base struct {
	*mcpclient.Catalog

	mu    sync.Mutex
	built map[string]*Static // by the tool list as JSON
}

// NewBase returns the base over cat, the servers' catalog whose tools the
// cases name (it may have none when every case's tools are inline).
func NewBase(cat *mcpclient.Catalog) *Base {
	return &Base{Catalog: cat, built: map[string]*Static{}}
}

// CaseCatalog is the catalog of c's own tools (suite.CaseCatalogs).
func (b *Base) CaseCatalog(c *suite.Case) (suite.Catalog, error) {
	st, err := b.Static(c)
	if err != nil {
		return nil, err
	}
	return st, nil
}

// Static is the catalog of c's own tools, in c.Tools order: the one built
// for an equal list before, else a new one (a list that fails is not kept).
// Its named tools are found by the exposed names suite.Check sets, so the
// suite must have passed Check against b first.
func (b *Base) Static(c *suite.Case) (*Static, error) {
	return b.static(staticTools(c))
}

// static is the catalog of tools over b's servers, built once per distinct
// list.
func (b *Base) static(tools []StaticTool) (*Static, error) {
	data, err := json.Marshal(tools)
	if err != nil {
		return nil, err
	}
	key := string(data)
	b.mu.Lock()
	defer b.mu.Unlock()
	if st := b.built[key]; st != nil {
		return st, nil
	}
	st, err := NewStatic(b.Catalog, tools)
	if err != nil {
		return nil, err
	}
	b.built[key] = st
	return st, nil
}

// Built is how many distinct case catalogs b has built.
func (b *Base) Built() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.built)
}

// staticTools is c's tools as NewStatic takes them: an inline definition as
// written, a named tool by its exposed name.
func staticTools(c *suite.Case) []StaticTool {
	defs := make([]StaticTool, len(c.Tools))
	for i, t := range c.Tools {
		defs[i] = StaticTool{Name: t.Exposed, Description: t.Description, Schema: t.Parameters}
	}
	return defs
}

// CaseOffers is what every case of s that brings its own tools is sent, by
// case id, as Variant.Cases takes it: the suite's tool policy (allow_tools,
// deny_tools) over the case's catalog from b, whose named tools run on
// their servers, and that catalog to check the calls. Cases that list the
// same tools share one Offer. Nil when no case brings tools. The suite must
// have passed Check against b.
func CaseOffers(s *suite.Suite, b *Base) (map[string]Offer, error) {
	return caseOffers(s, b, func(tools bridge.Toolbox, st *Static) (Offer, error) {
		return Offer{Tools: tools, Catalog: st}, nil
	})
}

// caseOffers is CaseOffers with each distinct case catalog's policy turned
// into what its cases are sent by compose (a variant's overlays, decoys and
// hints, say), once per catalog.
func caseOffers(s *suite.Suite, b *Base, compose func(tools bridge.Toolbox, st *Static) (Offer, error)) (map[string]Offer, error) {
	allow, deny := suite.Globs(s.Defaults.AllowTools), suite.Globs(s.Defaults.DenyTools)
	var byCase map[string]Offer
	made := map[*Static]Offer{}
	for i := range s.Cases {
		c := &s.Cases[i]
		if c.Tools == nil {
			continue
		}
		st, err := b.Static(c)
		if err != nil {
			return nil, fmt.Errorf("case %s: %w", c.ID, err)
		}
		o, ok := made[st]
		if !ok {
			if o, err = compose(&bridge.Policy{Tools: st, Info: st, Allow: allow, Deny: deny}, st); err != nil {
				return nil, fmt.Errorf("case %s: %w", c.ID, err)
			}
			made[st] = o
		}
		if byCase == nil {
			byCase = map[string]Offer{}
		}
		byCase[c.ID] = o
	}
	return byCase, nil
}
