package suite

import (
	"math"
	"regexp"
	"regexp/syntax"
	"slices"

	"github.com/toolgrade/toolgrade/internal/srcpos"
	"go.yaml.in/yaml/v3"
)

// args reads the expected arguments of one call.
func (p *parser) args(n *yaml.Node, path string) ArgMatchers {
	fs, ok := p.mapping(n, path, "a mapping of argument names to expected values")
	if !ok {
		return nil
	}
	out := ArgMatchers{}
	for _, f := range fs {
		key := f.key.Value
		if key == "" {
			p.errorf(f.key, path, "argument names must not be empty")
			continue
		}
		if m, ok := p.argMatcher(f.val, join(path, key)); ok {
			m.Key, m.KeyPos = key, p.pos(f.key)
			out = append(out, m)
		}
	}
	return out
}

// argMatcher reads an expected value: a matcher object when the mapping has a
// matcher key, an error when its one key is a typo of one, otherwise a
// literal.
func (p *parser) argMatcher(n *yaml.Node, path string) (ArgMatcher, bool) {
	m := ArgMatcher{Pos: p.pos(n), Kind: MatchEquals}
	if n.Kind != yaml.MappingNode {
		v, ok := p.literal(n, path, true)
		m.Value = v
		return m, ok
	}
	fs := p.fields(n, path)
	if hasKeyIn(fs, []string{"bfcl"}) {
		return p.bfclMatcher(fs, m, path)
	}
	if len(fs) == 1 && !IsMatcherKey(fs[0].key.Value) {
		// A one-key object is a matcher misspelled or misremembered far
		// more often than a literal: a literal one says so with equals.
		k := fs[0].key.Value
		if IsMatcherTypo(k) {
			p.errorf(fs[0].key, path, "unknown matcher %q (did you mean %q?); to expect the object {%s: ...} itself, write {equals: {%[1]s: ...}}", k, closest(k, matcherKeys), k)
		} else {
			lit := quietFlow(p, n, path)
			p.errorf(fs[0].key, path, "%s is not a matcher: the matchers are %s; write {equals: %[1]s} for a literal object", lit, matcherList)
		}
		return m, false
	}
	if !hasKeyIn(fs, matcherKeys) {
		v, ok := p.literalFields(fs, path, true)
		m.Value = v
		return m, ok
	}
	before := len(p.errs)
	var kinds []field
	var tolerance *field
	for i, f := range fs {
		switch {
		case f.key.Value == "tolerance":
			tolerance = &fs[i]
		case slices.Contains(matcherKeys, f.key.Value):
			kinds = append(kinds, f)
		default:
			p.unknownKey(f.key, path, matcherKeys, "; a literal object with a matcher key must be written {equals: {...}}")
		}
	}
	if len(kinds) == 0 {
		p.errorf(tolerance.key, join(path, "tolerance"), "tolerance needs number: {number: x, tolerance: t}")
		return m, false
	}
	if len(kinds) > 1 {
		p.errorf(kinds[1].key, path, "a matcher takes exactly one of equals, contains, regex, one_of, number, any, absent; this one has %s and %s", kinds[0].key.Value, kinds[1].key.Value)
		return m, false
	}
	k, v, fp := kinds[0].key.Value, kinds[0].val, join(path, kinds[0].key.Value)
	if tolerance != nil && k != "number" {
		p.errorf(tolerance.key, join(path, "tolerance"), "tolerance goes with number only")
	}
	m.Kind = MatcherKind(k)
	switch m.Kind {
	case MatchEquals:
		m.Value, _ = p.literal(v, fp, false)
	case MatchContains:
		m.Substring, _ = p.nonEmptyRaw(v, fp)
	case MatchRegex:
		m.Regex = p.regex(v, fp)
	case MatchOneOf:
		if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
			p.errorf(v, fp, "must be a non-empty list of values, not %s", srcpos.KindName(v))
			break
		}
		for i, c := range v.Content {
			if lit, ok := p.literal(srcpos.Deref(c), index(fp, i), false); ok {
				m.OneOf = append(m.OneOf, lit)
			}
		}
	case MatchNumber:
		m.Number, _ = p.float(v, fp)
		if tolerance != nil {
			if t, ok := p.float(tolerance.val, join(path, "tolerance")); ok {
				if t < 0 {
					p.errorf(tolerance.val, join(path, "tolerance"), "must not be negative")
				}
				m.Tolerance = t
			}
		}
	case MatchAny, MatchAbsent:
		p.presence(m.Kind, v, fp)
	}
	return m, len(p.errs) == before
}

// presence reads the value of {any: true} or {absent: true}, which must be
// true.
func (p *parser) presence(kind MatcherKind, v *yaml.Node, fp string) {
	if b, ok := p.boolean(v, fp); ok && !b {
		if kind == MatchAny {
			p.errorf(v, fp, "any: false expects nothing; for a key that must not be there write {absent: true}, or leave the key out to let it be free")
		} else {
			p.errorf(v, fp, "absent: false expects nothing; write {any: true} for a key that must be there, or leave the key out")
		}
	}
}

// nonEmptyRaw reads a non-empty string, spaces allowed (a contains text may
// be one).
func (p *parser) nonEmptyRaw(n *yaml.Node, path string) (string, bool) {
	s, ok := p.str(n, path)
	if ok && s == "" {
		p.errorf(n, path, "must not be empty")
		return "", false
	}
	return s, ok
}

func (p *parser) regex(n *yaml.Node, path string) *regexp.Regexp {
	s, ok := p.nonEmptyRaw(n, path)
	if !ok {
		return nil
	}
	re, err := regexp.Compile(s)
	if err != nil {
		msg := err.Error()
		if se, ok := err.(*syntax.Error); ok {
			msg = se.Code.String() + ": " + se.Expr
		}
		p.errorf(n, path, "bad regex: %s", msg)
		return nil
	}
	return re
}

// IsMatcherKey reports whether key is one of the matcher keys (equals,
// contains, regex, ...), which make a mapping read as a matcher rather than a
// literal; writers of suites (toolgrade cases from) wrap a literal object
// holding one in {equals: ...}.
func IsMatcherKey(key string) bool { return slices.Contains(matcherKeys, key) }

// matcherList names the matchers as the error for a one-key object that is
// none says them.
const matcherList = "equals, contains, regex, one_of, number (with tolerance), any and absent"

// quietFlow is the node n as a literal in flow style, for a message; a
// node that is no literal is shown as {...}.
func quietFlow(p *parser, n *yaml.Node, path string) string {
	q := &parser{file: p.file}
	v, ok := q.literal(n, path, false)
	if !ok {
		return "{...}"
	}
	return Flow(v)
}

// IsMatcherTypo reports whether key is not a matcher key but near one
// (regexp for regex, contain for contains): an expected value that is an
// object with that one key is an error, since it is far likelier a mistyped
// matcher than a literal object; writers of suites wrap such an object in
// {equals: ...}.
func IsMatcherTypo(key string) bool {
	return !IsMatcherKey(key) && closest(key, matcherKeys) != ""
}

func hasKeyIn(fs []field, keys []string) bool {
	for _, f := range fs {
		if slices.Contains(keys, f.key.Value) {
			return true
		}
	}
	return false
}

// literal converts a node to a JSON-shaped value. With ambiguous set, a
// nested mapping with a matcher key is rejected: it looks like a matcher,
// and matchers only apply to whole arguments.
func (p *parser) literal(n *yaml.Node, path string, ambiguous bool) (any, bool) {
	n = srcpos.Deref(n)
	switch n.Kind {
	case yaml.ScalarNode:
		return p.scalar(n, path)
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		ok := true
		for i, c := range n.Content {
			v, good := p.literal(c, index(path, i), ambiguous)
			ok = ok && good
			out = append(out, v)
		}
		return out, ok
	case yaml.MappingNode:
		fs := p.fields(n, path)
		if ambiguous && hasKeyIn(fs, matcherKeys) {
			for _, f := range fs {
				if slices.Contains(matcherKeys, f.key.Value) {
					p.errorf(f.key, join(path, f.key.Value), "%q inside a literal object: matchers apply to whole arguments only; if the object is meant literally, write the whole argument as {equals: ...}", f.key.Value)
					return nil, false
				}
			}
		}
		return p.literalFields(fs, path, ambiguous)
	}
	p.errorf(n, path, "must be a value, not %s", srcpos.KindName(n))
	return nil, false
}

func (p *parser) literalFields(fs []field, path string, ambiguous bool) (any, bool) {
	out := make(map[string]any, len(fs))
	ok := true
	for _, f := range fs {
		v, good := p.literal(f.val, join(path, f.key.Value), ambiguous)
		ok = ok && good
		out[f.key.Value] = v
	}
	return out, ok
}

// scalar converts a scalar to its JSON value: integers to int64, other
// numbers to float64; dates stay the strings they are written as, since JSON
// has no dates.
func (p *parser) scalar(n *yaml.Node, path string) (any, bool) {
	switch n.ShortTag() {
	case "!!null":
		return nil, true
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err == nil {
			return b, true
		}
	case "!!int":
		var i int64
		if err := n.Decode(&i); err == nil {
			return i, true
		}
		p.errorf(n, path, "integer %s does not fit in 64 bits", n.Value)
		return nil, false
	case "!!float":
		var f float64
		if err := n.Decode(&f); err == nil {
			if math.IsNaN(f) || math.IsInf(f, 0) {
				p.errorf(n, path, "%s is not a JSON number", n.Value)
				return nil, false
			}
			return f, true
		}
	case "!!str", "!!timestamp":
		return n.Value, true
	}
	p.errorf(n, path, "unsupported value %s; use a string, number, boolean, null, list or mapping", srcpos.KindName(n))
	return nil, false
}

// answer reads a case's answer: a matcher (one of contains, regex,
// one_of), a judge's rubric, or both.
func (p *parser) answer(n *yaml.Node, path string) (*TextMatcher, *Rubric) {
	fs, ok := p.mapping(n, path, "a matcher {contains: ...}, {regex: ...}, {one_of: [...]} or a rubric {judge: ...}")
	if !ok {
		return nil, nil
	}
	var kinds []field
	var rubric *Rubric
	unknown := false
	for _, f := range fs {
		switch {
		case f.key.Value == "judge":
			if text, ok := p.nonEmptyRaw(f.val, join(path, "judge")); ok {
				rubric = &Rubric{Text: text, Pos: p.pos(f.val)}
			}
		case slices.Contains(answerKeys, f.key.Value):
			kinds = append(kinds, f)
		default:
			p.unknownKey(f.key, path, answerKeys, "")
			unknown = true
		}
	}
	switch len(kinds) {
	case 0:
		if !unknown && rubric == nil && !hasKeyIn(fs, []string{"judge"}) {
			p.errorf(n, path, "needs one of contains, regex, one_of, or a rubric for a judge model: {judge: \"...\"}")
		}
		return nil, rubric
	case 1:
	default:
		p.errorf(kinds[1].key, path, "an answer matcher takes exactly one of contains, regex, one_of; this one has %s and %s", kinds[0].key.Value, kinds[1].key.Value)
		return nil, rubric
	}
	return p.textMatcher(kinds[0], join(path, kinds[0].key.Value), p.pos(n)), rubric
}

// textMatcher reads an answer matcher's one field, at fp; pos is where
// the matcher is written.
func (p *parser) textMatcher(kind field, fp string, pos Pos) *TextMatcher {
	m := &TextMatcher{Pos: pos}
	k, v := kind.key.Value, kind.val
	m.Kind = MatcherKind(k)
	var good bool
	switch m.Kind {
	case MatchContains:
		m.Substring, good = p.nonEmptyRaw(v, fp)
	case MatchRegex:
		m.Regex = p.regex(v, fp)
		good = m.Regex != nil
	case MatchOneOf:
		if v.Kind == yaml.SequenceNode && len(v.Content) == 0 {
			p.errorf(v, fp, "must list at least one answer")
			return nil
		}
		m.OneOf, good = p.strList(v, fp, "answers")
	}
	if !good {
		return nil
	}
	return m
}
