package suite

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// The keys each mapping of the format knows, in the order messages list them.
var (
	suiteKeys    = []string{"name", "servers", "models", "defaults", "cases"}
	defaultsKeys = []string{"system", "max_rounds", "think", "keep_alive", "normalize_strings", "strict_args", "options"}
	caseKeys     = []string{"id", "ask", "tags", "expect", "max_rounds"}
	messageKeys  = []string{"role", "content"}
	expectKeys   = []string{"tool", "args", "calls", "any_order", "no_tool", "answer", "strict_args", "max_rounds"}
	callKeys     = []string{"tool", "args"}
	matcherKeys  = []string{"equals", "contains", "regex", "one_of", "number", "tolerance", "any", "absent"}
	answerKeys   = []string{"contains", "regex", "one_of"}
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

// maxNodes bounds a document's size with its aliases expanded, so an alias
// bomb is an error rather than an exhausted machine.
const maxNodes = 1 << 18

// parser walks a suite's YAML nodes, collecting every problem it meets.
type parser struct {
	file string
	dir  string
	errs Errors
}

func (p *parser) pos(n *yaml.Node) Pos {
	if n == nil || n.Line == 0 {
		return Pos{File: p.file, Line: 1, Col: 1}
	}
	return Pos{File: p.file, Line: n.Line, Col: n.Column}
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
	return deref(doc.Content[0])
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

var yamlLineRE = regexp.MustCompile(`(?s)^yaml: line (\d+): (.*)$`)

// yamlParserErrors are the messages of yaml.v3's parser (as opposed to its
// scanner): it reports their line counting from 0, and the start of the
// enclosing construct rather than the problem when that is not on the first
// line.
var yamlParserErrors = []string{
	"did not find expected <stream-start>", "did not find expected <document start>",
	"did not find expected node content", "did not find expected key",
	"did not find expected '-' indicator", "did not find expected ',' or ']'",
	"did not find expected ',' or '}'", "found duplicate %YAML directive",
	"found duplicate %TAG directive", "found incompatible YAML document",
	"found undefined tag handle",
}

// syntaxError records a yaml.v3 error. yaml.v3 gives a line at best, so the
// column is 1 unless the problem can be located here (bad characters, unknown
// anchors).
func (p *parser) syntaxError(err error, data []byte) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 1
	if m := yamlLineRE.FindStringSubmatch(err.Error()); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
		if slices.Contains(yamlParserErrors, msg) {
			line++
		}
		line = max(line, 1)
	} else if l, c, ok := badChar(data); ok {
		p.errorAt(Pos{File: p.file, Line: l, Col: c}, "", "YAML: %s", msg)
		return
	} else if a, ok := strings.CutPrefix(msg, "unknown anchor '"); ok {
		name := strings.TrimSuffix(a, "' referenced")
		if i := bytes.Index(data, []byte("*"+name)); i >= 0 {
			l, c := lineCol(data, i)
			p.errorAt(Pos{File: p.file, Line: l, Col: c}, "", "YAML: %s", msg)
			return
		}
	}
	p.errorAt(Pos{File: p.file, Line: line, Col: 1}, "", "YAML: %s", msg)
}

// badChar finds the first byte YAML rejects: invalid UTF-8 or a control
// character other than tab and line breaks.
func badChar(data []byte) (line, col int, ok bool) {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		bad := r == utf8.RuneError && size <= 1
		if !bad && r != '\t' && r != '\n' && r != '\r' && r != 0x85 && r != 0xFEFF {
			bad = unicode.IsControl(r) || (r >= 0xD800 && r <= 0xDFFF) || r == 0xFFFE || r == 0xFFFF
		}
		if bad {
			l, c := lineCol(data, i)
			return l, c, true
		}
		i += size
	}
	return 0, 0, false
}

// lineCol converts a byte offset to a 1-based line and a column counted in
// characters, as yaml.v3 counts them.
func lineCol(data []byte, off int) (line, col int) {
	line = 1 + bytes.Count(data[:off], []byte("\n"))
	start := bytes.LastIndexByte(data[:off], '\n') + 1
	return line, 1 + utf8.RuneCount(data[start:off])
}

// checkSize walks the document once with aliases expanded (memoised, so the
// walk itself stays linear) and rejects documents too large expanded and
// aliases that contain themselves, which the walk below could not finish.
func (p *parser) checkSize(doc *yaml.Node) bool {
	memo := map[*yaml.Node]int{}
	var bad *yaml.Node
	var size func(n *yaml.Node) int
	size = func(n *yaml.Node) int {
		if s, seen := memo[n]; seen {
			if s < 0 {
				if bad == nil {
					bad = n
				}
				return maxNodes + 1
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
			if s > maxNodes {
				break
			}
			s += size(c)
		}
		s = min(s, maxNodes+1)
		memo[n] = s
		return s
	}
	total := size(doc)
	if bad != nil {
		p.errorf(bad, "", "YAML: an alias refers to the node that contains it")
		return false
	}
	if total > maxNodes {
		p.errorf(doc, "", "YAML: the document expands to more than %d nodes through its aliases", maxNodes)
		return false
	}
	return true
}

// deref follows aliases to the node they stand for.
func deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	n = deref(n)
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// kindName describes a node for "must be ..., not X" messages.
func kindName(n *yaml.Node) string {
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
		k, v := deref(n.Content[i]), deref(n.Content[i+1])
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			merged = append(merged, p.mergeFields(v, path)...)
			continue
		}
		if k.Kind != yaml.ScalarNode || k.ShortTag() == "!!null" {
			p.errorf(k, path, "keys must be strings, not %s", kindName(k))
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
			if m = deref(m); m.Kind != yaml.MappingNode {
				p.errorf(m, path, "<< merges mappings, not %s", kindName(m))
				continue
			}
			out = append(out, p.fields(m, path)...)
		}
		return out
	}
	p.errorf(v, path, "<< merges a mapping or a list of mappings, not %s", kindName(v))
	return nil
}

// mapping returns n's fields, or reports that n is not a mapping.
func (p *parser) mapping(n *yaml.Node, path, what string) ([]field, bool) {
	if n.Kind != yaml.MappingNode {
		p.errorf(n, path, "must be %s, not %s", what, kindName(n))
		return nil, false
	}
	return p.fields(n, path), true
}

// unknownKey reports a key that is not one of known, suggesting the nearest.
func (p *parser) unknownKey(k *yaml.Node, path string, known []string, hint string) {
	msg := fmt.Sprintf("unknown key %q", k.Value)
	if s := closest(k.Value, known); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	} else {
		msg += " (known keys: " + strings.Join(known, ", ") + ")"
	}
	p.errorf(k, path, "%s%s", msg, hint)
}

func (p *parser) str(n *yaml.Node, path string) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		msg := "must be a string, not " + kindName(n)
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
		p.errorf(n, path, "must be true or false, not %s", kindName(n))
		return false, false
	}
	var b bool
	if err := n.Decode(&b); err != nil {
		p.errorf(n, path, "must be true or false, not %s", kindName(n))
		return false, false
	}
	return b, true
}

func (p *parser) integer(n *yaml.Node, path string) (int64, bool) {
	var i int64
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" || n.Decode(&i) != nil {
		p.errorf(n, path, "must be an integer, not %s", kindName(n))
		return 0, false
	}
	return i, true
}

func (p *parser) float(n *yaml.Node, path string) (float64, bool) {
	var f float64
	if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!int" && n.ShortTag() != "!!float") || n.Decode(&f) != nil {
		p.errorf(n, path, "must be a number, not %s", kindName(n))
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
		p.errorf(n, path, "must be a list of %s, not %s", what, kindName(n))
		return nil, false
	}
	out := make([]string, 0, len(n.Content))
	seen := map[string]*yaml.Node{}
	ok := true
	for i, c := range n.Content {
		c = deref(c)
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

// suite reads the top-level mapping.
func (p *parser) suite(n *yaml.Node, s *Suite) {
	fs, ok := p.mapping(n, "", "a mapping with cases: [...]")
	if !ok {
		return
	}
	var defaults, cases *yaml.Node
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
		case "defaults":
			defaults = v
		case "cases":
			cases = v
		default:
			p.unknownKey(f.key, "", suiteKeys, "")
		}
	}
	if defaults != nil {
		p.defaults(defaults, &s.Defaults)
	}
	if cases == nil {
		p.errorf(n, "cases", "missing; a suite needs cases: [{id: ..., ask: ..., expect: ...}]")
		return
	}
	p.cases(cases, s)
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
		p.errorf(v, "servers", "must be the path of an mcpServers file or an inline {mcpServers: {...}}, not %s", kindName(v))
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
		case "options":
			d.Options = p.options(v, path)
		default:
			p.unknownKey(f.key, "defaults", defaultsKeys, "")
		}
	}
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
	p.errorf(n, path, "must be true, false, low, medium or high, not %s", kindName(n))
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
	p.errorf(n, path, "must be a duration such as 10m, or a number of seconds, not %s", kindName(n))
	return nil
}

// options reads Ollama's model options, checking the types of the ones it
// knows and catching likely typos of them.
func (p *parser) options(n *yaml.Node, path string) map[string]any {
	fs, ok := p.mapping(n, path, "a mapping of Ollama options")
	if !ok {
		return nil
	}
	known := slices.Concat(intOptions, floatOptions, boolOptions, listOptions)
	out := map[string]any{}
	for _, f := range fs {
		k, v, fp := f.key.Value, f.val, join(path, f.key.Value)
		switch {
		case slices.Contains(intOptions, k):
			i, ok := p.integer(v, fp)
			if !ok {
				continue
			}
			if k == "num_ctx" && i < 1 {
				p.errorf(v, fp, "must be at least 1, not %d", i)
				continue
			}
			out[k] = i
		case slices.Contains(floatOptions, k):
			x, ok := p.float(v, fp)
			if !ok {
				continue
			}
			if x < 0 {
				p.errorf(v, fp, "must not be negative")
				continue
			}
			out[k] = x
		case slices.Contains(boolOptions, k):
			if b, ok := p.boolean(v, fp); ok {
				out[k] = b
			}
		case slices.Contains(listOptions, k):
			if l, ok := p.stopList(v, fp); ok {
				out[k] = l
			}
		default:
			if s := closest(k, known); s != "" {
				p.errorf(f.key, fp, "unknown Ollama option %q (did you mean %q?)", k, s)
				continue
			}
			if val, ok := p.literal(v, fp, false); ok {
				out[k] = val
			}
		}
	}
	return out
}

// stopList reads stop sequences: distinct non-empty strings, which may well
// be nothing but whitespace ("\n").
func (p *parser) stopList(n *yaml.Node, path string) ([]any, bool) {
	if n.Kind != yaml.SequenceNode {
		p.errorf(n, path, "must be a list of strings, not %s", kindName(n))
		return nil, false
	}
	var out []any
	ok := true
	for i, c := range n.Content {
		s, good := p.nonEmptyRaw(deref(c), index(path, i))
		if good && slices.Contains(out, any(s)) {
			p.errorf(c, index(path, i), "%q is listed twice", s)
			good = false
		}
		ok = ok && good
		out = append(out, s)
	}
	return out, ok
}

func (p *parser) cases(n *yaml.Node, s *Suite) {
	if n.Kind != yaml.SequenceNode {
		p.errorf(n, "cases", "must be a list of cases, not %s", kindName(n))
		return
	}
	if len(n.Content) == 0 {
		p.errorf(n, "cases", "must list at least one case")
		return
	}
	first := map[string]Pos{}
	for i, item := range n.Content {
		path := index("cases", i)
		c, idNode, ok := p.kase(deref(item), path, &s.Defaults)
		if idNode != nil {
			if at, dup := first[c.ID]; dup {
				p.errorf(idNode, join(path, "id"), "duplicate id %q (first at %s)", c.ID, at)
				ok = false
			} else {
				first[c.ID] = p.pos(idNode)
			}
		}
		if ok {
			s.Cases = append(s.Cases, c)
		}
	}
}

// kase reads one case; idNode is the id's node when the id is valid, for the
// duplicate check.
func (p *parser) kase(n *yaml.Node, path string, d *Defaults) (c Case, idNode *yaml.Node, ok bool) {
	c.Pos = p.pos(n)
	fs, ok := p.mapping(n, path, "a case mapping {id: ..., ask: ..., expect: ...}")
	if !ok {
		return c, nil, false
	}
	before := len(p.errs)
	var id, ask, expect, maxRounds *yaml.Node
	for _, f := range fs {
		v := f.val
		switch f.key.Value {
		case "id":
			id = v
		case "ask":
			ask = v
		case "tags":
			if tags, _ := p.strList(v, join(path, "tags"), "tags"); len(tags) > 0 {
				c.Tags = tags
			}
		case "expect":
			expect = v
		case "max_rounds":
			maxRounds = f.key
			c.MaxRounds, _ = p.maxRounds(v, join(path, "max_rounds"))
		default:
			p.unknownKey(f.key, path, caseKeys, "")
		}
	}
	if id == nil {
		p.errorf(n, join(path, "id"), "missing; every case needs an id")
	} else if s, good := p.nonEmpty(id, join(path, "id")); good {
		if strings.IndexFunc(s, unicode.IsSpace) >= 0 {
			p.errorf(id, join(path, "id"), "%q contains whitespace; ids are used on command lines and in reports", s)
		} else {
			c.ID, idNode = s, id
		}
	}
	if ask == nil {
		p.errorf(n, join(path, "ask"), "missing; give the question, or a list of messages")
	} else {
		c.Messages = p.ask(ask, join(path, "ask"))
	}
	if expect == nil {
		p.errorf(n, join(path, "expect"), "missing; say what should happen: tool, calls or no_tool: true")
	} else {
		var expRounds *yaml.Node
		c.Expect, expRounds = p.expect(expect, join(path, "expect"))
		if expRounds != nil {
			if maxRounds != nil {
				p.errorf(expRounds, join(path, "expect.max_rounds"), "max_rounds is also set at line %d, column %d; set it once", maxRounds.Line, maxRounds.Column)
			} else if r, good := p.maxRounds(expRounds, join(path, "expect.max_rounds")); good {
				c.MaxRounds = r
			}
		}
	}
	if c.MaxRounds == 0 {
		c.MaxRounds = d.MaxRounds
	}
	return c, idNode, len(p.errs) == before
}

// ask reads a question or a conversation.
func (p *parser) ask(n *yaml.Node, path string) []Message {
	switch n.Kind {
	case yaml.ScalarNode:
		if s, ok := p.nonEmpty(n, path); ok {
			return []Message{{Role: "user", Content: s}}
		}
		return nil
	case yaml.SequenceNode:
		if len(n.Content) == 0 {
			p.errorf(n, path, "must list at least one message")
			return nil
		}
		var out []Message
		var last *yaml.Node
		for i, item := range n.Content {
			item = deref(item)
			mp := index(path, i)
			fs, ok := p.mapping(item, mp, "a message {role: ..., content: ...}")
			if !ok {
				continue
			}
			last = item
			var m Message
			var role, content *yaml.Node
			for _, f := range fs {
				switch f.key.Value {
				case "role":
					role = f.val
				case "content":
					content = f.val
				default:
					p.unknownKey(f.key, mp, messageKeys, "")
				}
			}
			if role == nil {
				p.errorf(item, join(mp, "role"), "missing; one of system, user, assistant")
			} else if r, ok := p.str(role, join(mp, "role")); ok {
				switch {
				case r == "system" && i > 0:
					p.errorf(role, join(mp, "role"), "a system message can only come first")
				case r == "system" || r == "user" || r == "assistant":
					m.Role = r
				default:
					msg := fmt.Sprintf("must be system, user or assistant, not %q", r)
					if s := closest(r, []string{"system", "user", "assistant"}); s != "" {
						msg += fmt.Sprintf(" (did you mean %q?)", s)
					}
					p.errorf(role, join(mp, "role"), "%s", msg)
				}
			}
			if content == nil {
				p.errorf(item, join(mp, "content"), "missing")
			} else {
				m.Content, _ = p.nonEmpty(content, join(mp, "content"))
			}
			out = append(out, m)
		}
		if len(out) > 0 && out[len(out)-1].Role != "" && out[len(out)-1].Role != "user" {
			p.errorf(last, index(path, len(n.Content)-1), "the last message must be the user's: the model answers it")
		}
		return out
	}
	p.errorf(n, path, "must be a question or a list of messages, not %s", kindName(n))
	return nil
}

// expect reads a case's expectation; maxRounds is its max_rounds node, which
// the case resolves.
func (p *parser) expect(n *yaml.Node, path string) (e Expect, maxRounds *yaml.Node) {
	e.Pos = p.pos(n)
	fs, ok := p.mapping(n, path, "a mapping with tool, calls or no_tool")
	if !ok {
		return e, nil
	}
	keys := map[string]*yaml.Node{}
	var tool, args, calls, noTool *yaml.Node
	for _, f := range fs {
		keys[f.key.Value] = f.key
		fp, v := join(path, f.key.Value), f.val
		switch f.key.Value {
		case "tool":
			tool = v
		case "args":
			args = v
		case "calls":
			calls = v
		case "any_order":
			e.AnyOrder, _ = p.boolean(v, fp)
		case "no_tool":
			noTool = v
			e.NoTool, _ = p.boolean(v, fp)
		case "answer":
			e.Answer = p.textMatcher(v, fp)
		case "strict_args":
			if b, ok := p.boolean(v, fp); ok {
				e.StrictArgs = &b
			}
		case "max_rounds":
			maxRounds = v
		default:
			p.unknownKey(f.key, path, expectKeys, "")
		}
	}
	// Every form is read even when the forms conflict, so all their problems
	// are reported at once.
	if tool != nil {
		if name, ok := p.nonEmpty(tool, join(path, "tool")); ok {
			c := ExpectedCall{Tool: name, Pos: p.pos(tool)}
			if args != nil {
				c.Args = p.args(args, join(path, "args"))
			}
			e.Calls, e.FirstOnly = []ExpectedCall{c}, true
		}
	}
	if calls != nil {
		e.Calls = p.calls(calls, join(path, "calls"))
	}
	switch {
	case tool != nil && calls != nil:
		p.errorf(keys["calls"], join(path, "calls"), "give tool (the first call) or calls (the whole sequence), not both")
	case e.NoTool && (tool != nil || calls != nil):
		other := "tool"
		if calls != nil {
			other = "calls"
		}
		p.errorf(keys["no_tool"], join(path, "no_tool"), "no_tool: true contradicts %s", other)
	case tool == nil && calls == nil && !e.NoTool:
		if noTool != nil {
			p.errorf(keys["no_tool"], join(path, "no_tool"), "no_tool: false expects nothing; give tool or calls")
		} else {
			p.errorf(n, path, "needs one of tool, calls or no_tool: true")
		}
	}
	if args != nil && tool == nil {
		if calls != nil {
			p.errorf(keys["args"], join(path, "args"), "with calls, args go in each call: calls: [{tool: ..., args: ...}]")
		} else {
			p.errorf(keys["args"], join(path, "args"), "args needs tool")
		}
	}
	if e.AnyOrder && calls == nil {
		p.errorf(keys["any_order"], join(path, "any_order"), "any_order applies to calls only")
	}
	if e.NoTool && e.StrictArgs != nil {
		p.errorf(keys["strict_args"], join(path, "strict_args"), "strict_args has no meaning with no_tool")
	}
	return e, maxRounds
}

func (p *parser) calls(n *yaml.Node, path string) []ExpectedCall {
	if n.Kind != yaml.SequenceNode {
		p.errorf(n, path, "must be a list of calls [{tool: ..., args: ...}], not %s", kindName(n))
		return nil
	}
	if len(n.Content) == 0 {
		p.errorf(n, path, "must list at least one call (for no call, write no_tool: true)")
		return nil
	}
	var out []ExpectedCall
	for i, item := range n.Content {
		item = deref(item)
		cp := index(path, i)
		fs, ok := p.mapping(item, cp, "a call {tool: ..., args: ...}")
		if !ok {
			continue
		}
		var c ExpectedCall
		var tool *yaml.Node
		for _, f := range fs {
			switch f.key.Value {
			case "tool":
				tool = f.val
			case "args":
				c.Args = p.args(f.val, join(cp, "args"))
			default:
				p.unknownKey(f.key, cp, callKeys, "")
			}
		}
		if tool == nil {
			p.errorf(item, join(cp, "tool"), "missing; name the tool this call should use")
			continue
		}
		if name, ok := p.nonEmpty(tool, join(cp, "tool")); ok {
			c.Tool, c.Pos = name, p.pos(tool)
			out = append(out, c)
		}
	}
	return out
}

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
			m.Key = key
			out = append(out, m)
		}
	}
	return out
}

// argMatcher reads an expected value: a matcher object when the mapping has a
// matcher key, otherwise a literal.
func (p *parser) argMatcher(n *yaml.Node, path string) (ArgMatcher, bool) {
	m := ArgMatcher{Pos: p.pos(n), Kind: MatchEquals}
	if n.Kind != yaml.MappingNode {
		v, ok := p.literal(n, path, true)
		m.Value = v
		return m, ok
	}
	fs := p.fields(n, path)
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
			p.errorf(v, fp, "must be a non-empty list of values, not %s", kindName(v))
			break
		}
		for i, c := range v.Content {
			if lit, ok := p.literal(deref(c), index(fp, i), false); ok {
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
		if b, ok := p.boolean(v, fp); ok && !b {
			if m.Kind == MatchAny {
				p.errorf(v, fp, "any: false expects nothing; for a key that must not be there write {absent: true}, or leave the key out to let it be free")
			} else {
				p.errorf(v, fp, "absent: false expects nothing; write {any: true} for a key that must be there, or leave the key out")
			}
		}
	}
	return m, len(p.errs) == before
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
	n = deref(n)
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
	p.errorf(n, path, "must be a value, not %s", kindName(n))
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
	p.errorf(n, path, "unsupported value %s; use a string, number, boolean, null, list or mapping", kindName(n))
	return nil, false
}

// textMatcher reads an answer matcher.
func (p *parser) textMatcher(n *yaml.Node, path string) *TextMatcher {
	fs, ok := p.mapping(n, path, "a matcher {contains: ...}, {regex: ...} or {one_of: [...]}")
	if !ok {
		return nil
	}
	m := &TextMatcher{Pos: p.pos(n)}
	var kinds []field
	unknown := false
	for _, f := range fs {
		if slices.Contains(answerKeys, f.key.Value) {
			kinds = append(kinds, f)
		} else {
			p.unknownKey(f.key, path, answerKeys, "")
			unknown = true
		}
	}
	switch len(kinds) {
	case 0:
		if !unknown {
			p.errorf(n, path, "needs one of contains, regex, one_of")
		}
		return nil
	case 1:
	default:
		p.errorf(kinds[1].key, path, "an answer matcher takes exactly one of contains, regex, one_of; this one has %s and %s", kinds[0].key.Value, kinds[1].key.Value)
		return nil
	}
	k, v, fp := kinds[0].key.Value, kinds[0].val, join(path, kinds[0].key.Value)
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
