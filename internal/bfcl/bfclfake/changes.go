package bfclfake

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/toolgrade/toolgrade/internal/bfcl"
)

// ast adds the candidate changes of a question answered with calls.
func (g *gen) ast() {
	for i, c := range g.base {
		for j := range c.Args {
			g.argChanges(i, j)
			g.otherAccepted(i, j)
		}
		g.paramChanges(i)
	}
	g.callChanges()
	g.add("text", "", nil, "I would call "+g.base[0].Name+" for that.")
	g.add("call_in_text", "", nil, callText(g.base[0]))
	g.add("empty", "", nil, "")
}

// irrelevance adds the candidate answers of an irrelevance question:
// texts, and calls to each function.
func (g *gen) irrelevance() {
	for _, t := range []string{"I cannot do that with these tools.", "Sorry, no function here fits the question."} {
		g.add("text", "", nil, t)
	}
	g.add("empty", "", nil, "")
	for _, f := range g.q.Functions {
		names, types, required := params(f)
		all, req := bfcl.Object{}, bfcl.Object{}
		for _, n := range names {
			all = append(all, bfcl.Member{Key: n, Value: plausible(types[n])})
			if required[n] {
				req = append(req, bfcl.Member{Key: n, Value: plausible(types[n])})
			}
		}
		name := bfcl.ToolName(f.Name)
		g.add("call", name+": required", []Call{{Name: name, Args: req}}, "")
		g.add("call", name+": all", []Call{{Name: name, Args: all}}, "")
		g.add("call", name+": none", []Call{{Name: name, Args: bfcl.Object{}}}, "")
		g.add("call_in_text", name, nil, callText(Call{Name: name, Args: req}))
	}
}

// with returns the ground truth with argument j of call i set to v, or
// removed when omit.
func (g *gen) with(i, j int, v any, omit bool) []Call {
	calls := clone(g.base)
	if omit {
		calls[i].Args = slices.Delete(calls[i].Args, j, j+1)
	} else {
		calls[i].Args[j].Value = v
	}
	return calls
}

// argChanges adds the changes of the value of argument j of call i.
func (g *gen) argChanges(i, j int) {
	m := g.base[i].Args[j]
	at := fmt.Sprintf("%s.%s", g.base[i].Name, m.Key)
	change := func(kind string, f func(any) (any, bool)) {
		if v, ok := leaf(m.Value, f); ok {
			g.add(kind, at+" = "+show(v), g.with(i, j, v, false), "")
		}
	}
	change("string_case", func(v any) (any, bool) { return flipCase(v) })
	change("string_punct", func(v any) (any, bool) { return insert(v, " ,./-_*^"[g.r.IntN(8)], g.r.IntN(100)) })
	change("string_other_punct", func(v any) (any, bool) { return insert(v, "!?;:()&#"[g.r.IntN(8)], g.r.IntN(100)) })
	change("string_space", func(v any) (any, bool) {
		s, ok := v.(string)
		if !ok || !strings.Contains(s, " ") {
			return nil, false
		}
		return strings.ReplaceAll(s, " ", ""), true
	})
	change("int_for_float", intForFloat)
	change("float_for_int", func(v any) (any, bool) { return floatForInt(v, ".0") })
	change("fraction_for_int", func(v any) (any, bool) { return floatForInt(v, ".5") })
	if l, ok := m.Value.([]any); ok && len(l) > 1 {
		r := slices.Clone(l)
		slices.Reverse(r)
		if show(r) != show(l) {
			g.add("list_order", at+" = "+show(r), g.with(i, j, r, false), "")
		}
	}
	for _, v := range wrongTypes(m.Value) {
		g.add("wrong_type", at+" = "+show(v), g.with(i, j, v, false), "")
	}
	v := wrongValue(m.Value)
	g.add("wrong_value", at+" = "+show(v), g.with(i, j, v, false), "")
}

// otherAccepted adds the answer's other accepted values of argument j of
// call i ("" leaves it out).
func (g *gen) otherAccepted(i, j int) {
	key := g.base[i].Args[j].Key
	idx := slices.IndexFunc(g.a.Calls[i].Params, func(p bfcl.Param) bool { return p.Name == key })
	if idx < 0 {
		return
	}
	first := true
	for _, w := range g.a.Calls[i].Params[idx].Accepted {
		if s, ok := w.(string); ok && s == "" {
			g.add("other_accepted", g.base[i].Name+"."+key+" left out", g.with(i, j, nil, true), "")
			continue
		}
		if first {
			first = false // the ground truth's own
			continue
		}
		v := sent(w)
		g.add("other_accepted", g.base[i].Name+"."+key+" = "+show(v), g.with(i, j, v, false), "")
	}
}

// paramChanges adds the changes of which parameters call i sends.
func (g *gen) paramChanges(i int) {
	c := g.base[i]
	f, ok := g.fn(c.Name)
	if !ok {
		return
	}
	names, types, required := params(f)
	for j, m := range c.Args {
		kind := "omit_optional"
		if required[m.Key] {
			kind = "omit_required"
		}
		g.add(kind, c.Name+"."+m.Key, g.with(i, j, nil, true), "")
	}
	for _, n := range names {
		if slices.ContainsFunc(c.Args, func(m bfcl.Member) bool { return m.Key == n }) {
			continue
		}
		calls := clone(g.base)
		calls[i].Args = append(calls[i].Args, bfcl.Member{Key: n, Value: plausible(types[n])})
		g.add("extra_param_defined", c.Name+"."+n, calls, "")
	}
	calls := clone(g.base)
	calls[i].Args = append(calls[i].Args, bfcl.Member{Key: "extra_option", Value: "yes"})
	g.add("extra_param_unknown", c.Name+".extra_option", calls, "")
}

// callChanges adds calls added, dropped, reordered and misnamed.
func (g *gen) callChanges() {
	n := len(g.base)
	for i := range g.base {
		g.add("extra_call", "again: "+g.base[i].Name, append(clone(g.base), clone(g.base[i:i+1])...), "")
		if n > 1 {
			g.add("dropped_call", g.base[i].Name, slices.Delete(clone(g.base), i, i+1), "")
		}
		for _, name := range g.otherNames(i) {
			calls := clone(g.base)
			calls[i].Name = name
			g.add("wrong_name", g.base[i].Name+" → "+name, calls, "")
		}
	}
	for _, f := range g.q.Functions {
		name := bfcl.ToolName(f.Name)
		if slices.ContainsFunc(g.base, func(c Call) bool { return c.Name == name }) {
			continue
		}
		names, types, required := params(f)
		c := Call{Name: name, Args: bfcl.Object{}}
		for _, p := range names {
			if required[p] {
				c.Args = append(c.Args, bfcl.Member{Key: p, Value: plausible(types[p])})
			}
		}
		g.add("extra_call", "another: "+name, append(clone(g.base), c), "")
	}
	if n > 1 {
		r := clone(g.base)
		slices.Reverse(r)
		g.add("reordered_calls", "reversed", r, "")
		g.add("reordered_calls", "rotated", append(clone(g.base[1:]), clone(g.base[:1])...), "")
	}
}

// otherNames are wrong names for call i: the question's other functions,
// BFCL's dotted name, and a made-up one.
func (g *gen) otherNames(i int) []string {
	name := g.base[i].Name
	out := []string{name + "_v2"}
	for _, f := range g.q.Functions {
		if t := bfcl.ToolName(f.Name); t != name && !slices.Contains(out, t) {
			out = append(out, t)
		}
		if bfcl.ToolName(f.Name) == name && f.Name != name {
			out = append(out, f.Name)
		}
	}
	return out
}

// leaf applies f to the first value in v (v itself, then list items and
// dictionary values, depth first) where it applies, and returns v with
// that value replaced.
func leaf(v any, f func(any) (any, bool)) (any, bool) {
	if w, ok := f(v); ok {
		return w, true
	}
	switch x := v.(type) {
	case []any:
		for i, e := range x {
			if w, ok := leaf(e, f); ok {
				y := slices.Clone(x)
				y[i] = w
				return y, true
			}
		}
	case bfcl.Object:
		for i, m := range x {
			if w, ok := leaf(m.Value, f); ok {
				y := slices.Clone(x)
				y[i].Value = w
				return y, true
			}
		}
	}
	return nil, false
}

// flipCase upper-cases a string with letters (lower-cases it when it is
// upper-case already).
func flipCase(v any) (any, bool) {
	s, ok := v.(string)
	if !ok || !strings.ContainsFunc(s, unicode.IsLetter) {
		return nil, false
	}
	if u := strings.ToUpper(s); u != s {
		return u, true
	}
	return strings.ToLower(s), true
}

// insert puts c into a non-empty string at position at (modulo its
// length plus one).
func insert(v any, c byte, at int) (any, bool) {
	s, ok := v.(string)
	if !ok || s == "" {
		return nil, false
	}
	at %= len(s) + 1
	for at > 0 && at < len(s) && !utf8Start(s[at]) {
		at--
	}
	return s[:at] + string(c) + s[at:], true
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// intForFloat writes an integral float (5.0) as an int (5).
func intForFloat(v any) (any, bool) {
	n, ok := v.(json.Number)
	if !ok || !strings.ContainsAny(string(n), ".eE") {
		return nil, false
	}
	f, err := n.Float64()
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1e15 {
		return nil, false
	}
	return json.Number(strconv.FormatInt(int64(f), 10)), true
}

// floatForInt writes an int (5) as a float, with the given fraction (5.0,
// 5.5).
func floatForInt(v any, frac string) (any, bool) {
	n, ok := v.(json.Number)
	if !ok || strings.ContainsAny(string(n), ".eE") {
		return nil, false
	}
	return json.Number(string(n) + frac), true
}

// wrongTypes are values of other JSON types than v's.
func wrongTypes(v any) []any {
	var out []any
	if _, ok := v.(bool); !ok {
		out = append(out, true)
	}
	if v != nil {
		out = append(out, nil)
	}
	switch v.(type) {
	case string:
		out = append(out, json.Number("7"))
	case json.Number:
		out = append(out, show(v))
	default:
		out = append(out, show(v), json.Number("7"))
	}
	if _, ok := v.([]any); !ok {
		out = append(out, []any{v})
	}
	if _, ok := v.(bfcl.Object); !ok {
		out = append(out, bfcl.Object{{Key: "value", Value: v}})
	}
	return out
}

// wrongValue is a value of v's type that no accepted value is likely to
// match.
func wrongValue(v any) any {
	switch x := v.(type) {
	case string:
		return x + " and more"
	case json.Number:
		if strings.ContainsAny(string(x), ".eE") {
			f, _ := x.Float64()
			return json.Number(strconv.FormatFloat(f+1.5, 'f', -1, 64))
		}
		i, _ := x.Int64()
		return json.Number(strconv.FormatInt(i+1, 10))
	case bool:
		return !x
	case []any:
		if len(x) == 0 {
			return []any{"extra"}
		}
		return append(slices.Clone(x), x[len(x)-1])
	case bfcl.Object:
		return append(slices.Clone(x), bfcl.Member{Key: "extra", Value: "x"})
	}
	return "x"
}

// callText is a call written as JSON in the answer's text.
func callText(c Call) string {
	args := c.Args
	if args == nil {
		args = bfcl.Object{}
	}
	b, _ := json.Marshal(map[string]any{"name": c.Name, "arguments": args})
	return string(b)
}

// show is v as JSON.
func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
