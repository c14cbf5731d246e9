package bfclfake

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"

	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/internal/bfcl"
)

// Output is one answer a model gives to one imported question, made by
// Generate to measure toolgrade's BFCL verdicts against BFCL's own checker:
// calls, or a text instead. Numbers in the arguments are json.Number as the
// model wrote them, so Python's int and float stay apart (5 and 5.0), as
// BFCL's checker sees them; Ollama's encoding does not keep them apart
// (Reply).
type Output struct {
	// ID is QUESTION#N: N counts the question's outputs from 0, the ground
	// truth.
	ID string `json:"id"`
	// Question is BFCL's id of the question answered.
	Question string `json:"question"`
	// Category is BFCL's category (simple_python, multiple, ...).
	Category string `json:"category"`
	// Kind names the change made to the ground truth (ground_truth,
	// string_case, int_for_float, ...: see Generate).
	Kind string `json:"kind"`
	// Detail says where the change is and what it is.
	Detail string `json:"detail,omitempty"`
	// Text is the answer's text: with no calls, the text sent instead.
	Text string `json:"text,omitempty"`
	// Calls are the calls, in order.
	Calls []Call `json:"calls,omitempty"`
}

// Call is one call of an Output: the name the model sends, and the
// arguments in order (values: json.Number, string, bool, nil, []any,
// bfcl.Object).
type Call struct {
	Name string      `json:"name"`
	Args bfcl.Object `json:"arguments"`
}

// BFCLResult is the output as BFCL's function-calling handlers store the
// model's answer: a list of {name: arguments as JSON text}, or the text when
// there is no call (which decode_ast then fails to decode).
func (o Output) BFCLResult() (any, error) {
	if len(o.Calls) == 0 {
		return o.Text, nil
	}
	out := make([]map[string]string, len(o.Calls))
	for i, c := range o.Calls {
		args := c.Args
		if args == nil {
			args = bfcl.Object{}
		}
		b, err := json.Marshal(args)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", o.ID, err)
		}
		out[i] = map[string]string{c.Name: string(b)}
	}
	return out, nil
}

// Reply is the output as the fake Ollama sends it: each argument decoded
// into Go values as Ollama decodes a model's call (every number a float64,
// so 5.0 is encoded again as 5), then encoded by the fake with Ollama's api
// types.
func (o Output) Reply() (fakeollama.Reply, error) {
	r := fakeollama.Reply{Content: o.Text}
	for _, c := range o.Calls {
		tc := fakeollama.ToolCall{Name: c.Name}
		for _, m := range c.Args {
			b, err := json.Marshal(m.Value)
			if err != nil {
				return r, fmt.Errorf("%s: %s: %v", o.ID, m.Key, err)
			}
			var v any
			if err := json.Unmarshal(b, &v); err != nil {
				return r, fmt.Errorf("%s: %s: %v", o.ID, m.Key, err)
			}
			tc.Arguments = append(tc.Arguments, fakeollama.Arg{Key: m.Key, Value: v})
		}
		r.ToolCalls = append(r.ToolCalls, tc)
	}
	return r, nil
}

// Received is the output as toolgrade receives it from Ollama: the calls'
// arguments after Reply's decoding (5.0 is 5), still in BFCL's terms, so
// BFCL's checker can say whether the round trip changes its verdict.
func (o Output) Received() (Output, error) {
	r, err := o.Reply()
	if err != nil {
		return o, err
	}
	out := o
	out.Calls = nil
	for _, c := range r.ToolCalls {
		call := Call{Name: c.Name, Args: bfcl.Object{}}
		for _, a := range c.Arguments {
			call.Args = append(call.Args, bfcl.Member{Key: a.Key, Value: a.Value})
		}
		out.Calls = append(out.Calls, call)
	}
	return out, nil
}

// Generate makes up to perQuestion outputs for each Python question of im
// that has a possible answer (irrelevance questions need none): the ground
// truth first (the first accepted value of each parameter, "" ones left
// out), then one change at a time, drawn so that the kinds of change vary:
// other accepted values, strings changed in case, punctuation or spaces,
// lists reordered, optional or required parameters left out, int for float
// and float for int, wrong types and values, parameters added, calls added,
// dropped or reordered, wrong names, text instead of a call (for
// irrelevance: texts, and calls). The same seed gives the same outputs.
func Generate(im *bfcl.Import, perQuestion int, seed uint64) []Output {
	var out []Output
	for _, q := range im.Questions {
		cat := bfcl.CategoryOf(q.ID)
		if bfcl.Language(cat) != "python" || len(q.Functions) == 0 {
			continue
		}
		h := fnv.New64a()
		h.Write([]byte(q.ID))
		g := &gen{q: q, r: rand.New(rand.NewPCG(seed, h.Sum64())), cands: map[string][]Output{}}
		var first Output
		switch bfcl.KindOf(cat) {
		case bfcl.Irrelevance:
			first = Output{Kind: "text", Text: "None of these functions can answer that."}
			g.irrelevance()
		case bfcl.OneCall, bfcl.Parallel:
			a, ok := im.Answers[q.ID]
			if !ok || len(a.Calls) == 0 {
				continue
			}
			g.a, g.base = a, truth(a)
			first = Output{Kind: "ground_truth", Calls: g.base}
			g.ast()
		default:
			continue
		}
		for i, o := range append([]Output{first}, g.pick(perQuestion-1)...) {
			o.ID, o.Question, o.Category = fmt.Sprintf("%s#%d", q.ID, i), q.ID, cat
			out = append(out, o)
		}
	}
	return out
}

// gen makes the outputs of one question: candidates by kind, then a pick.
type gen struct {
	q     bfcl.Question
	a     bfcl.Answer
	base  []Call // the ground truth
	r     *rand.Rand
	cands map[string][]Output
}

// add records a candidate output of a kind.
func (g *gen) add(kind, detail string, calls []Call, text string) {
	g.cands[kind] = append(g.cands[kind], Output{Kind: kind, Detail: detail, Calls: calls, Text: text})
}

// pick draws up to n candidates: the kinds in random order, one candidate
// of each in turn, until n are drawn or none are left.
func (g *gen) pick(n int) []Output {
	kinds := make([]string, 0, len(g.cands))
	for k := range g.cands {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	g.r.Shuffle(len(kinds), func(i, j int) { kinds[i], kinds[j] = kinds[j], kinds[i] })
	var out []Output
	for len(out) < n && len(kinds) > 0 {
		for i := 0; i < len(kinds) && len(out) < n; i++ {
			list := g.cands[kinds[i]]
			j := g.r.IntN(len(list))
			out = append(out, list[j])
			list = slices.Delete(list, j, j+1)
			g.cands[kinds[i]] = list
			if len(list) == 0 {
				kinds = slices.Delete(kinds, i, i+1)
				i--
			}
		}
	}
	return out
}

// truth is the ground truth as a model right by BFCL's rules sends it.
func truth(a bfcl.Answer) []Call {
	calls := make([]Call, len(a.Calls))
	for i, c := range a.Calls {
		calls[i] = Call{Name: bfcl.ToolName(c.Name), Args: bfcl.Object{}}
		for _, p := range c.Params {
			if v, ok := firstOf(p.Accepted); ok {
				calls[i].Args = append(calls[i].Args, bfcl.Member{Key: p.Name, Value: v})
			}
		}
	}
	return calls
}

// firstOf is the first accepted value other than "", a dictionary's keys
// likewise; ok is false when only "" is accepted.
func firstOf(accepted []any) (any, bool) {
	for _, w := range accepted {
		if s, ok := w.(string); ok && s == "" {
			continue
		}
		return sent(w), true
	}
	return nil, false
}

// sent turns an accepted value into the value a model sends: a dictionary
// {key: [accepted...]} becomes {key: first accepted}.
func sent(w any) any {
	switch x := w.(type) {
	case bfcl.Object:
		o := bfcl.Object{}
		for _, m := range x {
			list, _ := m.Value.([]any)
			if v, ok := firstOf(list); ok {
				o = append(o, bfcl.Member{Key: m.Key, Value: v})
			}
		}
		return o
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = sent(e)
		}
		return out
	}
	return w
}

// clone copies calls deeply enough to change one argument or call.
func clone(calls []Call) []Call {
	out := make([]Call, len(calls))
	for i, c := range calls {
		out[i] = Call{Name: c.Name, Args: slices.Clone(c.Args)}
	}
	return out
}

// fn is the function document the ground truth's call i calls.
func (g *gen) fn(name string) (bfcl.Function, bool) {
	for _, f := range g.q.Functions {
		if bfcl.ToolName(f.Name) == name {
			return f, true
		}
	}
	return bfcl.Function{}, false
}

// params returns a function's parameter types in order and its required
// parameters.
func params(f bfcl.Function) (names []string, types map[string]string, required map[string]bool) {
	types, required = map[string]string{}, map[string]bool{}
	props, _ := lookup(f.Parameters, "properties").(bfcl.Object)
	for _, p := range props {
		po, _ := p.Value.(bfcl.Object)
		t, _ := lookup(po, "type").(string)
		names, types[p.Key] = append(names, p.Key), t
	}
	req, _ := lookup(f.Parameters, "required").([]any)
	for _, r := range req {
		if s, ok := r.(string); ok {
			required[s] = true
		}
	}
	return names, types, required
}

// plausible is a value of BFCL type t.
func plausible(t string) any {
	switch strings.ToLower(t) {
	case "integer":
		return json.Number("1")
	case "float", "number":
		return json.Number("1.5")
	case "boolean", "bool":
		return true
	case "array", "tuple", "list":
		return []any{}
	case "dict", "object":
		return bfcl.Object{}
	}
	return "Lisbon"
}
