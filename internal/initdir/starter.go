package initdir

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/confusable"
	"github.com/toolgrade/toolgrade/internal/toolschema"
)

// Starter is the starter suite without an author model: servers named,
// and one example case per tool in comments, with the tool's real
// parameters (names, types, which are required). Its case list is empty, so
// the suite does not load until a case is uncommented and its question
// written; the error then says so (see internal/suite).
func Starter(tools []toolschema.Tool, serversRef string, pairs []confusable.Pair) []byte {
	var b strings.Builder
	b.WriteString(`# A starter suite written by toolgrade init. It does not run yet: below is one
# example case for each tool of ` + serversRef + `, in comments, with the tool's real
# parameters. Uncomment at least one case, write in its ask: the question a user
# would ask that needs that tool, and in its args: the arguments that question
# means (a literal must match exactly; {contains: ...}, {regex: ...} and
# {any: true} match loosely; optional ones can be left out). See docs/suite.md.
#
# Or have a local model draft the cases for you:
#   toolgrade cases generate --servers ` + serversRef + ` --model MODEL -o drafted.yaml
`)
	if len(pairs) > 0 {
		b.WriteString("#\n# Pairs of tools a model may confuse (toolgrade tools lists them): write cases\n# that tell them apart:\n")
		for _, p := range pairs {
			fmt.Fprintf(&b, "#   %s ~ %s (%.2f)\n", p.A, p.B, p.Score)
		}
	}
	fmt.Fprintf(&b, "servers: %s\ncases:\n", serversRef)
	for i, t := range tools {
		if i > 0 {
			b.WriteString("  #\n")
		}
		example(&b, t)
	}
	b.WriteString("  []\n")
	return []byte(b.String())
}

// example writes one tool's example case as comments.
func example(b *strings.Builder, t toolschema.Tool) {
	fmt.Fprintf(b, "  # - id: %s\n", strings.ReplaceAll(strings.ToLower(t.Exposed), "_", "-"))
	fmt.Fprintf(b, "  #   ask:  # a question that needs %s: %s\n", t.Exposed, clip(t.Description, 80))
	if why := (&bridge.Policy{}).Blocks(t.Info()); why != "" {
		fmt.Fprintf(b, "  #   # %s may change things: %s\n", t.Exposed, why)
	}
	fmt.Fprintf(b, "  #   expect:\n  #     tool: %s\n", t.Exposed)
	p := t.Ollama.Function.Parameters
	if p.Properties == nil || p.Properties.Len() == 0 {
		b.WriteString("  #     # (it takes no arguments)\n")
		return
	}
	required := map[string]bool{}
	for _, r := range p.Required {
		required[r] = true
	}
	b.WriteString("  #     args:\n")
	for name, prop := range p.Properties.All() {
		typ := prop.Type.String()
		need := "optional"
		if required[name] {
			need = "required"
		}
		fmt.Fprintf(b, "  #       %s: %s  # %s, %s: %s\n", name, placeholder(typ), orAny(typ), need, clip(prop.Description, 60))
	}
}

// placeholder is a value of the parameter's type to be replaced.
func placeholder(typ string) string {
	switch strings.SplitN(typ, "|", 2)[0] {
	case "integer", "number":
		return "0"
	case "boolean":
		return "false"
	case "array":
		return "[]"
	case "object":
		return "{}"
	}
	return `""`
}

func orAny(t string) string {
	if t == "" {
		return "any type"
	}
	return t
}

// clip is text on one line, cut to n runes.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) && !unicode.IsSpace(r) {
			return -1 // a server's text must not break the comment
		}
		return r
	}, s)), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	if s == "" {
		return "(no description)"
	}
	return s
}
