package bfcl

import (
	"bufio"
	"bytes"
	"fmt"
	"io"

	"github.com/toolgrade/toolgrade/internal/srcpos"
)

// Question is one entry of a BFCL question file (BFCL_v3_*.json,
// BFCL_v4_*.json: JSON Lines of {id, question, function}).
type Question struct {
	// ID is BFCL's id, e.g. simple_0 or live_multiple_3-1-0; it names the
	// category (see CategoryOf).
	ID string
	// Pos is the entry's line.
	Pos srcpos.Pos
	// Messages are the conversation's messages: BFCL's question holds a
	// list of turns, and the single-turn categories have exactly one.
	Messages []Message
	// Functions are the function documents offered with the question.
	Functions []Function
}

// Message is one message of a question.
type Message struct {
	Role, Content string
}

// Function is one BFCL function document: its parameters keep BFCL's
// types (dict, float, tuple, any, Java's and JavaScript's names).
type Function struct {
	Name, Description string
	// Parameters is the parameters object as written ({type: dict,
	// properties: {...}, required: [...]}), keys in file order.
	Parameters Object
}

// Answer is one entry of a possible-answer file (possible_answer/*.json:
// {id, ground_truth}).
type Answer struct {
	ID  string
	Pos srcpos.Pos
	// Calls are the ground truth's calls, in order: each a function name
	// with, per parameter, the list of accepted values.
	Calls []Call
}

// Call is one call of a ground truth.
type Call struct {
	Name string
	// Params are the parameters in file order, each with its accepted
	// values ("" among them: it may be left out).
	Params []Param
}

// Param is one parameter of a ground-truth call.
type Param struct {
	Name     string
	Accepted []any
}

// maxLine bounds one line of a BFCL file; the largest entries (live
// categories with many long function documents) stay far below it.
const maxLine = 64 << 20

// lines calls fn with each non-blank line of r and its number.
func lines(r io.Reader, fn func(n int, line []byte)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	n := 0
	for sc.Scan() {
		n++
		if line := bytes.TrimSpace(sc.Bytes()); len(line) > 0 {
			fn(n, line)
		}
	}
	return sc.Err()
}

// ReadQuestions reads a question file; file names it in errors. Every
// problem is reported (a srcpos.List), each at its file:line(:col).
func ReadQuestions(r io.Reader, file string) ([]Question, error) {
	var out []Question
	var errs srcpos.List
	wrongFile := false
	err := lines(r, func(n int, line []byte) {
		pos := srcpos.Pos{File: file, Line: n}
		obj, ok := entry(line, pos, &errs)
		if !ok || wrongFile {
			return
		}
		q := Question{Pos: pos}
		q.ID, ok = idOf(obj, pos, &errs)
		if !ok {
			return
		}
		if _, isAnswer := obj.Get("ground_truth"); isAnswer {
			if _, isQuestion := obj.Get("question"); !isQuestion {
				wrongFile = true
				errs.Add(pos, q.ID, "a possible answer (it has ground_truth), not a question: give this file after --answers (--answers FILE, once per file)")
				return
			}
		}
		before := len(errs)
		q.Messages = messages(obj, pos, q.ID, &errs)
		fv, _ := obj.Get("function")
		fl, isList := fv.([]any)
		if !isList {
			errs.Add(pos, q.ID+".function", "must be a list of function documents")
		}
		for i, f := range fl {
			if fn, ok := function(f, pos, fmt.Sprintf("%s.function[%d]", q.ID, i), &errs); ok {
				q.Functions = append(q.Functions, fn)
			}
		}
		if len(errs) == before {
			out = append(out, q)
		}
	})
	if err != nil {
		errs.Add(srcpos.Pos{File: file}, "", "%v", err)
	}
	return out, errs.Err()
}

func entry(line []byte, pos srcpos.Pos, errs *srcpos.List) (Object, bool) {
	v, col, err := decodeLine(line)
	if err != nil {
		pos.Col = col
		errs.Add(pos, "", "malformed JSON: %v", err)
		return nil, false
	}
	obj, ok := v.(Object)
	if !ok {
		errs.Add(pos, "", "must be a JSON object")
	}
	return obj, ok
}

func idOf(obj Object, pos srcpos.Pos, errs *srcpos.List) (string, bool) {
	v, _ := obj.Get("id")
	id, ok := v.(string)
	if !ok || id == "" {
		errs.Add(pos, "id", "missing; every entry needs a string id")
		return "", false
	}
	return id, true
}

// messages reads question: a list of turns, each a list of messages (BFCL
// v3 and v4), of which the single-turn categories have one; a flat list of
// messages or a plain string is read too.
func messages(obj Object, pos srcpos.Pos, id string, errs *srcpos.List) []Message {
	v, _ := obj.Get("question")
	field := id + ".question"
	if s, ok := v.(string); ok && s != "" {
		return []Message{{Role: "user", Content: s}}
	}
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		errs.Add(pos, field, "must be a non-empty list of turns")
		return nil
	}
	if turn, nested := list[0].([]any); nested {
		if len(list) > 1 {
			errs.Add(pos, field, "has %d turns; only single-turn categories can be imported", len(list))
			return nil
		}
		list = turn
		field += "[0]"
	}
	var out []Message
	for i, m := range list {
		mo, ok := m.(Object)
		role, _ := get[string](mo, "role")
		content, _ := get[string](mo, "content")
		if !ok || role == "" {
			errs.Add(pos, fmt.Sprintf("%s[%d]", field, i), "must be a message {role, content}")
			continue
		}
		out = append(out, Message{Role: role, Content: content})
	}
	return out
}

func function(v any, pos srcpos.Pos, field string, errs *srcpos.List) (Function, bool) {
	obj, ok := v.(Object)
	if !ok {
		errs.Add(pos, field, "must be a function document {name, description, parameters}")
		return Function{}, false
	}
	var f Function
	f.Name, _ = get[string](obj, "name")
	if f.Name == "" {
		errs.Add(pos, field+".name", "missing")
		return f, false
	}
	f.Description, _ = get[string](obj, "description")
	f.Parameters, ok = get[Object](obj, "parameters")
	if !ok {
		errs.Add(pos, field+".parameters", "must be an object {type, properties, required}")
		return f, false
	}
	return f, true
}

// get returns obj[key] when it has type T.
func get[T any](obj Object, key string) (T, bool) {
	v, _ := obj.Get(key)
	t, ok := v.(T)
	return t, ok
}

// ReadAnswers reads a possible-answer file, keyed by id.
func ReadAnswers(r io.Reader, file string) (map[string]Answer, error) {
	out := map[string]Answer{}
	var errs srcpos.List
	err := lines(r, func(n int, line []byte) {
		pos := srcpos.Pos{File: file, Line: n}
		obj, ok := entry(line, pos, &errs)
		if !ok {
			return
		}
		a := Answer{Pos: pos}
		if a.ID, ok = idOf(obj, pos, &errs); !ok {
			return
		}
		if first, dup := out[a.ID]; dup {
			errs.Add(pos, a.ID, "duplicate id (first at line %d)", first.Pos.Line)
			return
		}
		gt, _ := obj.Get("ground_truth")
		list, ok := gt.([]any)
		if !ok || len(list) == 0 {
			errs.Add(pos, a.ID+".ground_truth", "must be a non-empty list of calls {function: {param: [accepted, ...]}}")
			return
		}
		for i, c := range list {
			field := fmt.Sprintf("%s.ground_truth[%d]", a.ID, i)
			co, ok := c.(Object)
			if !ok || len(co) != 1 {
				errs.Add(pos, field, "must be an object with one key, the function's name")
				continue
			}
			call := Call{Name: co[0].Key}
			params, ok := co[0].Value.(Object)
			if !ok {
				errs.Add(pos, field+"."+call.Name, "must be an object of parameters, each a list of accepted values")
				continue
			}
			for _, p := range params {
				acc, ok := p.Value.([]any)
				if !ok || len(acc) == 0 {
					errs.Add(pos, field+"."+call.Name+"."+p.Key, "must be a non-empty list of accepted values")
					continue
				}
				call.Params = append(call.Params, Param{Name: p.Key, Accepted: acc})
			}
			a.Calls = append(a.Calls, call)
		}
		out[a.ID] = a
	})
	if err != nil {
		errs.Add(srcpos.Pos{File: file}, "", "%v", err)
	}
	return out, errs.Err()
}
