package suite

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/srcpos"
	"go.yaml.in/yaml/v3"
)

func (p *parser) cases(n *yaml.Node, s *Suite) {
	empty := "must list at least one case"
	if len(n.Content) == 0 && strings.Contains(n.HeadComment, "- id:") {
		// toolgrade init's starter suite: its cases are examples in comments.
		empty = "no case yet: write a question for at least one case: see the commented examples above, uncomment one and write its ask"
	}
	if !p.nonEmptyList(n, "cases", "a list of cases", empty) {
		return
	}
	first := map[string]Pos{}
	for i, item := range n.Content {
		path := index("cases", i)
		c, idNode, ok := p.kase(srcpos.Deref(item), path, &s.Defaults)
		if idNode != nil {
			if at, dup := first[c.ID]; dup {
				p.errorf(idNode, join(path, "id"), "duplicate id %q (first at %s)", c.ID, at)
				ok = false
			} else {
				first[c.ID] = p.pos(idNode)
			}
		}
		if ok {
			c.Expect.BFCL = slices.ContainsFunc(c.Tags, func(t string) bool { return strings.HasPrefix(t, record.BFCLCategoryTag) })
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
	var id, ask, expect, maxRounds, execTrue *yaml.Node
	var sc scenarioKeys
	c.NoExecute = d.Execute != nil && !*d.Execute
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
		case "execute":
			if b, ok := p.boolean(v, join(path, "execute")); ok {
				c.NoExecute = !b
				if b {
					execTrue = v
				}
			}
		case "tools":
			c.ToolsPos = p.pos(v)
			c.Tools = p.caseTools(v, join(path, "tools"))
		case "review":
			c.Review, _ = p.boolean(v, join(path, "review"))
		case "turns", "setup", "check", "user":
			sc.read(p, &c, f, path, d)
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
	switch {
	case ask != nil:
		c.Messages = p.ask(ask, join(path, "ask"))
		sc.exclusive(p, "ask", ask)
	case sc.turns != nil || sc.user != nil:
		sc.exclusive(p, "", nil)
		sc.firstMessage(&c)
	default:
		p.errorf(n, join(path, "ask"), "missing; give the question, a list of messages, turns: [{ask: ...}, ...] or a simulated user: {goal: ...}")
	}
	c.Setup = append(append([]StateCall(nil), d.Setup...), c.Setup...)
	c.Checks = append(c.Checks, d.Checks...)
	p.caseExpect(n, path, &c, &sc, expect, maxRounds)
	if c.MaxRounds == 0 {
		c.MaxRounds = d.MaxRounds
	}
	p.caseExecution(n, path, &c, execTrue)
	return c, idNode, len(p.errs) == before
}

// caseExpect reads the case's expect (its node expect, nil when not
// written) into c: a scenario judged by its turns' expects or its checks
// needs none; max_rounds may be set in the case (maxRounds) or its expect,
// not both.
func (p *parser) caseExpect(n *yaml.Node, path string, c *Case, sc *scenarioKeys, expect, maxRounds *yaml.Node) {
	switch {
	case expect == nil && (c.IsScenario() && (sc.turnExpects || len(c.Checks) > 0)):
		c.ExpectNone = true
	case expect == nil && c.IsScenario():
		p.errorf(n, join(path, "expect"), "missing; a scenario needs something to judge it by: an expect (per turn or for the case) or check: [{tool: ..., result: ...}]")
	case expect == nil:
		p.errorf(n, join(path, "expect"), "missing; say what should happen: tool, calls or no_tool: true")
	default:
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
}

// caseExecution checks how case c runs its tools: a scenario runs them,
// and a case with an inline tool cannot (execTrue is its execute: true,
// nil when not written).
func (p *parser) caseExecution(n *yaml.Node, path string, c *Case, execTrue *yaml.Node) {
	if c.IsScenario() && c.HasInline() {
		p.errorf(n, join(path, "tools"), "a scenario runs its tools (its turns and checks rest on them), and an inline tool has nothing behind it; name tools of the servers instead")
	} else if c.IsScenario() && c.NoExecute {
		p.errorf(n, join(path, "execute"), "a scenario runs its tools (its turns and checks rest on them); remove execute: false")
	}
	if c.HasInline() {
		// An inline tool has nothing behind it: the case can only be scored
		// on the model's first response.
		if execTrue != nil {
			p.errorf(execTrue, join(path, "execute"), "an inline tool has nothing behind it to run, so a case with inline tools runs with execute: false; remove execute: true")
		}
		c.NoExecute = true
	}
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
			item = srcpos.Deref(item)
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
	p.errorf(n, path, "must be a question or a list of messages, not %s", srcpos.KindName(n))
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
		case "any_tool":
			e.AnyTool, _ = p.boolean(v, fp)
		case "answer":
			e.Answer, e.Judge = p.answer(v, fp)
		case "strict_args":
			if b, ok := p.boolean(v, fp); ok {
				e.StrictArgs = &b
			}
		case "call_may_fail":
			e.CallMayFail, _ = p.boolean(v, fp)
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
	case e.AnyTool && (tool != nil || calls != nil || e.NoTool):
		p.errorf(keys["any_tool"], join(path, "any_tool"), "any_tool: true expects a call to any tool; it cannot be given with tool, calls or no_tool")
	case tool == nil && calls == nil && !e.NoTool && !e.AnyTool:
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
	if e.CallMayFail && (e.NoTool || e.AnyTool) {
		p.errorf(keys["call_may_fail"], join(path, "call_may_fail"), "call_may_fail applies to tool or calls: an expected call that may fail")
	}
	if e.NoTool && e.StrictArgs != nil {
		p.errorf(keys["strict_args"], join(path, "strict_args"), "strict_args has no meaning with no_tool")
	}
	return e, maxRounds
}

func (p *parser) calls(n *yaml.Node, path string) []ExpectedCall {
	if !p.nonEmptyList(n, path, "a list of calls [{tool: ..., args: ...}]", "must list at least one call (for no call, write no_tool: true)") {
		return nil
	}
	return listOf(p, n, path, "a call {tool: ..., args: ...}", p.call)
}

// call reads one expected call {tool, args} of calls:, at cp.
func (p *parser) call(item *yaml.Node, fs []field, cp string) (ExpectedCall, bool) {
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
		return c, false
	}
	name, ok := p.nonEmpty(tool, join(cp, "tool"))
	c.Tool, c.Pos = name, p.pos(tool)
	return c, ok
}

// nonEmptyList reports whether n is a list holding at least one item; if
// not, it reports at n that the value must be what (not what it is), or,
// for an empty list, the message empty.
func (p *parser) nonEmptyList(n *yaml.Node, path, what, empty string) bool {
	if n.Kind != yaml.SequenceNode {
		p.errorf(n, path, "must be %s, not %s", what, srcpos.KindName(n))
		return false
	}
	if len(n.Content) == 0 {
		p.errorf(n, path, "%s", empty)
		return false
	}
	return true
}
