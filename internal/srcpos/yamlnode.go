package srcpos

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// Deref follows YAML aliases to the node they stand for (JSON has none); a
// node that is no alias, or an alias without its anchor, is itself.
func Deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// KindName describes a node for "must be ..., not X" messages, in the same
// words for every file toolgrade reads: "a mapping", "a list",
// `the string "x"`, "the number 5", true, "null".
func KindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!str":
			return fmt.Sprintf("the string %q", n.Value)
		case "!!int", "!!float":
			return "the number " + n.Value
		case "!!bool":
			return n.Value
		case "!!null":
			return "null"
		}
		return fmt.Sprintf("%s %q", n.ShortTag(), n.Value)
	}
	return "nothing"
}
