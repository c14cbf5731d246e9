package suite

import (
	"slices"

	"github.com/toolgrade/toolgrade/internal/srcpos"
	"go.yaml.in/yaml/v3"
)

// bfclMatcher reads {bfcl: [accepted, ...], type: T, items: T, lang: L,
// required: true}: BFCL's possible answer for one parameter (see BFCLSpec).
func (p *parser) bfclMatcher(fs []field, m ArgMatcher, path string) (ArgMatcher, bool) {
	before := len(p.errs)
	m.Kind = MatchBFCL
	spec := &BFCLSpec{}
	var typeNode, itemsNode *yaml.Node
	for _, f := range fs {
		fp := join(path, f.key.Value)
		switch f.key.Value {
		case "bfcl":
			v := srcpos.Deref(f.val)
			if v.Kind != yaml.SequenceNode {
				p.errorf(v, fp, "must be the list of accepted values (\"\" among them: may be left out), not %s", srcpos.KindName(v))
				continue
			}
			if len(v.Content) == 0 {
				p.errorf(v, fp, "must list at least one accepted value")
				continue
			}
			for i, c := range v.Content {
				if lit, ok := p.literal(srcpos.Deref(c), index(fp, i), false); ok {
					spec.Accepted = append(spec.Accepted, lit)
				}
			}
		case "type":
			typeNode = f.val
			spec.Type, _ = p.nonEmpty(f.val, fp)
		case "items":
			itemsNode = f.val
			spec.Items, _ = p.nonEmpty(f.val, fp)
		case "lang":
			if l, ok := p.str(f.val, fp); ok {
				langs := []string{BFCLPython, BFCLJava, BFCLJavaScript}
				if !slices.Contains(langs, l) {
					p.errorf(f.val, fp, "must be one of python, java, javascript, not %q", l)
				}
				spec.Lang = l
			}
		case "required":
			spec.Required, _ = p.boolean(f.val, fp)
		default:
			p.unknownKey(f.key, path, bfclKeys, "")
		}
	}
	if typeNode != nil && spec.Type != "" && !BFCLTypeKnown(spec.Lang, spec.Type) {
		p.errorf(typeNode, join(path, "type"), "unknown BFCL type %q for %s", spec.Type, langName(spec.Lang))
	}
	if itemsNode != nil && spec.Items != "" && !BFCLTypeKnown(BFCLPython, spec.Items) {
		p.errorf(itemsNode, join(path, "items"), "unknown BFCL element type %q", spec.Items)
	}
	m.BFCL = spec
	return m, len(p.errs) == before
}

func langName(l string) string {
	if l == "" {
		return BFCLPython
	}
	return l
}
