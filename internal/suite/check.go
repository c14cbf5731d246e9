package suite

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/toolgrade/toolgrade/internal/srcpos"
)

// Catalog is what checking a suite (Check) and scoring a trial
// (score.Options.Tools) ask of the tools a model is offered: the one catalog
// interface of toolgrade, declared here because this is the lowest package
// that uses it. Its optional parts are the extensions below and, for
// scoring, score.Coercer and a Decoy(name) method. *mcpclient.Catalog and the
// catalogs of package toolbox are Catalogs.
type Catalog interface {
	// Resolve maps a name as written in a case (plain, server.tool or server__tool) to the exposed tool name.
	Resolve(name string) (exposed string, ok bool)
	// Names lists the exposed names, for "did you mean".
	Names() []string
	// ValidateArgs checks args (a JSON object) against the tool's input schema.
	ValidateArgs(exposed string, args json.RawMessage) error
}

// PartialValidator is an optional extension of a Catalog. ValidatePartial
// checks args like ValidateArgs but does not require the properties args
// leave out, which lets Check validate the literal arguments of every case;
// without it only cases whose expectation fixes the whole argument object can
// be validated (see Check).
type PartialValidator interface {
	ValidatePartial(exposed string, args json.RawMessage) error
}

// ClashReporter is an optional extension of a Catalog. Clashes lists the
// exposed names of the tools several servers expose under name (each
// prefixed with its server), nil when name is no such tool; an unknown tool
// error then names the choices.
type ClashReporter interface {
	Clashes(name string) []string
}

// CaseCatalogs is an optional extension of a Catalog, needed when a case
// brings its own tools: CaseCatalog returns the catalog case c is offered,
// its inline definitions and the named tools of this catalog (whose Exposed
// Check has set), in c.Tools order. Check resolves the case's expected calls
// and checks their arguments against it; when it is also a ToolLister, the
// variants' overlays may name its tools.
type CaseCatalogs interface {
	CaseCatalog(c *Case) (Catalog, error)
}

// Check checks the suite against the tools of the connected servers, once,
// before any model runs: every expected tool must exist, and each expected
// call's Exposed is set to the name the model will see (Check is not safe to
// run concurrently with readers of the suite). A case with its own tools is
// checked against its own catalog (see CaseCatalogs): its named tools must be
// tools of c (each Exposed is set), and its expected tools must be among its
// tools. The overlays of the variants that use the suite's servers must name
// tools and parameters of c or of a case's catalog (which must then be
// ToolListers), and their Exposed is set.
//
// The arguments known exactly (literals, each choice of a one_of, a number
// without tolerance; absent keys left out) are validated against the tool's
// input schema. When the case has strict args and knows every argument it
// names exactly, that object is all a passing call can send, so it must pass
// ValidateArgs, required properties included. Otherwise a required property
// that the case leaves free or matches loosely would fail a correct case, so
// the object is only validated when c is also a PartialValidator. The error is
// an Errors, like Parse's.
func (s *Suite) Check(c Catalog) error {
	p := &parser{file: s.Path}
	if p.file == "" {
		p.file = "<input>"
	}
	cases := p.caseCatalogs(s, c, "", true)
	markSkipped(s, c)
	p.checkStateCalls(s, c)
	p.checkExpectedCalls(s, c, cases, "", func(call *ExpectedCall, exposed, _ string) *ExpectedCall {
		call.Exposed = exposed
		return call
	})
	// Variants with their own servers are checked against those, by
	// CheckVariant.
	for i := range s.Variants {
		if v := &s.Variants[i]; v.ServersPath == "" {
			p.checkOverlays(s, v, c, cases)
		}
	}
	if len(p.errs) > 0 {
		p.errs.Sort()
		return p.errs
	}
	return nil
}

// caseCatalogs resolves the named tools of every case that brings its own
// tools against c (setting their Exposed when set is true, else requiring
// them to resolve to the Exposed already set) and builds each such case's
// catalog, by case index; a case whose tools have a problem has none.
func (p *parser) caseCatalogs(s *Suite, c Catalog, prefix string, set bool) map[int]Catalog {
	out := map[int]Catalog{}
	names := c.Names()
	builder, _ := c.(CaseCatalogs)
	for ci := range s.Cases {
		cs := &s.Cases[ci]
		if cs.Tools == nil {
			continue
		}
		before := len(p.errs)
		seen := map[string]string{}
		for j := range cs.Tools {
			t := &cs.Tools[j]
			field := fmt.Sprintf("cases[%d].tools[%d]", ci, j)
			exposed := t.Name
			if !t.Inline {
				var ok bool
				if exposed, ok = c.Resolve(t.Name); !ok {
					p.errorAt(t.Pos, field, "%s%s", prefix, unknownTool(c, t.Name, names))
					continue
				}
				switch {
				case set:
					t.Exposed = exposed
				case exposed != t.Exposed:
					p.errorAt(t.Pos, field, "%sexposes %q as %q, the suite's servers as %q; name the tool so both resolve alike", prefix, t.Name, exposed, t.Exposed)
					continue
				}
			}
			if prev, dup := seen[exposed]; dup {
				p.errorAt(t.Pos, field, "%s%q and %q are the same tool, %s", prefix, prev, t.Name, exposed)
				continue
			}
			seen[exposed] = t.Name
		}
		if len(p.errs) > before {
			continue
		}
		if builder == nil {
			p.errorAt(cs.ToolsPos, fmt.Sprintf("cases[%d].tools", ci), "%sthe catalog cannot build a case's own tools, so this case cannot be checked", prefix)
			continue
		}
		cc, err := builder.CaseCatalog(cs)
		if err != nil {
			p.errorAt(cs.ToolsPos, fmt.Sprintf("cases[%d].tools", ci), "%s%v", prefix, err)
			continue
		}
		out[ci] = cc
	}
	return out
}

// checkExpectedCalls resolves every expected call of s's cases against c,
// or against the case's own catalog in cases, reporting the unknown ones
// (their message after prefix), and checks the literal arguments of the call
// resolved returns for each known one (nil: resolved reported a problem of
// its own). A case with tools but no catalog in cases had its problem
// reported already.
func (p *parser) checkExpectedCalls(s *Suite, c Catalog, cases map[int]Catalog, prefix string, resolved func(call *ExpectedCall, exposed, field string) *ExpectedCall) {
	suiteNames := c.Names()
	for ci := range s.Cases {
		cs := &s.Cases[ci]
		cat, names, pre := c, suiteNames, prefix
		if cs.Tools != nil {
			if cat = cases[ci]; cat == nil {
				continue
			}
			names, pre = cat.Names(), prefix+"not among the case's tools: "
		}
		partial, _ := cat.(PartialValidator)
		strict := s.Defaults.StrictArgs
		for _, e := range cs.expects(ci) {
			strict := strict
			if e.e.StrictArgs != nil {
				strict = *e.e.StrictArgs
			}
			for j := range e.e.Calls {
				call := &e.e.Calls[j]
				field := fmt.Sprintf("%s.calls[%d].tool", e.field, j)
				if e.e.FirstOnly {
					field = e.field + ".tool"
				}
				exposed, ok := cat.Resolve(call.Tool)
				if !ok && call.Skipped != nil {
					continue // its server was skipped: the case cannot run (markSkipped)
				}
				if !ok {
					p.errorAt(call.Pos, field, "%s%s", pre, unknownTool(cat, call.Tool, names))
					continue
				}
				if checked := resolved(call, exposed, field); checked != nil {
					p.checkArgs(cat, partial, checked, strict, field)
				}
			}
		}
	}
}

// fieldExpect is one expect of a case and its path in the file.
type fieldExpect struct {
	e     *Expect
	field string
}

// expects are every expect of case c (index ci): its own, unless it gives
// none, then each turn's.
func (c *Case) expects(ci int) []fieldExpect {
	var out []fieldExpect
	if !c.ExpectNone {
		out = append(out, fieldExpect{&c.Expect, fmt.Sprintf("cases[%d].expect", ci)})
	}
	for ti := range c.Turns {
		if e := c.Turns[ti].Expect; e != nil {
			out = append(out, fieldExpect{e, fmt.Sprintf("cases[%d].turns[%d].expect", ci, ti)})
		}
	}
	return out
}

// unknownTool words the error for a tool name the catalog does not know:
// the prefixed choices when several servers expose it, else the nearest
// exposed name (a typo, or the name written longer or shorter) and the
// tools there are: all of them, or for a long catalog the nearest few.
func unknownTool(c Catalog, name string, names []string) string {
	msg := fmt.Sprintf("unknown tool %q", name)
	if cr, ok := c.(ClashReporter); ok {
		if choices := cr.Clashes(name); len(choices) > 1 {
			n := fmt.Sprint(len(choices))
			if len(choices) == 2 {
				n = "two"
			}
			// The dotted form of the first, for suites written that way.
			dotted := strings.Replace(choices[0], "__", ".", 1)
			return fmt.Sprintf("%s: %s servers expose it; name one of %s (or %s)", msg, n, strings.Join(choices, ", "), dotted)
		}
	}
	if len(names) == 0 {
		return msg + " (the servers expose no tools)"
	}
	// Compare the bare tool part too, so docs.serch still finds search.
	bare := name
	if i := strings.LastIndex(bare, "."); i >= 0 {
		bare = bare[i+1:]
	}
	if i := strings.LastIndex(bare, "__"); i >= 0 {
		bare = bare[i+2:]
	}
	list := "tools: " + strings.Join(slices.Sorted(slices.Values(names)), ", ")
	if len(names) > maxToolsListed {
		list = fmt.Sprintf("nearest of %d tools: %s", len(names), strings.Join(srcpos.Nearest(bare, names, nearestTools), ", "))
	}
	if s := cmp.Or(closest(name, names), closest(bare, names), srcpos.Related(bare, names)); s != "" {
		return fmt.Sprintf("%s (did you mean %q? %s)", msg, s, list)
	}
	return msg + " (" + list + ")"
}

// An unknown tool's error lists every tool of a catalog of up to
// maxToolsListed, else the nearestTools nearest to the name.
const (
	maxToolsListed = 12
	nearestTools   = 5
)
