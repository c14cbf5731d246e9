package suite

import (
	"fmt"
	"strings"

	"github.com/ollama/ollama/api"
	"github.com/toolgrade/toolgrade/internal/srcpos"
)

// ToolLister is the part of a Catalog that variants' overlays are checked
// against: the tools exactly as offered to the model; *mcpclient.Catalog is
// one.
type ToolLister interface {
	OllamaTools() api.Tools
}

// CheckVariant checks a variant that brings its own servers file against
// that file's catalog, after Check has checked the suite against the
// suite's servers: every expected tool must exist there too, under the same
// name the model sees (else the two sides' trials would not be scored
// alike), its literal arguments must fit, and the variant's overlays must
// name tools and parameters of that catalog. The error is an Errors.
func (s *Suite) CheckVariant(v *Variant, c Catalog) error {
	p := &parser{file: s.Path}
	if p.file == "" {
		p.file = "<input>"
	}
	prefix := fmt.Sprintf("variant %s: its servers (%s): ", v.Name, v.ServersPath)
	cases := p.caseCatalogs(s, c, prefix, false)
	p.checkExpectedCalls(s, c, cases, prefix, func(call *ExpectedCall, exposed, field string) *ExpectedCall {
		if call.Exposed != "" && exposed != call.Exposed {
			p.errorAt(call.Pos, field, "variant %s: its servers expose %q as %q, the suite's servers as %q; name the tool so both resolve alike", v.Name, call.Tool, exposed, call.Exposed)
			return nil
		}
		cp := *call // a copy: Exposed stays the base's
		cp.Exposed = exposed
		return &cp
	})
	p.checkOverlays(s, v, c, cases)
	if len(p.errs) > 0 {
		p.errs.Sort()
		return p.errs
	}
	return nil
}

// checkOverlays checks the overlays of v against the tools of c and of the
// cases' own catalogs (by case index), and fills their Exposed names. An
// overlay may name a tool of any of them; its parameters must be those of
// every catalog that has the tool, since it applies to each.
func (p *parser) checkOverlays(s *Suite, v *Variant, c Catalog, cases map[int]Catalog) {
	vi := 0
	for i := range s.Variants {
		if &s.Variants[i] == v {
			vi = i
		}
	}
	if len(v.Tools) == 0 {
		return
	}
	lister, ok := c.(ToolLister)
	if !ok {
		p.errorAt(v.Pos, index("variants", vi), "the catalog cannot list its tools, so the overlays cannot be checked")
		return
	}
	cats := []Catalog{c}
	listers := []ToolLister{lister}
	for ci := range s.Cases {
		if cc := cases[ci]; cc != nil {
			if l, ok := cc.(ToolLister); ok {
				cats, listers = append(cats, cc), append(listers, l)
			}
		}
	}
	names := c.Names()
	first := map[string]string{}
	for j := range v.Tools {
		o := &v.Tools[j]
		field := join(index("variants", vi)+".tools", o.Tool)
		exposed := ""
		var holders []*api.Tool
		for k, cat := range cats {
			e, ok := cat.Resolve(o.Tool)
			if !ok || exposed != "" && e != exposed {
				continue
			}
			tools := listers[k].OllamaTools()
			for i := range tools {
				if tools[i].Function.Name == e {
					exposed = e
					holders = append(holders, &tools[i])
				}
			}
		}
		if len(holders) == 0 {
			p.errorAt(o.Pos, field, "%s", unknownTool(c, o.Tool, names))
			continue
		}
		if prev, dup := first[exposed]; dup {
			p.errorAt(o.Pos, field, "%q and %q are the same tool, %s", prev, o.Tool, exposed)
			continue
		}
		first[exposed] = o.Tool
		o.Exposed = exposed
		for _, po := range o.Params {
			for _, t := range holders {
				if msg := paramProblem(t, po.Path); msg != "" {
					p.errorAt(po.Pos, field+".params."+po.Path, "%s", msg)
					break
				}
			}
		}
	}
}

// paramProblem says why path names no parameter of t; "" when it does.
func paramProblem(t *api.Tool, path string) string {
	props := t.Function.Parameters.Properties
	var walked []string
	for _, seg := range strings.Split(path, ".") {
		if props == nil || props.Len() == 0 {
			if len(walked) == 0 {
				return fmt.Sprintf("unknown parameter %q: %s takes no parameters", seg, t.Function.Name)
			}
			return fmt.Sprintf("%s of %s has no nested properties, so it has no %q", strings.Join(walked, "."), t.Function.Name, seg)
		}
		var known []string
		for name := range props.All() {
			known = append(known, name)
		}
		prop, ok := props.Get(seg)
		if !ok {
			of := t.Function.Name
			if len(walked) > 0 {
				of = strings.Join(walked, ".") + " of " + of
			}
			return fmt.Sprintf("unknown parameter %q of %s%s", seg, of, srcpos.DidYouMean(seg, known, "parameter"))
		}
		walked = append(walked, seg)
		props = prop.Properties
	}
	return ""
}

// CheckOverlays checks only the overlays of v against c, as Check and
// CheckVariant do, and fills their Exposed names: for showing a variant's
// catalog without running its cases. The error is an Errors.
func (s *Suite) CheckOverlays(v *Variant, c Catalog) error {
	p := &parser{file: s.Path}
	if p.file == "" {
		p.file = "<input>"
	}
	p.checkOverlays(s, v, c, p.caseCatalogs(s, c, "", true))
	if len(p.errs) > 0 {
		p.errs.Sort()
		return p.errs
	}
	return nil
}

// CheckCaseTools resolves the named tools of the cases that bring their own
// tools against c and builds their catalogs, as Check does, without checking
// the expectations: for showing a case's catalog. The error is an Errors.
func (s *Suite) CheckCaseTools(c Catalog) error {
	p := &parser{file: s.Path}
	if p.file == "" {
		p.file = "<input>"
	}
	p.caseCatalogs(s, c, "", true)
	if len(p.errs) > 0 {
		p.errs.Sort()
		return p.errs
	}
	return nil
}
