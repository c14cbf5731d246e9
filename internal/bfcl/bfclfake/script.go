// Package bfclfake scripts the fake Ollama (fakes/ollama) to answer
// imported BFCL questions: one model with each question's ground truth, one
// with a mistake in each, so a run of an imported suite can be checked end
// to end against verdicts known in advance.
package bfclfake

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/internal/bfcl"
)

// The models of Script.
const (
	// Good answers every question as its ground truth says: the first
	// accepted value of each parameter ("" ones left out).
	Good = "bfcl-good"
	// Perturbed answers each question with one mistake: the first
	// parameter of its first call gets a value no accepted one matches
	// (BFCL: value_error; toolgrade: wrong_args); an irrelevance question
	// gets a call, a relevance one a text answer.
	Perturbed = "bfcl-perturbed"
)

// Script returns the fake Ollama script answering every question of im,
// for both models; a rule matches a question by its last user message, so
// questions must differ in it.
func Script(im *bfcl.Import) (*fakeollama.Script, error) {
	s := &fakeollama.Script{Models: []fakeollama.Model{{Name: Good}, {Name: Perturbed}}}
	seen := map[string]string{}
	for _, q := range im.Questions {
		text := q.Messages[len(q.Messages)-1].Content
		if other, dup := seen[text]; dup {
			return nil, fmt.Errorf("%s: %s asks what %s asks; the fake cannot tell them apart", q.Pos, q.ID, other)
		}
		seen[text] = q.ID
		for _, model := range []string{Good, Perturbed} {
			reply, err := Reply(q, im.Answers[q.ID], model == Perturbed)
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %v", q.Pos, q.ID, err)
			}
			s.Rules = append(s.Rules, fakeollama.Rule{Model: model, Round: 1, User: &fakeollama.Matcher{Equals: text}, Reply: reply})
		}
	}
	return s, nil
}

// Reply is the answer to q: its ground truth a, or with perturb one
// mistake (see Perturbed).
func Reply(q bfcl.Question, a bfcl.Answer, perturb bool) (fakeollama.Reply, error) {
	cat := bfcl.CategoryOf(q.ID)
	lang := bfcl.Language(cat)
	switch bfcl.KindOf(cat) {
	case bfcl.Irrelevance:
		if perturb && len(q.Functions) > 0 {
			return fakeollama.Reply{ToolCalls: []fakeollama.ToolCall{anyCall(q.Functions[0])}}, nil
		}
		return fakeollama.Reply{Content: "None of these tools can answer that."}, nil
	case bfcl.Relevance:
		if perturb {
			return fakeollama.Reply{Content: "I would rather not call a tool."}, nil
		}
		return fakeollama.Reply{ToolCalls: []fakeollama.ToolCall{anyCall(q.Functions[0])}}, nil
	}
	var calls []fakeollama.ToolCall
	for i, c := range a.Calls {
		types := paramTypes(q, c.Name)
		call := fakeollama.ToolCall{Name: bfcl.ToolName(c.Name)}
		for j, p := range c.Params {
			v, ok := firstAccepted(p.Accepted)
			if !ok {
				continue // only "" accepted: left out
			}
			if perturb && i == 0 && j == 0 {
				v = perturbValue(v)
			}
			if lang != "python" {
				v = javaLike(lang, types[p.Name], v)
			}
			call.Arguments = append(call.Arguments, fakeollama.Arg{Key: p.Name, Value: v})
		}
		calls = append(calls, call)
	}
	if len(calls) == 0 {
		return fakeollama.Reply{}, fmt.Errorf("no possible answer")
	}
	return fakeollama.Reply{ToolCalls: calls}, nil
}

// firstAccepted is the value a model right by BFCL's rules sends: the first
// accepted value other than "", with a dictionary's keys likewise (keys
// with only "" left out); ok is false when only "" is accepted.
func firstAccepted(accepted []any) (any, bool) {
	for _, w := range accepted {
		if s, ok := w.(string); ok && s == "" {
			continue
		}
		return value(w), true
	}
	return nil, false
}

// value turns an accepted value into what the model sends: numbers as Go
// numbers, a dictionary {key: [accepted]} as {key: first accepted}.
func value(w any) any {
	switch x := w.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i
		}
		f, _ := strconv.ParseFloat(string(x), 64)
		return f
	case bfcl.Object:
		m := map[string]any{}
		for _, mem := range x {
			list, _ := mem.Value.([]any)
			if v, ok := firstAccepted(list); ok {
				m[mem.Key] = v
			}
		}
		return m
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = value(e)
		}
		return out
	}
	return w
}

// perturbValue changes v so that no accepted value matches it.
func perturbValue(v any) any {
	switch x := v.(type) {
	case string:
		return x + " and more"
	case int64:
		return x + 1
	case float64:
		return x + 1.5
	case bool:
		return !x
	case []any:
		return append(append([]any(nil), x...), "extra")
	case map[string]any:
		m := map[string]any{"perturbed": true}
		for k, e := range x {
			m[k] = e
		}
		return m
	}
	return "perturbed"
}

// javaLike writes a value in the string form java_type_converter and
// js_type_converter read back: 5000L for a long, 1.5f for a Java float,
// 123n for a Bigint.
func javaLike(lang, t string, v any) any {
	s := fmt.Sprint(v)
	if f, ok := v.(float64); ok {
		s = strconv.FormatFloat(f, 'f', -1, 64)
	}
	switch {
	case lang == "java" && t == "long":
		return s + "L"
	case lang == "java" && t == "float":
		return s + "f"
	case lang == "javascript" && t == "Bigint":
		return s + "n"
	}
	return s
}

func paramTypes(q bfcl.Question, name string) map[string]string {
	out := map[string]string{}
	for _, f := range q.Functions {
		if f.Name != name {
			continue
		}
		props, _ := lookup(f.Parameters, "properties").(bfcl.Object)
		for _, p := range props {
			po, _ := p.Value.(bfcl.Object)
			t, _ := lookup(po, "type").(string)
			out[p.Key] = t
		}
	}
	return out
}

func lookup(o bfcl.Object, key string) any {
	v, _ := o.Get(key)
	return v
}

// anyCall calls f with a plausible value for each required parameter.
func anyCall(f bfcl.Function) fakeollama.ToolCall {
	call := fakeollama.ToolCall{Name: bfcl.ToolName(f.Name)}
	props, _ := lookup(f.Parameters, "properties").(bfcl.Object)
	required, _ := lookup(f.Parameters, "required").([]any)
	for _, r := range required {
		name, _ := r.(string)
		po, _ := lookup(props, name).(bfcl.Object)
		t, _ := lookup(po, "type").(string)
		var v any = "Lisbon"
		switch strings.ToLower(t) {
		case "integer", "long", "short", "byte", "bigint":
			v = int64(1)
		case "float", "double", "number":
			v = 1.5
		case "boolean", "bool":
			v = true
		case "array", "tuple", "list":
			v = []any{}
		case "dict", "object":
			v = map[string]any{}
		}
		call.Arguments = append(call.Arguments, fakeollama.Arg{Key: name, Value: v})
	}
	return call
}
