package fakeollama

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolgrade/toolgrade/internal/srcpos"
	"go.yaml.in/yaml/v3"
)

// path names a place in a script, such as rules[2].user.regex: string
// elements are mapping keys, int elements are list indices.
type path []any

func (p path) String() string {
	var b strings.Builder
	for _, e := range p {
		switch e := e.(type) {
		case int:
			fmt.Fprintf(&b, "[%d]", e)
		default:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			fmt.Fprint(&b, e)
		}
	}
	return b.String()
}

// with returns p extended by elems, leaving p unchanged.
func (p path) with(elems ...any) path {
	return append(append(path(nil), p...), elems...)
}

// positioner returns a function giving the position of the YAML node at a
// path (or of its deepest existing parent).
func positioner(name string, root *yaml.Node) func(path) srcpos.Pos {
	return func(p path) srcpos.Pos {
		return srcpos.Node(name, lookup(root, p))
	}
}

// lookup finds the node at p, or the deepest node on the way to it.
func lookup(root *yaml.Node, p path) *yaml.Node {
	n := root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	best := n
	for _, e := range p {
		if n.Kind == yaml.AliasNode && n.Alias != nil {
			n = n.Alias
		}
		var next *yaml.Node
		switch k := e.(type) {
		case string:
			if n.Kind == yaml.MappingNode {
				for i := 0; i+1 < len(n.Content); i += 2 {
					if n.Content[i].Value == k {
						next = n.Content[i+1]
					}
				}
			}
		case int:
			if n.Kind == yaml.SequenceNode && k >= 0 && k < len(n.Content) {
				next = n.Content[k]
			}
		}
		if next == nil {
			return best
		}
		n, best = next, next
	}
	return best
}

// errAt is an error at n for a decoder that does not know the file's name;
// ParseScript fills it in.
func errAt(n *yaml.Node, format string, args ...any) error {
	return srcpos.Errorf(srcpos.Node("", n), "", format, args...)
}

// UnmarshalYAML decodes a YAML mapping, keeping the order of its keys.
func (a *Args) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		*a = nil
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return errAt(n, "arguments must be a mapping of names to values")
	}
	out := make(Args, 0, len(n.Content)/2)
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		var key string
		if err := k.Decode(&key); err != nil || k.Kind != yaml.ScalarNode {
			return errAt(k, "argument names must be strings")
		}
		if seen[key] {
			return errAt(k, "argument %q given twice", key)
		}
		seen[key] = true
		var val any
		if err := v.Decode(&val); err != nil {
			return errAt(v, "%s", err)
		}
		if _, err := json.Marshal(val); err != nil {
			return errAt(v, "argument %q cannot be sent as JSON (use string keys in nested mappings)", key)
		}
		out = append(out, Arg{Key: key, Value: val})
	}
	*a = out
	return nil
}
