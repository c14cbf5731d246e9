package suite

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/toolgrade/toolgrade/internal/srcpos"
	"go.yaml.in/yaml/v3"
)

// CaseTool is one entry of a case's own tools (tools: in a case): an inline
// function definition, which has nothing behind it and never runs, or a tool
// of the suite's servers by name.
type CaseTool struct {
	// Name is the inline function's name (a valid Ollama tool name), or the
	// servers' tool as written: plain, server.tool or server__tool.
	Name string
	// Pos is where the entry is written.
	Pos Pos
	// Inline is set for an inline definition.
	Inline bool
	// Description is the inline tool's description; "" when it gives none.
	Description string
	// Parameters is the inline tool's JSON Schema object schema as JSON, its
	// keys in the order written (the order the model sees the properties
	// in); {"type":"object","properties":{}} when the definition gives none.
	// Nil for a named tool.
	Parameters json.RawMessage
	// Exposed is the name the model sees: the inline tool's Name, or the
	// named tool's exposed name, which Suite.Check fills (empty before).
	Exposed string
}

// emptyParameters is an inline tool's schema when it gives none.
var emptyParameters = json.RawMessage(`{"type":"object","properties":{}}`)

var inlineToolKeys = []string{"name", "description", "parameters"}

// HasInline reports whether the case brings an inline tool definition: it
// then runs without execution, since such a tool has nothing behind it.
func (c *Case) HasInline() bool {
	for _, t := range c.Tools {
		if t.Inline {
			return true
		}
	}
	return false
}

// caseTools reads a case's tools: a list of inline definitions and names of
// the servers' tools.
func (p *parser) caseTools(n *yaml.Node, path string) []CaseTool {
	if !p.nonEmptyList(n, path, "a list of tools: inline definitions {name, description, parameters} or names of the servers' tools", "must list at least one tool (leave tools out to offer the suite's servers' tools)") {
		return nil
	}
	out := []CaseTool{}
	first := map[string]Pos{}
	for i, item := range n.Content {
		item = srcpos.Deref(item)
		ip := index(path, i)
		var t CaseTool
		var ok bool
		switch item.Kind {
		case yaml.ScalarNode:
			t.Name, ok = p.nonEmpty(item, ip)
			t.Pos = p.pos(item)
		case yaml.MappingNode:
			t, ok = p.inlineTool(item, ip)
		default:
			p.errorf(item, ip, "must be an inline definition {name, description, parameters} or a tool name, not %s", srcpos.KindName(item))
		}
		if !ok {
			continue
		}
		if at, dup := first[t.Name]; dup {
			p.errorAt(t.Pos, ip, "tool %q is listed twice in this case (first at line %d, column %d)", t.Name, at.Line, at.Col)
			continue
		}
		first[t.Name] = t.Pos
		out = append(out, t)
	}
	return out
}

// inlineTool reads one inline definition.
func (p *parser) inlineTool(n *yaml.Node, path string) (CaseTool, bool) {
	t := CaseTool{Pos: p.pos(n), Inline: true}
	before := len(p.errs)
	var name, params *yaml.Node
	for _, f := range p.fields(n, path) {
		switch f.key.Value {
		case "name":
			name = f.val
		case "description":
			t.Description, _ = p.str(f.val, join(path, "description"))
		case "parameters":
			params = f.val
		default:
			p.unknownKey(f.key, path, inlineToolKeys, "")
		}
	}
	if name == nil {
		p.errorf(n, join(path, "name"), "missing; an inline tool needs a name")
	} else if s, ok := p.nonEmpty(name, join(path, "name")); ok {
		if msg := toolNameProblem(s); msg != "" {
			p.errorf(name, join(path, "name"), "%s", msg)
		} else {
			t.Name, t.Exposed = s, s
			t.Pos = p.pos(name)
		}
	}
	t.Parameters = emptyParameters
	if params != nil {
		t.Parameters = p.parameters(params, join(path, "parameters"))
	}
	return t, len(p.errs) == before
}

// toolNameProblem says why name cannot be an Ollama tool name, suggesting
// one that can; "" when it can. Ollama (and the tool APIs its templates
// follow) take letters, digits, _ and -; BFCL's own handlers map its dotted
// names (math.factorial) with . → _, so the suggestion does too.
func toolNameProblem(name string) string {
	for _, r := range name {
		if validToolRune(r) {
			continue
		}
		fixed := strings.Map(func(r rune) rune {
			if validToolRune(r) {
				return r
			}
			return '_'
		}, name)
		return fmt.Sprintf("tool name %q has %q, which Ollama tool names cannot hold (letters, digits, _ and - only); write %q", name, r, fixed)
	}
	return ""
}

func validToolRune(r rune) bool {
	return r == '_' || r == '-' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9')
}

// parameters reads an inline tool's parameters: a JSON Schema object schema,
// returned as JSON with its keys in the order written, and checked with the
// JSON Schema library that validates every tool's arguments, so a schema
// that could not validate arguments fails here, at its position.
func (p *parser) parameters(n *yaml.Node, path string) json.RawMessage {
	if n.Kind != yaml.MappingNode {
		p.errorf(n, path, "must be a JSON Schema object schema {type: object, properties: {...}}, not %s", srcpos.KindName(n))
		return nil
	}
	for _, f := range p.fields(n, path) {
		if f.key.Value != "type" {
			continue
		}
		if f.val.Kind != yaml.ScalarNode || f.val.ShortTag() != "!!str" || f.val.Value != "object" {
			p.errorf(f.val, join(path, "type"), "must be object: a tool's parameters are an object of named arguments")
			return nil
		}
	}
	var b bytes.Buffer
	if !p.writeJSON(n, path, &b) {
		return nil
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(b.Bytes(), &s); err != nil {
		p.errorf(n, path, "not a valid JSON Schema: %v", err)
		return nil
	}
	if _, err := s.Resolve(nil); err != nil {
		p.errorf(n, path, "not a valid JSON Schema: %v", err)
		return nil
	}
	return json.RawMessage(b.Bytes())
}

// writeJSON writes n as compact JSON with mapping keys in the order written.
func (p *parser) writeJSON(n *yaml.Node, path string, b *bytes.Buffer) bool {
	n = srcpos.Deref(n)
	switch n.Kind {
	case yaml.ScalarNode:
		v, ok := p.scalar(n, path)
		if !ok {
			return false
		}
		data, err := json.Marshal(v)
		if err != nil {
			p.errorf(n, path, "%v", err)
			return false
		}
		b.Write(data)
		return true
	case yaml.SequenceNode:
		b.WriteByte('[')
		ok := true
		for i, c := range n.Content {
			if i > 0 {
				b.WriteByte(',')
			}
			ok = p.writeJSON(c, index(path, i), b) && ok
		}
		b.WriteByte(']')
		return ok
	case yaml.MappingNode:
		b.WriteByte('{')
		ok := true
		for i, f := range p.fields(n, path) {
			if i > 0 {
				b.WriteByte(',')
			}
			k, _ := json.Marshal(f.key.Value)
			b.Write(k)
			b.WriteByte(':')
			ok = p.writeJSON(f.val, join(path, f.key.Value), b) && ok
		}
		b.WriteByte('}')
		return ok
	}
	p.errorf(n, path, "must be a value, not %s", srcpos.KindName(n))
	return false
}
