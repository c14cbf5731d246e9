package bfcl

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/srcpos"
	"github.com/toolgrade/toolgrade/internal/suite"
	"go.yaml.in/yaml/v3"
)

// Import is a set of BFCL questions with their possible answers, to be
// written as one toolgrade suite.
type Import struct {
	// Questions are in the order they are to be written (file order).
	Questions []Question
	// Answers are the possible answers by id; a question of a category
	// that expects calls must have one.
	Answers map[string]Answer
	// Sources name the files imported, for the suite's header comment.
	Sources []string
}

// Suite builds the suite document: one case per question, id kept, tagged
// bfcl and bfcl_category:CATEGORY, its functions as the case's own tools
// (never executed), and what it expects by its category's Kind:
//
//   - OneCall: calls: with the one ground-truth call;
//   - Parallel: calls: with every ground-truth call, any_order: true;
//   - Irrelevance: no_tool: true;
//   - Relevance: any_tool: true.
//
// Each ground-truth parameter becomes a bfcl matcher (suite.BFCLSpec) with
// the parameter's BFCL type, element type, language and whether the
// function requires it; strict_args is on, since BFCL's checker rejects a
// parameter the function does not define or the answer does not list.
// Function names are mapped by ToolName in the tools and the expected calls
// alike; a mapped name is followed by a comment with BFCL's own.
//
// warnings are the questions left out, each with why (a Java or JavaScript
// collection type, which toolgrade does not convert); err lists every
// problem that makes the import wrong (a missing possible answer, an
// unknown type or category), each at its file:line.
func (im *Import) Suite() (doc *yaml.Node, warnings []string, err error) {
	var errs srcpos.List
	cases := seq()
	seen := map[string]srcpos.Pos{}
	for i := range im.Questions {
		q := &im.Questions[i]
		if first, dup := seen[q.ID]; dup {
			errs.Add(q.Pos, q.ID, "duplicate id (first at %s)", first)
			continue
		}
		seen[q.ID] = q.Pos
		c, skip, notes, err := im.kase(q)
		warnings = append(warnings, notes...)
		switch {
		case err != nil:
			errs.Add(q.Pos, q.ID, "%v", err)
		case skip != "":
			warnings = append(warnings, fmt.Sprintf("%s: %s: left out: %s", q.Pos, q.ID, skip))
		default:
			cases.Content = append(cases.Content, c)
		}
	}
	if err := errs.Err(); err != nil {
		return nil, warnings, err
	}
	if len(cases.Content) == 0 {
		return nil, warnings, fmt.Errorf("no question to import")
	}
	root := mapping("cases", cases)
	root.HeadComment = "Imported from the Berkeley Function-Calling Leaderboard by toolgrade import bfcl:\n" +
		strings.Join(im.Sources, "\n") + "\nEach case brings its own tools, which are never run; every argument is judged as BFCL's AST checker judges it."
	return &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{root}}, warnings, nil
}

// kase builds one case; skip says why a question is left out, notes are
// warnings about a case imported all the same.
func (im *Import) kase(q *Question) (n *yaml.Node, skip string, notes []string, err error) {
	cat := CategoryOf(q.ID)
	if cat == "" {
		return nil, "", nil, fmt.Errorf("the id names no known category (%s)", strings.Join(Categories, ", "))
	}
	lang, kind := Language(cat), KindOf(cat)
	if len(q.Messages) == 0 || q.Messages[len(q.Messages)-1].Role != "user" {
		return nil, "", nil, fmt.Errorf("the question must end with a user message")
	}
	tools := seq()
	byName := map[string]*Function{}
	mapped := map[string]string{}
	for i := range q.Functions {
		f := &q.Functions[i]
		name := ToolName(f.Name)
		if other, dup := mapped[name]; dup {
			return nil, "", nil, fmt.Errorf("functions %q and %q both become tool %q", other, f.Name, name)
		}
		mapped[name] = f.Name
		byName[f.Name] = f
		params, err := Schema(*f, lang)
		if err != nil {
			return nil, "", nil, fmt.Errorf("function %s: %v", f.Name, err)
		}
		nameNode := str(name)
		if name != f.Name {
			nameNode.LineComment = "BFCL: " + f.Name
		}
		tools.Content = append(tools.Content, mapping(
			"name", nameNode,
			"description", str(f.Description+Hint(lang)),
			"parameters", schemaNode(params)))
	}
	if len(q.Functions) == 0 && kind != Irrelevance {
		return nil, "", nil, fmt.Errorf("offers no function")
	}
	expect, skip, notes, err := im.expect(q, cat, lang, kind, byName)
	if err != nil || skip != "" {
		return nil, skip, nil, err
	}
	c := mapping("id", str(q.ID))
	c.Content = append(c.Content, str("tags"), flowSeq(str("bfcl"), str(record.BFCLCategoryTag+cat)))
	c.Content = append(c.Content, str("ask"), ask(q.Messages))
	c.Content = append(c.Content, str("tools"), tools)
	c.Content = append(c.Content, str("expect"), expect)
	return c, "", notes, nil
}

func (im *Import) expect(q *Question, cat, lang string, kind Kind, fns map[string]*Function) (n *yaml.Node, skip string, notes []string, err error) {
	switch kind {
	case Irrelevance:
		return flowMapping("no_tool", boolean(true)), "", nil, nil
	case Relevance:
		return flowMapping("any_tool", boolean(true)), "", nil, nil
	}
	a, ok := im.Answers[q.ID]
	if !ok {
		if im.Answers == nil {
			return nil, "", nil, fmt.Errorf("category %s needs its possible answers: give --answers", cat)
		}
		return nil, "", nil, fmt.Errorf("no possible answer with this id")
	}
	if kind == OneCall && len(a.Calls) != 1 {
		return nil, "", nil, fmt.Errorf("category %s expects one call, but the possible answer at %s has %d", cat, a.Pos, len(a.Calls))
	}
	calls := seq()
	for _, call := range a.Calls {
		f := fns[call.Name]
		if f == nil {
			return nil, "", nil, fmt.Errorf("the possible answer at %s calls %q, which the question does not offer", a.Pos, call.Name)
		}
		args, skip, undefined, err := arguments(call, f, lang)
		if err != nil || skip != "" {
			return nil, skip, nil, err
		}
		for _, p := range undefined {
			notes = append(notes, fmt.Sprintf("%s: %s: the possible answer lists %s for %s, which does not define it: expected absent, as BFCL's checker fails a call that sends it (unexpected_param)", a.Pos, q.ID, p, call.Name))
		}
		calls.Content = append(calls.Content, mapping("tool", str(ToolName(call.Name)), "args", args))
	}
	e := mapping("calls", calls)
	if kind == Parallel {
		e.Content = append(e.Content, str("any_order"), boolean(true))
	}
	e.Content = append(e.Content, str("strict_args"), boolean(true))
	return e, "", notes, nil
}

// arguments writes a call's parameters as bfcl matchers. A parameter the
// possible answer lists but the function does not define is written
// {absent: true} and named in undefined: BFCL's simple_function_checker
// fails a call that sends it (unexpected_param) and lets one leave it out
// only when "" is accepted, so without "" no answer passes and the
// question is skipped.
func arguments(call Call, f *Function, lang string) (args *yaml.Node, skip string, undefined []string, err error) {
	props, _ := get[Object](f.Parameters, "properties")
	reqList, _ := get[[]any](f.Parameters, "required")
	args = mapping()
	for _, p := range call.Params {
		po, _ := get[Object](props, p.Name)
		if _, defined := props.Get(p.Name); !defined {
			if !slices.ContainsFunc(p.Accepted, func(v any) bool { return v == "" }) {
				return nil, fmt.Sprintf("the possible answer lists %s for %s, which does not define it, and does not accept leaving it out: BFCL's checker fails every answer", p.Name, call.Name), nil, nil
			}
			m := flowMapping("absent", boolean(true))
			m.LineComment = "BFCL: not a parameter of " + call.Name + "; BFCL fails a call that sends it"
			args.Content = append(args.Content, str(p.Name), m)
			undefined = append(undefined, p.Name)
			continue
		}
		t, _ := get[string](po, "type")
		items, _ := get[Object](po, "items")
		it, _ := get[string](items, "type")
		if t != "" && !suite.BFCLTypeKnown(lang, t) {
			if lang != "python" && gorillaToOpenAPI[t] != "" {
				return nil, fmt.Sprintf("parameter %s has %s type %s, which toolgrade does not convert from its string form", p.Name, lang, t), nil, nil
			}
			return nil, "", nil, fmt.Errorf("parameter %s of %s: unknown type %q", p.Name, call.Name, t)
		}
		if lang == "python" && it != "" && !suite.BFCLTypeKnown("python", it) {
			it = "" // an element type BFCL's checker has no Python type for checks nothing
		}
		m := flowMapping("bfcl", flowSeq(values(p.Accepted)...))
		if t != "" {
			m.Content = append(m.Content, str("type"), str(t))
		}
		if it != "" && lang == "python" && (t == "array" || t == "tuple") {
			m.Content = append(m.Content, str("items"), str(it))
		}
		if lang != "python" {
			m.Content = append(m.Content, str("lang"), str(lang))
		}
		if slices.Contains(reqList, any(p.Name)) {
			m.Content = append(m.Content, str("required"), boolean(true))
		}
		args.Content = append(args.Content, str(p.Name), m)
	}
	return args, "", undefined, nil
}

func ask(ms []Message) *yaml.Node {
	if len(ms) == 1 && ms[0].Role == "user" {
		return str(ms[0].Content)
	}
	list := seq()
	for _, m := range ms {
		list.Content = append(list.Content, mapping("role", str(m.Role), "content", str(m.Content)))
	}
	return list
}

func values(vs []any) []*yaml.Node {
	out := make([]*yaml.Node, len(vs))
	for i, v := range vs {
		out[i] = node(v)
	}
	return out
}

// node converts a JSON value to YAML, numbers keeping the int/float
// distinction BFCL's Python has (5 is an int, 5.0 a float).
func node(v any) *yaml.Node {
	switch x := v.(type) {
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
	case bool:
		return boolean(x)
	case string:
		return str(x)
	case json.Number:
		if _, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: string(x)}
		}
		f, _ := strconv.ParseFloat(string(x), 64)
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return str(string(x))
		}
		s := strconv.FormatFloat(f, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eEn") {
			s += ".0"
		} else if strings.ContainsAny(s, "eE") && !strings.Contains(s, ".") {
			// YAML 1.2's core schema wants a dot in a float's mantissa.
			i := strings.IndexAny(s, "eE")
			s = s[:i] + ".0" + s[i:]
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: s}
	case []any:
		n := flowSeq(values(x)...)
		return n
	case Object:
		n := flowMapping()
		for _, m := range x {
			n.Content = append(n.Content, str(m.Key), node(m.Value))
		}
		return n
	}
	return str(fmt.Sprint(v))
}

// schemaNode writes a tool's parameters in block style down to the
// properties, each property in flow style: one line per parameter.
func schemaNode(params Object) *yaml.Node {
	n := mapping()
	for _, m := range params {
		v := node(m.Value)
		if props, ok := m.Value.(Object); ok && m.Key == "properties" {
			v = mapping()
			for _, p := range props {
				v.Content = append(v.Content, str(p.Key), node(p.Value))
			}
		}
		n.Content = append(n.Content, str(m.Key), v)
	}
	return n
}

// str is a string scalar, quoted where a YAML 1.1 parser (PyYAML, which
// BFCL's own tools use) would read it plain as another type: yaml.v3 quotes
// only what YAML 1.2 reads otherwise.
func str(s string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	if readsOtherwiseIn11(s) {
		n.Style = yaml.DoubleQuotedStyle
	}
	return n
}

func boolean(b bool) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(b)}
}

func seq(items ...*yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: items}
}

func flowSeq(items ...*yaml.Node) *yaml.Node {
	n := seq(items...)
	n.Style = yaml.FlowStyle
	return n
}

// mapping builds a block mapping from alternating keys and nodes.
func mapping(kv ...any) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for i := 0; i+1 < len(kv); i += 2 {
		n.Content = append(n.Content, str(kv[i].(string)), kv[i+1].(*yaml.Node))
	}
	return n
}

func flowMapping(kv ...any) *yaml.Node {
	n := mapping(kv...)
	n.Style = yaml.FlowStyle
	return n
}
