package suite

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/toolgrade/toolgrade/internal/srcpos"
	"go.yaml.in/yaml/v3"
)

// maxNodes bounds how many nodes a document's aliases add when expanded, so
// an alias bomb is an error rather than an exhausted machine. The nodes
// written out are not bounded: they are already in memory, and an imported
// suite of thousands of cases, each with its own tools, has millions.
const maxNodes = 1 << 18

// parser walks a suite's YAML nodes, collecting every problem it meets.
type parser struct {
	file string
	dir  string
	errs Errors
}

// pos is where n is written; a problem of the whole document is at 1:1.
func (p *parser) pos(n *yaml.Node) Pos {
	if n == nil || n.Line == 0 {
		return Pos{File: p.file, Line: 1, Col: 1}
	}
	return srcpos.Node(p.file, n)
}

func (p *parser) errorf(n *yaml.Node, field, format string, args ...any) {
	p.errs = append(p.errs, &Error{Pos: p.pos(n), Field: field, Msg: fmt.Sprintf(format, args...)})
}

func (p *parser) errorAt(pos Pos, field, format string, args ...any) {
	p.errs = append(p.errs, &Error{Pos: pos, Field: field, Msg: fmt.Sprintf(format, args...)})
}

// document parses the YAML text into its root node, or records why it
// cannot.
func (p *parser) document(data []byte) *yaml.Node {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := decode(dec, &doc); err != nil {
		if errors.Is(err, io.EOF) {
			p.errorf(nil, "", "empty suite; expected a mapping with cases: [...]")
		} else {
			p.syntaxError(err, data)
		}
		return nil
	}
	var extra yaml.Node
	if err := decode(dec, &extra); err == nil {
		p.errorf(&extra, "", "a second YAML document; a suite file holds one")
		return nil
	} else if !errors.Is(err, io.EOF) {
		p.syntaxError(err, data)
		return nil
	}
	if len(doc.Content) == 0 || isNull(doc.Content[0]) {
		p.errorf(&doc, "", "empty suite; expected a mapping with cases: [...]")
		return nil
	}
	if !p.checkSize(&doc) {
		return nil
	}
	return srcpos.Deref(doc.Content[0])
}

// decode shields the parser from a panic inside yaml.v3, so a malformed file
// can only ever produce an error.
func decode(dec *yaml.Decoder, n *yaml.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: internal error: %v", r)
		}
	}()
	return dec.Decode(n)
}

// syntaxError records a yaml.v3 error, located as well as the shared layer
// can.
func (p *parser) syntaxError(err error, data []byte) {
	p.errs = append(p.errs, srcpos.YAMLSyntax(p.file, data, err))
}

// checkSize walks the document once with aliases expanded (memoised, so the
// walk itself stays linear) and rejects documents whose aliases add more
// than maxNodes nodes and aliases that contain themselves, which the walk
// below could not finish.
func (p *parser) checkSize(doc *yaml.Node) bool {
	written := 0 // the nodes as written, each once
	var count func(n *yaml.Node)
	count = func(n *yaml.Node) {
		written++
		for _, c := range n.Content {
			count(c)
		}
	}
	count(doc)
	limit := written + maxNodes
	memo := map[*yaml.Node]int{}
	var bad *yaml.Node
	var size func(n *yaml.Node) int
	size = func(n *yaml.Node) int {
		if s, seen := memo[n]; seen {
			if s < 0 {
				if bad == nil {
					bad = n
				}
				return limit + 1
			}
			return s
		}
		memo[n] = -1 // in progress: meeting it again is a cycle
		s := 1
		if n.Kind == yaml.AliasNode && n.Alias != nil {
			if memo[n.Alias] < 0 && bad == nil {
				bad = n // report the alias, not the anchor it points back to
			}
			s += size(n.Alias)
		}
		for _, c := range n.Content {
			if s > limit {
				break
			}
			s += size(c)
		}
		s = min(s, limit+1)
		memo[n] = s
		return s
	}
	total := size(doc)
	if bad != nil {
		p.errorf(bad, "", "YAML: an alias refers to the node that contains it")
		return false
	}
	if total > limit {
		p.errorf(doc, "", "YAML: its aliases expand the document by more than %d nodes", maxNodes)
		return false
	}
	return true
}

func isNull(n *yaml.Node) bool {
	n = srcpos.Deref(n)
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func index(path string, i int) string {
	return fmt.Sprintf("%s[%d]", path, i)
}

// field is one entry of a mapping.
type field struct {
	key, val *yaml.Node
}

// fields returns a mapping's entries in order with merge keys (<<) applied,
// reporting non-string and duplicate keys.
func (p *parser) fields(n *yaml.Node, path string) []field {
	var out, merged []field
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := srcpos.Deref(n.Content[i]), srcpos.Deref(n.Content[i+1])
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			merged = append(merged, p.mergeFields(v, path)...)
			continue
		}
		if k.Kind != yaml.ScalarNode || k.ShortTag() == "!!null" {
			p.errorf(k, path, "keys must be strings, not %s", srcpos.KindName(k))
			continue
		}
		if first, dup := seen[k.Value]; dup {
			p.errorf(k, join(path, k.Value), "duplicate key (first at line %d, column %d)", first.Line, first.Column)
			continue
		}
		seen[k.Value] = k
		out = append(out, field{k, v})
	}
	// Explicit keys win over merged ones, and earlier merges over later ones.
	for _, f := range merged {
		if _, ok := seen[f.key.Value]; !ok {
			seen[f.key.Value] = f.key
			out = append(out, f)
		}
	}
	return out
}

func (p *parser) mergeFields(v *yaml.Node, path string) []field {
	switch v.Kind {
	case yaml.MappingNode:
		return p.fields(v, path)
	case yaml.SequenceNode:
		var out []field
		for _, m := range v.Content {
			if m = srcpos.Deref(m); m.Kind != yaml.MappingNode {
				p.errorf(m, path, "<< merges mappings, not %s", srcpos.KindName(m))
				continue
			}
			out = append(out, p.fields(m, path)...)
		}
		return out
	}
	p.errorf(v, path, "<< merges a mapping or a list of mappings, not %s", srcpos.KindName(v))
	return nil
}

// mapping returns n's fields, or reports that n is not a mapping.
// listOf reads the items of the sequence n (at path) with read: each item
// that is a mapping (what names one, for the error when it is not), its
// fields and its own path; the items read accepts, in order.
func listOf[T any](p *parser, n *yaml.Node, path, what string, read func(item *yaml.Node, fs []field, path string) (T, bool)) []T {
	var out []T
	for i, item := range n.Content {
		item = srcpos.Deref(item)
		ip := index(path, i)
		fs, ok := p.mapping(item, ip, what)
		if !ok {
			continue
		}
		if v, ok := read(item, fs, ip); ok {
			out = append(out, v)
		}
	}
	return out
}

func (p *parser) mapping(n *yaml.Node, path, what string) ([]field, bool) {
	if n.Kind != yaml.MappingNode {
		p.errorf(n, path, "must be %s, not %s", what, srcpos.KindName(n))
		return nil, false
	}
	return p.fields(n, path), true
}

// unknownKey reports a key that is not one of known, suggesting the nearest.
func (p *parser) unknownKey(k *yaml.Node, path string, known []string, hint string) {
	p.errorf(k, path, "%s%s", srcpos.Unknown("key", k.Value, known), hint)
}

func (p *parser) str(n *yaml.Node, path string) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		msg := "must be a string, not " + srcpos.KindName(n)
		if n.Kind == yaml.ScalarNode && n.ShortTag() != "!!null" {
			msg += " (quote it)"
		}
		p.errorf(n, path, "%s", msg)
		return "", false
	}
	return n.Value, true
}

// nonEmpty reads a string that must have some non-space content.
func (p *parser) nonEmpty(n *yaml.Node, path string) (string, bool) {
	s, ok := p.str(n, path)
	if ok && strings.TrimSpace(s) == "" {
		p.errorf(n, path, "must not be empty")
		return "", false
	}
	return s, ok
}

func (p *parser) boolean(n *yaml.Node, path string) (bool, bool) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
		p.errorf(n, path, "must be true or false, not %s", srcpos.KindName(n))
		return false, false
	}
	var b bool
	if err := n.Decode(&b); err != nil {
		p.errorf(n, path, "must be true or false, not %s", srcpos.KindName(n))
		return false, false
	}
	return b, true
}

func (p *parser) integer(n *yaml.Node, path string) (int64, bool) {
	var i int64
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" || n.Decode(&i) != nil {
		p.errorf(n, path, "must be an integer, not %s", srcpos.KindName(n))
		return 0, false
	}
	return i, true
}

func (p *parser) float(n *yaml.Node, path string) (float64, bool) {
	var f float64
	if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!int" && n.ShortTag() != "!!float") || n.Decode(&f) != nil {
		p.errorf(n, path, "must be a number, not %s", srcpos.KindName(n))
		return 0, false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		p.errorf(n, path, "must be a finite number, not %s", n.Value)
		return 0, false
	}
	return f, true
}

func (p *parser) maxRounds(n *yaml.Node, path string) (int, bool) {
	i, ok := p.integer(n, path)
	if !ok {
		return 0, false
	}
	if i < 1 || i > MaxRoundsLimit {
		p.errorf(n, path, "must be between 1 and %d, not %d", MaxRoundsLimit, i)
		return 0, false
	}
	return int(i), true
}

// strList reads a list of non-empty, distinct strings.
func (p *parser) strList(n *yaml.Node, path, what string) ([]string, bool) {
	if n.Kind != yaml.SequenceNode {
		p.errorf(n, path, "must be a list of %s, not %s", what, srcpos.KindName(n))
		return nil, false
	}
	out := make([]string, 0, len(n.Content))
	seen := map[string]*yaml.Node{}
	ok := true
	for i, c := range n.Content {
		c = srcpos.Deref(c)
		s, good := p.nonEmpty(c, index(path, i))
		if !good {
			ok = false
			continue
		}
		if first, dup := seen[s]; dup {
			p.errorf(c, index(path, i), "%q is listed twice (first at line %d, column %d)", s, first.Line, first.Column)
			ok = false
			continue
		}
		seen[s] = c
		out = append(out, s)
	}
	return out, ok
}
