package fakeollama

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"

	"github.com/ollama/ollama/types/model"
	"github.com/toolgrade/toolgrade/internal/srcpos"
)

var (
	knownCapabilities = []string{
		string(model.CapabilityCompletion), string(model.CapabilityTools), string(model.CapabilityInsert),
		string(model.CapabilityVision), string(model.CapabilityEmbedding), string(model.CapabilityThinking),
		string(model.CapabilityImage),
	}
	thinkLevels = []string{"high", "medium", "low"}
	doneReasons = []string{"", "stop", "length"}
)

// validate checks a script, reporting every problem at once; at gives the
// position of a path (the zero Pos for scripts built in Go).
func validate(s *Script, at func(path) srcpos.Pos) error {
	var errs srcpos.List
	bad := func(p path, format string, args ...any) {
		errs.Add(at(p), p.String(), format, args...)
	}
	seen := checkModels(s.Models, bad)
	for i, m := range s.Models {
		if m.SameWeights == "" {
			continue
		}
		n := model.ParseName(m.SameWeights)
		if j, ok := seen[strings.ToLower(n.String())]; !ok || !n.IsValid() {
			bad(path{"models", i, "same_weights"}, "model %q is not declared in models", m.SameWeights)
		} else if s.Models[j].SameWeights != "" || j == i {
			bad(path{"models", i, "same_weights"}, "name the model that has the weights itself, not %q", m.SameWeights)
		}
	}
	if s.MaxLoaded < 0 {
		bad(path{"max_loaded"}, "must not be negative")
	}
	if s.Latency < 0 {
		bad(path{"latency"}, "must not be negative")
	}
	for i := range s.Rules {
		checkRule(&s.Rules[i], path{"rules", i}, seen, bad)
	}
	if s.Fallback != nil {
		checkReply(s.Fallback, path{"fallback"}, bad)
	}
	return errs.Err()
}

// checkModels checks the script's models and returns the index of each by
// its normalised name, for the rules that name one.
func checkModels(models []Model, bad func(path, string, ...any)) (seen map[string]int) {
	if len(models) == 0 {
		bad(path{"models"}, "declare at least one model")
	}
	seen = map[string]int{}
	for i, m := range models {
		p := path{"models", i}
		n := model.ParseName(m.Name)
		switch {
		case m.Name == "":
			bad(p.with("name"), "a model needs a name")
		case !n.IsValid():
			bad(p.with("name"), "%q is not a valid model name", m.Name)
		default:
			key := strings.ToLower(n.String())
			if j, dup := seen[key]; dup {
				bad(p.with("name"), "model %q is also declared as models[%d]", m.Name, j)
			}
			seen[key] = i
		}
		for j, c := range m.Capabilities {
			if !slices.Contains(knownCapabilities, c) {
				bad(p.with("capabilities", j), "unknown capability %q (known: %s)", c, strings.Join(knownCapabilities, ", "))
			}
		}
		for j, l := range m.ThinkLevels {
			if !slices.Contains(thinkLevels, l) {
				bad(p.with("think_levels", j), "unknown think level %q (known: high, medium, low)", l)
			}
		}
		if m.NumCtx < 0 {
			bad(p.with("num_ctx"), "must not be negative")
		}
	}
	return seen
}

// checkRule checks rule r at p; models are the declared models by
// normalised name.
func checkRule(r *Rule, p path, models map[string]int, bad func(path, string, ...any)) {
	if r.Model != "" {
		key := strings.ToLower(model.ParseName(r.Model).String())
		if _, ok := models[key]; !ok {
			bad(p.with("model"), "model %q is not declared in models", r.Model)
		}
	}
	if r.Round < 0 {
		bad(p.with("round"), "must not be negative (0 means any round)")
	}
	if r.Turn < 0 {
		bad(p.with("turn"), "must not be negative (0 means any turn)")
	}
	if r.User != nil {
		checkMatcher(r.User, p.with("user"), bad)
	}
	if r.ToolResult != nil {
		checkMatcher(r.ToolResult, p.with("tool_result"), bad)
	}
	if r.TurnResult != nil {
		checkMatcher(r.TurnResult, p.with("turn_result"), bad)
	}
	if r.Tools != nil {
		checkMatcher(r.Tools, p.with("tools"), bad)
	}
	if c := r.ToolsCount; c != nil {
		checkCount(c, p.with("tools_count"), true, bad)
	}
	if c := r.Seed; c != nil {
		checkCount(c, p.with("seed"), false, bad)
	}
	if r.Latency != nil && *r.Latency < 0 {
		bad(p.with("latency"), "must not be negative")
	}
	if !slices.Contains(faults, r.Fault) {
		names := make([]string, 0, len(faults))
		for _, f := range faults[1:] {
			names = append(names, string(f))
		}
		bad(p.with("fault"), "unknown fault %q (known: %s)", r.Fault, strings.Join(names, ", "))
	}
	checkReply(&r.Reply, p.with("reply"), bad)
}

// checkCount checks the bounds of a Count at p: at least one, in order, and
// none negative when nonNegative.
func checkCount(c *Count, p path, nonNegative bool, bad func(path, string, ...any)) {
	switch {
	case c.Min == nil && c.Max == nil:
		bad(p, "give min, max or both")
	case nonNegative && c.Min != nil && *c.Min < 0:
		bad(p.with("min"), "must not be negative")
	case nonNegative && c.Max != nil && *c.Max < 0:
		bad(p.with("max"), "must not be negative")
	case c.Min != nil && c.Max != nil && *c.Min > *c.Max:
		bad(p.with("max"), "is less than min (%d), so the rule never matches", *c.Min)
	}
}

func checkMatcher(m *Matcher, p path, bad func(path, string, ...any)) {
	if m.Contains == "" && m.Regex == "" && m.Equals == "" {
		bad(p, "give contains, regex or equals")
	}
	if m.Regex != "" {
		if _, err := regexp.Compile(m.Regex); err != nil {
			bad(p.with("regex"), "%v", err)
		}
	}
}

func checkReply(r *Reply, p path, bad func(path, string, ...any)) {
	if r.Chunks < 0 {
		bad(p.with("chunks"), "must not be negative")
	}
	if !slices.Contains(doneReasons, r.DoneReason) {
		bad(p.with("done_reason"), "%q is not stop or length", r.DoneReason)
	}
	if u := r.UserReply; u != nil {
		switch {
		case r.Content != "" || len(r.ToolCalls) > 0:
			bad(p.with("user_reply"), "give user_reply or content and tool_calls, not both: user_reply is the content")
		case u.Message == "" && !u.Done:
			bad(p.with("user_reply"), "give a message, or done: true to end the conversation")
		}
	}
	for i, c := range r.ToolCalls {
		cp := p.with("tool_calls", i)
		if c.Name == "" {
			bad(cp.with("name"), "a tool call needs a name")
		}
		keys := map[string]bool{}
		for _, a := range c.Arguments {
			if a.Key == "" {
				bad(cp.with("arguments"), "an argument needs a name")
			}
			if keys[a.Key] {
				bad(cp.with("arguments", a.Key), "argument %q given twice", a.Key)
			}
			keys[a.Key] = true
			if _, err := json.Marshal(a.Value); err != nil {
				bad(cp.with("arguments", a.Key), "cannot be sent as JSON: %v", err)
			}
		}
	}
}
