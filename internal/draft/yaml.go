package draft

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/toolgrade/toolgrade/internal/suite"
	"github.com/toolgrade/toolgrade/internal/termtext"
	"go.yaml.in/yaml/v3"
)

// maxSources is how many sources a case's comment lists before it counts
// the rest.
const maxSources = 5

// flowArgs is the longest argument object (as compact JSON) written on one
// line, {query: dog, top_k: 5}; longer ones are written a key a line.
const flowArgs = 60

// WriteYAML writes the draft as a suite file that suite.Parse reads: every
// case with review: true and a comment saying what it was drafted from.
// from names the inputs in the file's opening comment.
func (d *Draft) WriteYAML(w io.Writer, from []string) error {
	doc := &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{d.node(from)}}
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return err
	}
	return enc.Close()
}

func (d *Draft) node(from []string) *yaml.Node {
	root := mapping()
	root.HeadComment = d.header(from)
	if d.Header != nil {
		root.HeadComment = comment(d.Header)
	}
	if d.Name != "" {
		add(root, "name", str(d.Name))
	}
	if d.Servers != "" {
		add(root, "servers", str(d.Servers))
	}
	if len(d.Models) > 0 {
		models := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, m := range d.Models {
			models.Content = append(models.Content, str(m))
		}
		add(root, "models", models)
	}
	def := mapping()
	if d.System != "" {
		add(def, "system", str(d.System))
	}
	switch d.Think {
	case "":
	case "true", "false":
		add(def, "think", boolean(d.Think == "true"))
	default:
		add(def, "think", str(d.Think))
	}
	if len(d.Options) > 0 {
		opts := mapping()
		opts.Style = yaml.FlowStyle
		for _, k := range LiftedOptions {
			if v, ok := d.Options[k]; ok {
				dec := json.NewDecoder(bytes.NewReader(v))
				dec.UseNumber()
				if n, err := jsonNode(dec); err == nil {
					add(opts, k, n)
				}
			}
		}
		add(def, "options", opts)
	}
	if len(def.Content) > 0 {
		add(root, "defaults", def)
	}
	cases := &yaml.Node{Kind: yaml.SequenceNode}
	for _, c := range d.Cases {
		cases.Content = append(cases.Content, c.node())
	}
	add(root, "cases", cases)
	return root
}

// header is the file's opening comment: what made it, and what a reviewer
// does with it.
func (d *Draft) header(from []string) string {
	lines := []string{
		fmt.Sprintf("A draft suite: toolgrade cases from %s drafted %s.", strings.Join(from, " "), d.Summary()),
		"Each case expects the calls the model made and is marked review: true. Check",
		"each expectation, loosen literal arguments into matchers where other wordings",
		"are as right ({contains: ...}, {regex: ...}, {any: true}), add an answer:",
		"matcher where the answer matters, then delete review: true.",
	}
	return comment(lines)
}

// comment makes lines one YAML comment, each line's control characters
// escaped: a model name or path with a newline cannot end the comment.
func comment(lines []string) string {
	out := make([]string, len(lines))
	for i, l := range lines {
		var b strings.Builder
		for _, r := range l {
			if r < 0x20 || r == 0x7f || r == 0x85 || r == 0x2028 || r == 0x2029 {
				fmt.Fprintf(&b, "\\x%02x", r)
				continue
			}
			b.WriteRune(r)
		}
		out[i] = "# " + b.String()
	}
	return strings.Join(out, "\n")
}

func (c *Case) node() *yaml.Node {
	n := mapping()
	n.HeadComment = c.comment()
	add(n, "id", str(c.ID))
	add(n, "review", boolean(true))
	if len(c.Messages) == 1 && c.Messages[0].Role == "user" {
		add(n, "ask", str(c.Messages[0].Content))
	} else {
		ask := &yaml.Node{Kind: yaml.SequenceNode}
		for _, m := range c.Messages {
			msg := mapping()
			add(msg, "role", str(m.Role))
			add(msg, "content", str(m.Content))
			ask.Content = append(ask.Content, msg)
		}
		add(n, "ask", ask)
	}
	add(n, "expect", c.Expect.node())
	return n
}

// comment says what the case stands for: how many conversations, by which
// models, from where; then its notes.
func (c *Case) comment() string {
	lines := []string{fmt.Sprintf("%s (%s): %s", c.count(), modelCounts(c.Models), sources(c.Sources))}
	if c.Lead != "" {
		lines[0] = c.Lead + ": " + sources(c.Sources)
	}
	return comment(append(lines, c.Notes...))
}

// modelCounts is "qwen3:8b ×2, qwen3:1.7b": each model once, first seen
// first, with its count when above one.
func modelCounts(models []string) string {
	var order []string
	n := map[string]int{}
	for _, m := range models {
		if n[m] == 0 {
			order = append(order, m)
		}
		n[m]++
	}
	for i, m := range order {
		if n[m] > 1 {
			order[i] = fmt.Sprintf("%s ×%d", m, n[m])
		}
	}
	return strings.Join(order, ", ")
}

// sources lists where the conversations were recorded, the file named once
// for a run of sources from it: rec/transcripts.jsonl:1, :4, :7.
func sources(ss []Source) string {
	var parts []string
	file := ""
	for i, s := range ss {
		if i == maxSources {
			parts = append(parts, fmt.Sprintf("and %d more", len(ss)-maxSources))
			break
		}
		switch {
		case s.File == file && s.Trial == nil:
			parts = append(parts, fmt.Sprintf(":%d", s.Line))
		case s.File == file:
			parts = append(parts, s.trial())
		default:
			parts = append(parts, s.String())
		}
		file = s.File
	}
	return strings.Join(parts, ", ")
}

func (e Expectation) node() *yaml.Node {
	n := mapping()
	switch {
	case e.Calls == nil:
		n.Style = yaml.FlowStyle
		add(n, "no_tool", boolean(true))
	case e.FirstOnly:
		add(n, "tool", str(e.Calls[0].Tool))
		if args := mustArgs(e.Calls[0].Args); args != nil {
			add(n, "args", args)
		}
	default:
		calls := &yaml.Node{Kind: yaml.SequenceNode}
		for _, c := range e.Calls {
			call := mapping()
			add(call, "tool", str(c.Tool))
			if args := mustArgs(c.Args); args != nil {
				add(call, "args", args)
			}
			calls.Content = append(calls.Content, call)
		}
		add(n, "calls", calls)
		if e.AnyOrder {
			add(n, "any_order", boolean(true))
		}
	}
	return n
}

// mustArgs is the arguments' node, nil for none (the case then leaves them
// free); draftOne has already checked that they convert.
func mustArgs(args json.RawMessage) *yaml.Node {
	n, err := argsNode(args)
	if err != nil || len(n.Content) == 0 {
		return nil
	}
	return n
}

// argsNode converts a call's arguments (a JSON object) to the expected
// arguments of a case: each a literal in the order the model sent it, and an
// object that holds a matcher key (contains, regex, ...) anywhere, or that
// has one key (which a suite reads as a mistyped matcher), written
// {equals: ...}, so it is not read as a matcher.
func argsNode(args json.RawMessage) (*yaml.Node, error) {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	n, err := jsonNode(dec)
	if err != nil {
		return nil, err
	}
	if n.Kind != yaml.MappingNode {
		return nil, errors.New("not a JSON object")
	}
	for i := 0; i < len(n.Content); i += 2 {
		if n.Content[i].Value == "" {
			return nil, errors.New("an argument has an empty name")
		}
		if v := n.Content[i+1]; hasMatcherKey(v) || isMatcherTypo(v) {
			eq := mapping()
			eq.Style = v.Style
			add(eq, "equals", v)
			n.Content[i+1] = eq
		}
	}
	if len(compact(args)) <= flowArgs {
		setFlow(n)
	}
	return n, nil
}

// jsonNode reads one JSON value into a node, keeping the order of object
// keys; a repeated key keeps its first place and its last value, as
// encoding/json keeps the last.
func jsonNode(dec *json.Decoder) (*yaml.Node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch v := tok.(type) {
	case json.Delim:
		if v == '[' {
			seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
			for dec.More() {
				item, err := jsonNode(dec)
				if err != nil {
					return nil, err
				}
				seq.Content = append(seq.Content, item)
			}
			_, err := dec.Token()
			return seq, err
		}
		m := mapping()
		at := map[string]int{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			k := kt.(string) // a decoder gives object keys as strings
			val, err := jsonNode(dec)
			if err != nil {
				return nil, err
			}
			if i, dup := at[k]; dup {
				m.Content[i+1] = val
				continue
			}
			at[k] = len(m.Content)
			add(m, k, val)
		}
		_, err := dec.Token()
		return m, err
	case string:
		return str(v), nil
	case json.Number:
		if _, err := strconv.ParseInt(v.String(), 10, 64); err == nil {
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: v.String()}, nil
		}
		f, err := strconv.ParseFloat(v.String(), 64)
		if err != nil || math.IsInf(f, 0) {
			return nil, fmt.Errorf("number %s does not fit in 64 bits", v)
		}
		text := v.String()
		if !strings.ContainsAny(text, ".eE") {
			// An integer past 64 bits: YAML would read its digits as one.
			text = strconv.FormatFloat(f, 'g', -1, 64)
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: text}, nil
	case bool:
		return boolean(v), nil
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}, nil
	}
	return nil, fmt.Errorf("unexpected JSON token %v", tok)
}

// isMatcherTypo reports whether a literal is an object whose one key the
// suite would take for a mistyped matcher (regexp for regex).
func isMatcherTypo(n *yaml.Node) bool {
	return n.Kind == yaml.MappingNode && len(n.Content) == 2 && !suite.IsMatcherKey(n.Content[0].Value)
}

// hasMatcherKey reports whether a literal holds, at any depth, a mapping
// with a key that would make the suite read it as a matcher.
func hasMatcherKey(n *yaml.Node) bool {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i < len(n.Content); i += 2 {
			if suite.IsMatcherKey(n.Content[i].Value) || hasMatcherKey(n.Content[i+1]) {
				return true
			}
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			if hasMatcherKey(c) {
				return true
			}
		}
	}
	return false
}

func setFlow(n *yaml.Node) {
	if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
		n.Style = yaml.FlowStyle
	}
	for _, c := range n.Content {
		setFlow(c)
	}
}

func mapping() *yaml.Node { return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"} }

func str(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

func boolean(b bool) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(b)}
}

func add(m *yaml.Node, key string, val *yaml.Node) {
	m.Content = append(m.Content, str(key), val)
}

// compact is the arguments as one line of JSON.
func compact(args json.RawMessage) []byte {
	var b bytes.Buffer
	if json.Compact(&b, args) != nil {
		return args
	}
	return b.Bytes()
}

// canonical is the arguments re-encoded from their value, so two calls
// compare equal when their arguments are (keys sorted, numbers by value).
func canonical(args json.RawMessage) []byte {
	var v any
	if json.Unmarshal(args, &v) != nil {
		return args
	}
	b, _ := json.Marshal(v)
	return b
}

// quote is text as a one-line Go string, cut after max runes, so what a
// model or server wrote cannot break out of a comment.
func quote(text string, max int) string {
	if r := []rune(text); len(r) > max {
		text = string(r[:max]) + "…"
	}
	return strconv.Quote(text)
}

// Summary counts what the draft made of its conversations: "7 cases from
// 10 conversations (3 merged, 0 skipped)".
func (d *Draft) Summary() string {
	return fmt.Sprintf("%s from %s (%d merged, %d skipped)", termtext.Count(len(d.Cases), "case"), termtext.Count(d.Read, d.noun()),
		d.Read-len(d.Skipped)-len(d.Cases), len(d.Skipped))
}
