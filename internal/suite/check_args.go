package suite

import (
	"encoding/json"
	"fmt"
	"maps"
	"strings"

	"github.com/ollama/ollama/api"
)

// checkArgs checks the arguments of one expected call against its tool,
// each at its own line and column: every name must be an argument of the
// tool (when the catalog lists its tools, a ToolLister), and the values
// known exactly (literals, each choice of a one_of, a number without
// tolerance) must fit the tool's input schema. field names the call's tool.
//
// Each known argument is validated alone when c is a PartialValidator, so
// an error names its argument. When the case has strict args and knows
// every argument it names exactly, that object is all a passing call can
// send, so it must pass ValidateArgs, required properties included; a
// required property the case leaves free or matches loosely would fail a
// correct case, so without a PartialValidator nothing else is validated.
func (p *parser) checkArgs(c Catalog, partial PartialValidator, call *ExpectedCall, strict bool, field string) {
	argsField := strings.TrimSuffix(field, ".tool") + ".args."
	tool := listedTool(c, call.Exposed)
	unknown := p.checkArgNames(tool, call, argsField)
	known := map[string]any{}
	complete := strict
	var choices []ArgMatcher
	for _, m := range call.Args {
		if unknown[m.Key] {
			complete = false
			continue
		}
		switch {
		case m.Kind == MatchEquals:
			known[m.Key] = m.Value
		case m.Kind == MatchOneOf:
			known[m.Key] = m.OneOf[0]
			if len(m.OneOf) > 1 {
				choices = append(choices, m)
			}
		case m.Kind == MatchNumber && m.Tolerance == 0:
			known[m.Key] = m.Number
		case m.Kind == MatchAbsent:
		default:
			complete = false
		}
	}
	sp := schemaProblems{p: p, call: call, tool: tool, argsField: argsField, field: field}
	bad := false
	if partial != nil {
		for _, m := range call.Args {
			v, ok := known[m.Key]
			if !ok {
				continue
			}
			if err := partial.ValidatePartial(call.Exposed, marshal(map[string]any{m.Key: v})); err != nil {
				sp.report(err, map[string]any{m.Key: v}, "")
				bad = true
			}
		}
		for _, m := range choices {
			for i, choice := range m.OneOf[1:] {
				if err := partial.ValidatePartial(call.Exposed, marshal(map[string]any{m.Key: choice})); err != nil {
					sp.report(err, map[string]any{m.Key: choice}, fmt.Sprintf("one_of choice %d: ", i+2))
				}
			}
		}
	}
	if !complete || bad {
		return
	}
	// A complete expectation is the whole object a passing call sends, so
	// it must pass the full schema, required properties included.
	if err := c.ValidateArgs(call.Exposed, marshal(known)); err != nil {
		sp.report(err, known, "")
		return
	}
	if partial != nil {
		return // the choices were checked one by one
	}
	for _, m := range choices {
		for i, choice := range m.OneOf[1:] {
			args := maps.Clone(known)
			args[m.Key] = choice
			if err := c.ValidateArgs(call.Exposed, marshal(args)); err != nil {
				sp.report(err, args, fmt.Sprintf("one_of choice %d: ", i+2))
			}
		}
	}
}

// checkArgNames reports every expected argument but an absent one that
// names no argument of tool (nil: the catalog does not list its tools, so nothing is checked),
// with the nearest name and the tool's arguments, and returns those names.
func (p *parser) checkArgNames(tool *api.Tool, call *ExpectedCall, argsField string) map[string]bool {
	if tool == nil {
		return nil
	}
	props := tool.Function.Parameters.Properties
	var names []string
	for n := range props.All() {
		names = append(names, n)
	}
	unknown := map[string]bool{}
	for _, m := range call.Args {
		if _, ok := props.Get(m.Key); ok || m.Kind == MatchAbsent {
			// An absent argument the tool lacks says what a call must
			// not send (BFCL's imports expect such names absent).
			continue
		}
		unknown[m.Key] = true
		msg := fmt.Sprintf("the tool %s has no argument %q", call.Exposed, m.Key)
		list := "its arguments: " + strings.Join(names, ", ")
		switch s := closest(m.Key, names); {
		case len(names) == 0:
			msg += " (it takes no arguments)"
		case s != "":
			msg += fmt.Sprintf(" (did you mean %q? %s)", s, list)
		default:
			msg += " (" + list + ")"
		}
		p.errorAt(m.KeyPos, argsField+m.Key, "%s", msg)
	}
	return unknown
}

// listedTool is the tool exposed as name when c lists its tools; nil
// otherwise.
func listedTool(c Catalog, name string) *api.Tool {
	tl, ok := c.(ToolLister)
	if !ok {
		return nil
	}
	for _, t := range tl.OllamaTools() {
		if t.Function.Name == name {
			return &t
		}
	}
	return nil
}

// marshal encodes expected arguments, which are JSON's own shapes.
func marshal(args map[string]any) json.RawMessage {
	b, _ := json.Marshal(args)
	return b
}

// schemaProblems reports the validator's errors on one expected call's
// arguments in a user's words, at the argument they concern.
type schemaProblems struct {
	p         *parser
	call      *ExpectedCall
	tool      *api.Tool
	argsField string
	field     string
	// sent: the arguments are a setup or check call's, sent as written,
	// not an expectation of the model's call.
	sent bool
}

// report reports err, the validator's error on args, at the argument it
// concerns (the call's tool for an error about the whole object); prefix
// goes before the words (which one_of choice).
func (sp schemaProblems) report(err error, args map[string]any, prefix string) {
	path, kind := validatorPath(err.Error())
	pos, field := sp.call.Pos, sp.field
	if sub := extraMsg.FindStringSubmatch(kind); sub != nil && len(path) == 0 {
		// A name the tool lacks, found by the validator (the catalog does
		// not list its tools): at that argument's name.
		name := names(sub[1])
		if m, ok := sp.call.Args.Get(name); ok {
			pos, field = m.KeyPos, sp.argsField+name
		}
	}
	if len(path) > 0 {
		if m, ok := sp.call.Args.Get(path[0]); ok {
			pos = m.Pos
		}
		field = sp.argsField + strings.Join(path, ".")
	}
	sp.p.errorAt(pos, field, "%s%s", prefix, sp.words(path, kind, args))
}
