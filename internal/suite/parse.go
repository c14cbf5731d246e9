package suite

import (
	"errors"
	"math"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/toolgrade/toolgrade/internal/gate/expr"
	"github.com/toolgrade/toolgrade/internal/srcpos"
	"go.yaml.in/yaml/v3"
)

// The keys each mapping of the format knows, in the order messages list them.
var (
	suiteKeys    = []string{"name", "servers", "models", "defaults", "decoys", "decoy_seed", "variants", "sweep", "gates", "margin", "cases"}
	defaultsKeys = []string{"system", "max_rounds", "think", "keep_alive", "normalize_strings", "strict_args", "execute", "allow_tools", "deny_tools", "options", "schema_hints", "judge", "setup", "check", "user_model"}
	caseKeys     = []string{"id", "ask", "tags", "tools", "expect", "max_rounds", "execute", "review", "turns", "setup", "check", "user"}
	messageKeys  = []string{"role", "content"}
	expectKeys   = []string{"tool", "args", "calls", "any_order", "no_tool", "answer", "strict_args", "max_rounds", "any_tool", "call_may_fail"}
	callKeys     = []string{"tool", "args"}
	matcherKeys  = []string{"equals", "contains", "regex", "one_of", "number", "tolerance", "any", "absent"}
	bfclKeys     = []string{"bfcl", "type", "items", "lang", "required"}
	answerKeys   = []string{"contains", "regex", "one_of", "judge"}
	judgeKeys    = []string{"model", "options", "repeat"}
	thinkValues  = []string{"true", "false", "low", "medium", "high"}
)

// Ollama's model options (api.Options and api.Runner of v0.17.4) with the
// type each takes, so a wrong type fails here rather than as an HTTP 400
// mid-run. Other names pass through unchecked unless they look like a typo of
// one of these: Ollama ignores unknown options silently.
var (
	intOptions   = []string{"num_keep", "seed", "num_predict", "top_k", "repeat_last_n", "num_ctx", "num_batch", "num_gpu", "main_gpu", "num_thread"}
	floatOptions = []string{"top_p", "min_p", "typical_p", "temperature", "repeat_penalty", "presence_penalty", "frequency_penalty"}
	boolOptions  = []string{"use_mmap"}
	listOptions  = []string{"stop"}
)

// suite reads the top-level mapping.
func (p *parser) suite(n *yaml.Node, s *Suite) {
	fs, ok := p.mapping(n, "", "a mapping with cases: [...]")
	if !ok {
		return
	}
	var defaults, variants, sweep, cases *yaml.Node
	for _, f := range fs {
		k, v := f.key.Value, f.val
		switch k {
		case "name":
			s.Name, _ = p.nonEmpty(v, k)
		case "servers":
			p.servers(v, s)
		case "models":
			if v.Kind == yaml.SequenceNode && len(v.Content) == 0 {
				p.errorf(v, k, "must list at least one model (or leave models out)")
				continue
			}
			s.Models, _ = p.strList(v, k, "model names")
			s.ModelPos = map[string]Pos{}
			for _, c := range v.Content {
				s.ModelPos[srcpos.Deref(c).Value] = p.pos(srcpos.Deref(c))
			}
		case "defaults":
			defaults = v
		case "gates":
			s.Gates = p.gates(v, k)
		case "margin":
			s.Margin = p.margin(v, k)
		case "variants":
			variants = v
		case "decoys":
			s.Decoys = p.decoyPool(v, k)
		case "decoy_seed":
			if i, ok := p.integer(v, k); ok {
				s.DecoySeed = &i
			}
		case "sweep":
			sweep = v
		case "cases":
			cases = v
		default:
			p.unknownKey(f.key, "", suiteKeys, "")
		}
	}
	if defaults != nil {
		p.defaults(defaults, &s.Defaults)
	}
	if variants != nil {
		p.variants(variants, s)
	}
	if sweep != nil {
		p.sweep(sweep, s)
	}
	if cases == nil {
		p.errorf(n, "cases", "missing; a suite needs cases: [{id: ..., ask: ..., expect: ...}]")
		return
	}
	p.cases(cases, s)
}

// gates reads the CI gates: a list of expressions such as pass>=0.9, each
// parsed here so a typo fails at load, at its column.
func (p *parser) gates(n *yaml.Node, field string) []expr.Gate {
	if n.Kind != yaml.SequenceNode {
		p.errorf(n, field, "must be a list of gates such as ['pass>=0.9', 'p95<=2s'], not %s", srcpos.KindName(n))
		return nil
	}
	var out []expr.Gate
	for i, c := range n.Content {
		c = srcpos.Deref(c)
		ip := index(field, i)
		text, ok := p.nonEmpty(c, ip)
		if !ok {
			continue
		}
		g, err := expr.ParseOne(text)
		var se *expr.SyntaxError
		if errors.As(err, &se) {
			p.errorAt(p.scalarPos(c, se.Offset), ip, "%s", se.Msg)
			continue
		}
		if g.NonInferior() {
			p.errorf(c, ip, "noninferior judges two sides, and a run is one: give it to `toolgrade compare --gate`; margin: sets compare's margin")
			continue
		}
		out = append(out, g)
	}
	return out
}

// margin reads margin:, the non-inferiority margin compare judges this
// suite's runs at unless --margin says otherwise: 5pts, 5% or 0.05.
func (p *parser) margin(n *yaml.Node, field string) float64 {
	if n.Kind != yaml.ScalarNode || !slices.Contains([]string{"!!str", "!!float", "!!int"}, n.ShortTag()) {
		p.errorf(n, field, "must be a margin such as 5pts, 5%% or 0.05, not %s", srcpos.KindName(n))
		return 0
	}
	text := n.Value
	m, err := expr.ParseMargin(text)
	if err != nil {
		p.errorf(n, field, "%q: %s", text, err)
		return 0
	}
	return m
}

// scalarPos is the position of byte off of a string scalar's value, when
// the value is written as it reads (plain, or single-quoted with no quote
// doubled inside) on one line; else the scalar's own position.
func (p *parser) scalarPos(n *yaml.Node, off int) Pos {
	pos := p.pos(n)
	v := n.Value
	// A space may stand for a folded line break, and escapes change
	// lengths: then the scalar's start is the best place known.
	if n.Line == 0 || off > len(v) || strings.ContainsAny(v, " \t\n") {
		return pos
	}
	switch {
	case n.Style == 0:
	case n.Style == yaml.SingleQuotedStyle && !strings.Contains(v, "'"):
		pos.Col++ // the opening quote
	default:
		return pos
	}
	pos.Col += utf8.RuneCountInString(v[:off])
	return pos
}

func (p *parser) servers(v *yaml.Node, s *Suite) {
	switch v.Kind {
	case yaml.ScalarNode:
		path, ok := p.nonEmpty(v, "servers")
		if !ok {
			return
		}
		if !filepath.IsAbs(path) {
			path = filepath.Join(p.dir, path)
		}
		s.ServersPath = path
	case yaml.MappingNode:
		// The servers package parses it, with these same line numbers.
		s.ServersNode = v
	default:
		p.errorf(v, "servers", "must be the path of an mcpServers file or an inline {mcpServers: {...}}, not %s", srcpos.KindName(v))
	}
}

func (p *parser) defaults(n *yaml.Node, d *Defaults) {
	fs, ok := p.mapping(n, "defaults", "a mapping")
	if !ok {
		return
	}
	for _, f := range fs {
		path, v := join("defaults", f.key.Value), f.val
		switch f.key.Value {
		case "system":
			d.System, _ = p.str(v, path)
		case "max_rounds":
			d.MaxRounds, _ = p.maxRounds(v, path)
		case "think":
			d.Think, _ = p.think(v, path)
		case "keep_alive":
			d.KeepAlive = p.keepAlive(v, path)
		case "normalize_strings":
			d.NormalizeStrings, _ = p.boolean(v, path)
		case "strict_args":
			d.StrictArgs, _ = p.boolean(v, path)
		case "execute":
			if b, ok := p.boolean(v, path); ok {
				d.Execute = &b
			}
		case "allow_tools":
			d.AllowTools = p.toolPatterns(v, path)
		case "deny_tools":
			d.DenyTools = p.toolPatterns(v, path)
		case "options":
			d.Options = p.options(v, path)
		case "schema_hints":
			d.SchemaHints, _ = p.schemaHints(v, path)
		case "judge":
			p.judgeDefaults(v, path, &d.Judge)
		case "setup":
			d.Setup = p.stateCalls(v, path, false)
		case "check":
			d.Checks = p.stateCalls(v, path, true)
		case "user_model":
			d.UserModel, _ = p.nonEmpty(v, path)
		default:
			p.unknownKey(f.key, "defaults", defaultsKeys, "")
		}
	}
}

// toolPatterns reads allow_tools or deny_tools: a list of globs in
// path.Match syntax, each checked to be well formed so a typo fails at load
// rather than silently matching nothing.
func (p *parser) toolPatterns(n *yaml.Node, field string) []ToolPattern {
	if n.Kind != yaml.SequenceNode {
		p.errorf(n, field, "must be a list of tool name patterns such as [write_file, \"fs.*\"], not %s", srcpos.KindName(n))
		return nil
	}
	out := []ToolPattern{}
	for i, c := range n.Content {
		c = srcpos.Deref(c)
		ip := index(field, i)
		g, ok := p.nonEmpty(c, ip)
		if !ok {
			continue
		}
		// path.Match checks the rest of a pattern even after a mismatch, so
		// matching the empty name reports any syntax error in it.
		if _, err := path.Match(g, ""); err != nil {
			p.errorf(c, ip, "bad pattern %q: %v (patterns use * ? [a-z] and \\ to escape)", g, err)
			continue
		}
		out = append(out, ToolPattern{Glob: g, Pos: p.pos(c)})
	}
	return out
}

func (p *parser) think(n *yaml.Node, path string) (string, bool) {
	if n.Kind == yaml.ScalarNode && (n.ShortTag() == "!!bool" || n.ShortTag() == "!!str") {
		v := n.Value
		if n.ShortTag() == "!!bool" {
			var b bool
			if n.Decode(&b) == nil {
				v = strconv.FormatBool(b)
			}
		}
		if slices.Contains(thinkValues, v) {
			return v, true
		}
	}
	p.errorf(n, path, "must be true, false, low, medium or high, not %s", srcpos.KindName(n))
	return "", false
}

// schemaHints reads schema_hints: none or description.
func (p *parser) schemaHints(n *yaml.Node, path string) (string, bool) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" && (n.Value == HintsNone || n.Value == HintsDescription) {
		return n.Value, true
	}
	if n.Kind == yaml.ScalarNode {
		p.errorf(n, path, "must be none or description, not %q", n.Value)
	} else {
		p.errorf(n, path, "must be none or description, not %s", srcpos.KindName(n))
	}
	return "", false
}

func (p *parser) keepAlive(n *yaml.Node, path string) *time.Duration {
	if n.Kind == yaml.ScalarNode {
		switch n.ShortTag() {
		case "!!str":
			d, err := time.ParseDuration(n.Value)
			if err != nil {
				p.errorf(n, path, "must be a duration such as 10m or 1h30m, or a number of seconds (negative: keep the model loaded), not %q", n.Value)
				return nil
			}
			return &d
		case "!!int", "!!float":
			f, ok := p.float(n, path)
			if !ok {
				return nil
			}
			secs := f * float64(time.Second)
			if secs > math.MaxInt64 || secs < math.MinInt64 {
				p.errorf(n, path, "%s seconds is out of range", n.Value)
				return nil
			}
			d := time.Duration(secs)
			return &d
		}
	}
	p.errorf(n, path, "must be a duration such as 10m, or a number of seconds, not %s", srcpos.KindName(n))
	return nil
}

// options reads Ollama's model options, checking the types of the ones it
// knows and catching likely typos of them.
func (p *parser) options(n *yaml.Node, path string) map[string]any {
	fs, ok := p.mapping(n, path, "a mapping of Ollama options")
	if !ok {
		return nil
	}
	out := map[string]any{}
	for _, f := range fs {
		k, fp := f.key.Value, join(path, f.key.Value)
		if !isOption(k) {
			if s := closest(k, knownOptions()); s != "" {
				p.errorf(f.key, fp, "unknown Ollama option %q (did you mean %q?)", k, s)
				continue
			}
		}
		if val, ok := p.optionValue(k, f.val, fp); ok {
			out[k] = val
		}
	}
	return out
}

// knownOptions are the names of Ollama's model options, in the order of
// their lists.
func knownOptions() []string {
	return slices.Concat(intOptions, floatOptions, boolOptions, listOptions)
}

func isOption(name string) bool { return slices.Contains(knownOptions(), name) }

// optionValue reads the value of option k, checked for its type when it is
// one of Ollama's; another name takes any literal.
func (p *parser) optionValue(k string, v *yaml.Node, fp string) (any, bool) {
	switch {
	case slices.Contains(intOptions, k):
		i, ok := p.integer(v, fp)
		if !ok {
			return nil, false
		}
		if k == "num_ctx" && i < 1 {
			p.errorf(v, fp, "must be at least 1, not %d", i)
			return nil, false
		}
		return i, true
	case slices.Contains(floatOptions, k):
		x, ok := p.float(v, fp)
		if !ok {
			return nil, false
		}
		if x < 0 {
			p.errorf(v, fp, "must not be negative")
			return nil, false
		}
		return x, true
	case slices.Contains(boolOptions, k):
		b, ok := p.boolean(v, fp)
		return b, ok
	case slices.Contains(listOptions, k):
		l, ok := p.stopList(v, fp)
		return l, ok
	}
	return p.literal(v, fp, false)
}

// stopList reads stop sequences: distinct non-empty strings, which may well
// be nothing but whitespace ("\n").
func (p *parser) stopList(n *yaml.Node, path string) ([]any, bool) {
	if n.Kind != yaml.SequenceNode {
		p.errorf(n, path, "must be a list of strings, not %s", srcpos.KindName(n))
		return nil, false
	}
	var out []any
	ok := true
	for i, c := range n.Content {
		s, good := p.nonEmptyRaw(srcpos.Deref(c), index(path, i))
		if good && slices.Contains(out, any(s)) {
			p.errorf(c, index(path, i), "%q is listed twice", s)
			good = false
		}
		ok = ok && good
		out = append(out, s)
	}
	return out, ok
}
