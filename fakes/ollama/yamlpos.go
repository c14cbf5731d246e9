package fakeollama

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

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

// positioner returns a function giving the "name:line:col: " prefix of the
// YAML node at a path (or of its deepest existing parent).
func positioner(name string, root *yaml.Node) func(path) string {
	return func(p path) string {
		n := lookup(root, p)
		if n == nil || n.Line == 0 {
			return name + ": "
		}
		return fmt.Sprintf("%s:%d:%d: ", name, n.Line, n.Column)
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

// posError is an error at a known line and column of the YAML text.
type posError struct {
	line, col int
	msg       string
}

func (e *posError) Error() string { return fmt.Sprintf("line %d:%d: %s", e.line, e.col, e.msg) }

var (
	lineRE  = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)
	fieldRE = regexp.MustCompile(`field (\S+) (?:not found|already set)`)
)

// yamlError rewrites an error of the YAML decoder so that it starts with
// name:line:col (or name:line when the column is unknown).
func yamlError(name string, root *yaml.Node, err error) error {
	var pe *posError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s:%d:%d: %s", name, pe.line, pe.col, pe.msg)
	}
	var te *yaml.TypeError
	if errors.As(err, &te) {
		errs := make([]error, 0, len(te.Errors))
		for _, e := range te.Errors {
			errs = append(errs, errors.New(locate(name, root, e)))
		}
		return errors.Join(errs...)
	}
	return errors.New(locate(name, root, err.Error()))
}

// locate turns "yaml: line 3: problem" into "name:3:col: problem".
func locate(name string, root *yaml.Node, msg string) string {
	m := lineRE.FindStringSubmatch(msg)
	if m == nil {
		return name + ": " + strings.TrimPrefix(msg, "yaml: ")
	}
	line, _ := strconv.Atoi(m[1])
	var field string
	if f := fieldRE.FindStringSubmatch(m[2]); f != nil {
		field = f[1]
	}
	if col := columnAt(root, line, field); col > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", name, line, col, m[2])
	}
	return fmt.Sprintf("%s:%d: %s", name, line, m[2])
}

// columnAt gives the column of the node on line whose value is want, or of
// the first node on that line when want is empty or not found.
func columnAt(root *yaml.Node, line int, want string) int {
	first := 0
	var walk func(n *yaml.Node) int
	walk = func(n *yaml.Node) int {
		if n == nil {
			return 0
		}
		if n.Line == line {
			if want != "" && n.Kind == yaml.ScalarNode && n.Value == want {
				return n.Column
			}
			if first == 0 {
				first = n.Column
			}
		}
		for _, c := range n.Content {
			if col := walk(c); col > 0 {
				return col
			}
		}
		return 0
	}
	if col := walk(root); col > 0 {
		return col
	}
	return first
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
		return &posError{n.Line, n.Column, "arguments must be a mapping of names to values"}
	}
	out := make(Args, 0, len(n.Content)/2)
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		var key string
		if err := k.Decode(&key); err != nil || k.Kind != yaml.ScalarNode {
			return &posError{k.Line, k.Column, "argument names must be strings"}
		}
		if seen[key] {
			return &posError{k.Line, k.Column, fmt.Sprintf("argument %q given twice", key)}
		}
		seen[key] = true
		var val any
		if err := v.Decode(&val); err != nil {
			return &posError{v.Line, v.Column, err.Error()}
		}
		if _, err := json.Marshal(val); err != nil {
			return &posError{v.Line, v.Column, fmt.Sprintf("argument %q cannot be sent as JSON (use string keys in nested mappings)", key)}
		}
		out = append(out, Arg{Key: key, Value: val})
	}
	*a = out
	return nil
}
