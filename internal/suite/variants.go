package suite

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolgrade/toolgrade/internal/srcpos"
	"go.yaml.in/yaml/v3"
)

// BaseVariant is the name the CLI and reports give the servers' own catalog,
// which trials record as Variant "". A suite may not define a variant by
// that name.
const BaseVariant = "base"

// The keys of a variant, of one tool's overlay.
var (
	variantKeys     = []string{"name", "system", "tools", "servers", "schema_hints", "think", "options", "decoys"}
	toolOverlayKeys = []string{"description", "params"}
)

// Variant is one version of what a suite's cases are run with: the same
// cases and seeds, other tool descriptions, another system prompt or another
// servers file, so the two can be compared trial by trial.
type Variant struct {
	// Name is unique within the suite, is not "base", and has no whitespace
	// or comma (--variants lists names by commas).
	Name string
	// Pos is where the variant's entry starts.
	Pos Pos
	// System replaces defaults.system for this variant's trials (a case that
	// opens with its own system message keeps it); empty: the suite's.
	System string
	// ServersPath is the absolute path of the variant's own mcpServers file,
	// whose catalog its trials use instead of the suite's servers; empty: the
	// suite's servers.
	ServersPath string
	// Tools are the description overlays, in file order; nil when none.
	Tools []ToolOverlay
	// SchemaHints is the variant's schema_hints ("none" or "description"),
	// which replaces the suite's; empty: the suite's (see
	// Suite.SchemaHints).
	SchemaHints string
	// Think replaces defaults.think ("true", "false", "low", "medium" or
	// "high"); empty: the suite's.
	Think string
	// Options are Ollama model options merged over defaults.options (see
	// Suite.VariantOptions); nil: the suite's. They never hold seed: every
	// variant runs with the suite's seeds, so its trials pair with the
	// base's.
	Options map[string]any
	// Decoys is how many tools of the suite's decoys: pool are offered
	// beside the real ones (see package decoys); 0: none.
	Decoys int
	// Sweep is the point of the suite's sweep: grid this variant is, one
	// value per axis in the order the axes are written; nil for a variant
	// the suite names itself.
	Sweep []AxisValue
}

// ToolOverlay replaces descriptions of one tool; everything else about the
// tool (its name, its schema, its place in the list) stays as the server
// sent it.
type ToolOverlay struct {
	// Tool is the name as written: plain, server.tool or server__tool.
	Tool string
	// Pos is where the tool name is written.
	Pos Pos
	// Exposed is the name the model sees, filled by Suite.Check (or
	// CheckVariant for a variant with its own servers); empty before.
	Exposed string
	// Description replaces the tool's description; nil keeps it, "" removes
	// it.
	Description *string
	// Params replace parameters' descriptions, in file order.
	Params []ParamOverlay
}

// ParamOverlay replaces the description of one parameter.
type ParamOverlay struct {
	// Path is the parameter's name; a nested property of an object
	// parameter is named by a dotted path (filter.kind).
	Path string
	// Pos is where the path is written.
	Pos Pos
	// Description is the new description; "" removes it.
	Description string
}

// Variant returns the variant with the given name, or nil; "base" and ""
// name no defined variant.
func (s *Suite) Variant(name string) *Variant {
	for i := range s.Variants {
		if s.Variants[i].Name == name {
			return &s.Variants[i]
		}
	}
	return nil
}

// VariantNames lists the variants' names in file order.
func (s *Suite) VariantNames() []string {
	out := make([]string, len(s.Variants))
	for i, v := range s.Variants {
		out[i] = v.Name
	}
	return out
}

// VariantOptions returns the model options a trial of variant v (nil: the
// base) sends: defaults.options with the variant's own over them; the map is
// new, and nil when neither sets any.
func (s *Suite) VariantOptions(v *Variant) map[string]any {
	if len(s.Defaults.Options) == 0 && (v == nil || len(v.Options) == 0) {
		return nil
	}
	out := make(map[string]any, len(s.Defaults.Options))
	for k, x := range s.Defaults.Options {
		out[k] = x
	}
	if v != nil {
		for k, x := range v.Options {
			out[k] = x
		}
	}
	return out
}

// VariantThink returns the think value a trial of variant v (nil: the base)
// sends: the variant's own, else defaults.think; "" leaves it to Ollama.
func (s *Suite) VariantThink(v *Variant) string {
	if v != nil && v.Think != "" {
		return v.Think
	}
	return s.Defaults.Think
}

// variantOptions reads a variant's options: as defaults.options, except seed,
// which would unpair the variant's trials from the base's.
func (p *parser) variantOptions(n *yaml.Node, path string) map[string]any {
	if n.Kind == yaml.MappingNode {
		// The keys as written (p.fields would report a duplicate twice).
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := srcpos.Deref(n.Content[i]); k.Value == "seed" {
				p.errorf(k, join(path, "seed"), "a variant runs with the suite's seeds, so its trials pair with the base's; set defaults.options.seed")
			}
		}
	}
	opts := p.options(n, path)
	delete(opts, "seed")
	return opts
}

// decoyCount reads a number of decoys: a non-negative integer, which needs a
// decoys: pool when it is not 0.
func (p *parser) decoyCount(n *yaml.Node, path string, s *Suite) (int, bool) {
	i, ok := p.integer(n, path)
	if !ok {
		return 0, false
	}
	switch {
	case i < 0:
		p.errorf(n, path, "must not be negative, not %d", i)
		return 0, false
	case i > maxDecoys:
		p.errorf(n, path, "%d decoys is more than the %d a run offers at most", i, maxDecoys)
		return 0, false
	case i > 0 && len(s.Decoys) == 0:
		p.errorf(n, path, "needs a decoys: pool to draw from, such as decoys: [decoys/]")
		return 0, false
	}
	return int(i), true
}

// maxDecoys bounds a variant's number of decoys: more tools than this is no
// catalog a model is ever sent, and almost certainly a typo.
const maxDecoys = 1000

// VariantConversation is Conversation for a trial of variant v (nil: the
// base): the variant's system prompt replaces the suite's, unless the case
// brings its own.
func (s *Suite) VariantConversation(c *Case, v *Variant) []Message {
	if v == nil || v.System == "" {
		return s.Conversation(c)
	}
	if len(c.Messages) > 0 && c.Messages[0].Role == "system" {
		return append([]Message(nil), c.Messages...)
	}
	return append([]Message{{Role: "system", Content: v.System}}, c.Messages...)
}

func (p *parser) variants(n *yaml.Node, s *Suite) {
	if n.Kind != yaml.SequenceNode {
		p.errorf(n, "variants", "must be a list of variants such as [{name: terse, tools: {search: {description: ...}}}], not %s", srcpos.KindName(n))
		return
	}
	seen := map[string]*yaml.Node{}
	for i, c := range n.Content {
		c = srcpos.Deref(c)
		path := index("variants", i)
		fs, ok := p.mapping(c, path, "a mapping with name: and tools:, system: or servers:")
		if !ok {
			continue
		}
		v := Variant{Pos: p.pos(c)}
		var nameNode *yaml.Node
		// A typo of a key is reported as such, not also as a variant that
		// changes nothing.
		changes := false
		for _, f := range fs {
			k, val, fp := f.key.Value, f.val, join(path, f.key.Value)
			switch k {
			case "name":
				nameNode = val
				v.Name, _ = p.variantName(val, fp)
			case "system":
				v.System, _ = p.nonEmpty(val, fp)
				changes = true
			case "servers":
				if val.Kind != yaml.ScalarNode {
					p.errorf(val, fp, "must be the path of an mcpServers file, not %s", srcpos.KindName(val))
					continue
				}
				if sp, ok := p.nonEmpty(val, fp); ok {
					if !filepath.IsAbs(sp) {
						sp = filepath.Join(p.dir, sp)
					}
					v.ServersPath = sp
				}
				changes = true
			case "tools":
				v.Tools = p.toolOverlays(val, fp)
				changes = true
			case "schema_hints":
				v.SchemaHints, _ = p.schemaHints(val, fp)
				changes = true
			case "think":
				v.Think, _ = p.think(val, fp)
				changes = true
			case "options":
				v.Options = p.variantOptions(val, fp)
				changes = true
			case "decoys":
				v.Decoys, _ = p.decoyCount(val, fp, s)
				changes = true
			default:
				p.unknownKey(f.key, path, variantKeys, "")
				changes = true
			}
		}
		if nameNode == nil {
			p.errorf(c, path, "missing name:")
			continue
		}
		if !changes {
			p.errorf(c, path, "changes nothing: give tools:, system:, servers:, schema_hints:, think:, options: or decoys:")
		}
		if v.Name == "" {
			continue
		}
		if first, dup := seen[v.Name]; dup {
			p.errorf(nameNode, join(path, "name"), "variant %q is defined twice (first at line %d, column %d)", v.Name, first.Line, first.Column)
			continue
		}
		seen[v.Name] = nameNode
		s.Variants = append(s.Variants, v)
	}
}

func (p *parser) variantName(n *yaml.Node, path string) (string, bool) {
	name, ok := p.nonEmpty(n, path)
	if !ok {
		return "", false
	}
	switch {
	case strings.EqualFold(name, BaseVariant):
		p.errorf(n, path, "%q is the servers' own catalog; give the variant another name", name)
		return "", false
	case strings.ContainsAny(name, ", \t\r\n"):
		p.errorf(n, path, "%q: a variant's name has no spaces or commas", name)
		return "", false
	}
	return name, true
}

func (p *parser) toolOverlays(n *yaml.Node, path string) []ToolOverlay {
	fs, ok := p.mapping(n, path, "a mapping of tool names to {description: ..., params: {...}}")
	if !ok {
		return nil
	}
	var out []ToolOverlay
	for _, f := range fs {
		tp := join(path, f.key.Value)
		name, ok := p.nonEmpty(f.key, tp)
		if !ok {
			continue
		}
		o := ToolOverlay{Tool: name, Pos: p.pos(f.key)}
		ofs, ok := p.mapping(f.val, tp, "a mapping with description: or params:")
		if !ok {
			continue
		}
		typo := false
		for _, of := range ofs {
			fp := join(tp, of.key.Value)
			switch of.key.Value {
			case "description":
				if d, ok := p.str(of.val, fp); ok {
					o.Description = &d
				}
			case "params":
				o.Params = p.paramOverlays(of.val, fp)
			default:
				p.unknownKey(of.key, tp, toolOverlayKeys, "")
				typo = true
			}
		}
		if o.Description == nil && o.Params == nil && !typo {
			p.errorf(f.key, tp, "changes nothing: give description: or params:")
		}
		out = append(out, o)
	}
	return out
}

func (p *parser) paramOverlays(n *yaml.Node, path string) []ParamOverlay {
	fs, ok := p.mapping(n, path, "a mapping of parameter names (dotted for nested ones) to their new descriptions")
	if !ok {
		return nil
	}
	out := []ParamOverlay{}
	for _, f := range fs {
		fp := join(path, f.key.Value)
		name := f.key.Value
		if slices.Contains(strings.Split(name, "."), "") {
			p.errorf(f.key, fp, "%q is not a parameter path: names joined by dots, such as filter.kind", name)
			continue
		}
		d, ok := p.str(f.val, fp)
		if !ok {
			continue
		}
		out = append(out, ParamOverlay{Path: name, Pos: p.pos(f.key), Description: d})
	}
	return out
}
