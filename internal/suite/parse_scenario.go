package suite

import (
	"encoding/json"
	"slices"

	"github.com/toolgrade/toolgrade/internal/srcpos"
	"go.yaml.in/yaml/v3"
)

// The keys of a scenario's mappings.
var (
	turnKeys      = []string{"ask", "expect"}
	setupCallKeys = []string{"tool", "args"}
	checkCallKeys = []string{"tool", "args", "result"}
	userKeys      = []string{"goal", "persona", "model", "max_turns", "first"}
	resultKeys    = []string{"contains", "regex", "one_of"}
)

// scenarioKeys is what reading a case finds of its scenario keys (turns,
// setup, check, user), for the checks made once the whole case is read.
type scenarioKeys struct {
	turns, user *yaml.Node // the keys, where written
	path        string     // the case's path
	// turnExpects: some turn gives an expect.
	turnExpects bool
}

// read reads one scenario key f of case c at path.
func (sc *scenarioKeys) read(p *parser, c *Case, f field, path string, d *Defaults) {
	fp := join(path, f.key.Value)
	sc.path = path
	switch f.key.Value {
	case "turns":
		sc.turns = f.key
		c.Turns = p.turns(f.val, fp)
		for _, t := range c.Turns {
			sc.turnExpects = sc.turnExpects || t.Expect != nil
		}
	case "setup":
		c.Setup = p.stateCalls(f.val, fp, false)
	case "check":
		c.Checks = p.stateCalls(f.val, fp, true)
	case "user":
		sc.user = f.key
		c.User = p.simUser(f.val, fp, d)
	}
}

// exclusive reports the ways of giving the conversation that a case
// combines: ask:, turns: and user: each give all of it. other names the key
// also present (ask) and its node; "" when ask: is absent.
func (sc *scenarioKeys) exclusive(p *parser, other string, node *yaml.Node) {
	if sc.turns != nil && sc.user != nil {
		p.errorf(sc.user, join(sc.path, "user"), "a simulated user writes the turns itself; give turns: (fixed messages) or user: (a goal), not both")
	}
	if other == "" {
		return
	}
	for _, k := range []*yaml.Node{sc.turns, sc.user} {
		if k != nil {
			p.errorf(k, join(sc.path, k.Value), "%s: gives the whole conversation, and so does %s: at line %d; keep one (a first fixed message goes in turns[0].ask or user.first)", k.Value, other, node.Line)
		}
	}
}

// firstMessage sets c.Messages to the scenario's first user message, when
// the file fixes one: what every reader of a case's question shows.
func (sc *scenarioKeys) firstMessage(c *Case) {
	switch {
	case len(c.Turns) > 0:
		c.Messages = []Message{{Role: "user", Content: c.Turns[0].Ask}}
	case c.User != nil && c.User.First != "":
		c.Messages = []Message{{Role: "user", Content: c.User.First}}
	}
}

// turns reads turns:: a list of {ask, expect}.
func (p *parser) turns(n *yaml.Node, path string) []Turn {
	if !p.nonEmptyList(n, path, "a list of turns [{ask: ..., expect: ...}]", "must list at least one turn") {
		return nil
	}
	return listOf(p, n, path, "a turn {ask: ..., expect: ...}", p.turn)
}

// turn reads one turn {ask, expect} of turns:, at tp.
func (p *parser) turn(item *yaml.Node, fs []field, tp string) (Turn, bool) {
	t := Turn{Pos: p.pos(item)}
	var ask *yaml.Node
	for _, f := range fs {
		switch f.key.Value {
		case "ask":
			ask = f.val
		case "expect":
			e, rounds := p.expect(f.val, join(tp, "expect"))
			if rounds != nil {
				p.errorf(rounds, join(tp, "expect.max_rounds"), "a round limit is the case's, for every turn: set max_rounds on the case")
			}
			t.Expect = &e
		default:
			p.unknownKey(f.key, tp, turnKeys, "")
		}
	}
	if ask == nil {
		p.errorf(item, join(tp, "ask"), "missing; give the user's message of this turn")
		return t, false
	}
	if ask.Kind == yaml.SequenceNode {
		p.errorf(ask, join(tp, "ask"), "a turn's ask is one message (a string); earlier turns are the conversation so far")
		return t, false
	}
	s, ok := p.nonEmpty(ask, join(tp, "ask"))
	t.Ask = s
	return t, ok
}

// stateCalls reads setup: (check false) or check: (check true): a list of
// tool calls {tool, args} (and for a check, result).
func (p *parser) stateCalls(n *yaml.Node, path string, check bool) []StateCall {
	what, keys := "a list of calls [{tool: ..., args: {...}}]", setupCallKeys
	if check {
		what, keys = "a list of checks [{tool: ..., args: {...}, result: {contains: ...}}]", checkCallKeys
	}
	if !p.nonEmptyList(n, path, what, "must list at least one call (or leave the key out)") {
		return nil
	}
	return listOf(p, n, path, "a call {tool: ..., args: {...}}", func(item *yaml.Node, fs []field, cp string) (StateCall, bool) {
		return p.stateCall(item, fs, cp, check, keys)
	})
}

// stateCall reads one setup call or check {tool, args, result} at cp; keys
// are the keys it may have.
func (p *parser) stateCall(item *yaml.Node, fs []field, cp string, check bool, keys []string) (StateCall, bool) {
	c := StateCall{Field: cp, Args: json.RawMessage("{}")}
	var tool *yaml.Node
	good := true
	for _, f := range fs {
		switch f.key.Value {
		case "tool":
			tool = f.val
		case "args":
			good = p.stateArgs(f.val, join(cp, "args"), &c) && good
		case "result":
			if !check {
				p.unknownKey(f.key, cp, keys, " (a setup call's result is not checked: a failing setup call fails the trial as infrastructure; put checks in check:)")
				good = false
				continue
			}
			c.Result = p.resultMatcher(f.val, join(cp, "result"))
			good = good && c.Result != nil
		default:
			p.unknownKey(f.key, cp, keys, "")
			good = false
		}
	}
	if tool == nil {
		p.errorf(item, join(cp, "tool"), "missing; name the tool to call (plain, or server.tool)")
		return c, false
	}
	name, ok := p.nonEmpty(tool, join(cp, "tool"))
	c.Tool, c.Pos = name, p.pos(tool)
	return c, ok && good
}

// stateArgs reads a setup or check call's args: a literal object, sent as
// written (no matchers: the suite makes this call itself).
func (p *parser) stateArgs(n *yaml.Node, path string, c *StateCall) bool {
	if n.Kind != yaml.MappingNode {
		p.errorf(n, path, "must be a mapping of the call's arguments, not %s", srcpos.KindName(n))
		return false
	}
	v, ok := p.literal(n, path, false)
	if !ok {
		return false
	}
	b, err := json.Marshal(v)
	if err != nil {
		p.errorf(n, path, "cannot be sent as JSON: %v", err)
		return false
	}
	c.Args = b
	return true
}

// resultMatcher reads a check's result: one of contains, regex, one_of.
func (p *parser) resultMatcher(n *yaml.Node, path string) *TextMatcher {
	fs, ok := p.mapping(n, path, "a matcher {contains: ...}, {regex: ...} or {one_of: [...]}")
	if !ok {
		return nil
	}
	var kinds []field
	for _, f := range fs {
		if slices.Contains(resultKeys, f.key.Value) {
			kinds = append(kinds, f)
			continue
		}
		hint := ""
		if f.key.Value == "judge" {
			hint = " (a state check is matched, not judged)"
		}
		p.unknownKey(f.key, path, resultKeys, hint)
		return nil
	}
	switch len(kinds) {
	case 0:
		p.errorf(n, path, "needs one of contains, regex or one_of")
		return nil
	case 1:
		return p.textMatcher(kinds[0], join(path, kinds[0].key.Value), p.pos(n))
	}
	p.errorf(kinds[1].key, path, "a result matcher takes exactly one of contains, regex, one_of; this one has %s and %s", kinds[0].key.Value, kinds[1].key.Value)
	return nil
}

// simUser reads user:, a simulated user.
func (p *parser) simUser(n *yaml.Node, path string, d *Defaults) *SimUser {
	fs, ok := p.mapping(n, path, "a simulated user {goal: ..., persona: ..., model: ...}")
	if !ok {
		return nil
	}
	u := &SimUser{Pos: p.pos(n), MaxTurns: DefaultMaxTurns, Model: d.UserModel}
	var goal *yaml.Node
	for _, f := range fs {
		fp := join(path, f.key.Value)
		switch f.key.Value {
		case "goal":
			goal = f.val
			u.Goal, _ = p.nonEmpty(f.val, fp)
		case "persona":
			u.Persona, _ = p.nonEmpty(f.val, fp)
		case "model":
			u.Model, _ = p.nonEmpty(f.val, fp)
		case "first":
			u.First, _ = p.nonEmpty(f.val, fp)
		case "max_turns":
			if i, ok := p.integer(f.val, fp); ok {
				if i < 1 || i > MaxTurnsLimit {
					p.errorf(f.val, fp, "must be between 1 and %d, not %d", MaxTurnsLimit, i)
				} else {
					u.MaxTurns = int(i)
				}
			}
		default:
			p.unknownKey(f.key, path, userKeys, "")
		}
	}
	if goal == nil {
		p.errorf(n, join(path, "goal"), "missing; say what the user wants done, which the user model pursues")
	}
	if u.Model == "" {
		p.errorf(n, join(path, "model"), "missing; name the user model here (model: qwen3:8b) or for every case in defaults.user_model")
	}
	return u
}

// checkStateCalls resolves the tool of every setup and check call of s's
// cases against c, setting its Exposed, and checks its arguments against
// the tool's schema: the suite sends them as written, so they must hold
// every required argument. A defaults call is checked once, at its place.
func (p *parser) checkStateCalls(s *Suite, c Catalog) {
	names := c.Names()
	seen := map[string]bool{}
	for ci := range s.Cases {
		cs := &s.Cases[ci]
		for _, calls := range [][]StateCall{cs.Setup, cs.Checks} {
			for j := range calls {
				sc := &calls[j]
				exposed, ok := c.Resolve(sc.Tool)
				if !ok {
					if !seen[sc.Field] {
						p.errorAt(sc.Pos, sc.Field+".tool", "%s", unknownTool(c, sc.Tool, names))
					}
					seen[sc.Field] = true
					continue
				}
				sc.Exposed = exposed
				if err := c.ValidateArgs(exposed, sc.Args); err != nil && !seen[sc.Field] {
					// In a user's words, as an expected call's arguments
					// are; at the call, whose args carry no positions.
					var args map[string]any
					json.Unmarshal(sc.Args, &args) // the parser wrote it from an object
					sp := schemaProblems{p: p, call: &ExpectedCall{Tool: sc.Tool, Exposed: exposed, Pos: sc.Pos},
						tool: listedTool(c, exposed), argsField: sc.Field + ".args.", field: sc.Field + ".args", sent: true}
					sp.report(err, args, "")
				}
				seen[sc.Field] = true
			}
		}
	}
}
