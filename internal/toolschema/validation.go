package toolschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// jsonschema-go words a failed validation with Go's %v of the values it
// names: map[k:v] for an object, a string without its quotes (so "5" reads as
// 5), <invalid reflect.Value> for null, 0/1 and 1.000000 for numbers, and
// <anonymous schema> for each choice of an anyOf. Those messages reach users
// (a suite's check, a trial's invalid_args detail); ExplainValidation
// rewrites them with JSON values, keeping jsonschema-go's structure
// ("validating root: validating /properties/query: type: ...").

// validationError is a validation error reworded by ExplainValidation; it
// unwraps to jsonschema-go's.
type validationError struct {
	msg string
	err error
}

func (e *validationError) Error() string { return e.msg }
func (e *validationError) Unwrap() error { return e.err }

var (
	typeMsgRE     = regexp.MustCompile(`(?s)(^|: |\n)type: (.*?) has type "(null|boolean|object|array|number|integer|string)", want `)
	enumMsgRE     = regexp.MustCompile(`(?m)(^|: )enum: (.*?) does not equal any of: .*$`)
	constMsgRE    = regexp.MustCompile(`(?m)(^|: )const: (.*?) does not equal .*$`)
	boundMsgRE    = regexp.MustCompile(`(?m)(^|: )(minimum|maximum|exclusiveMinimum|exclusiveMaximum|multipleOf): (\S+) is (.*) (\S+)$`)
	choicesMsgRE  = regexp.MustCompile(`(?m)(^|: )(anyOf|oneOf): did not validate against any of \[[^\n]*\]`)
	bothMsgRE     = regexp.MustCompile(`(?m)(^|: )oneOf: validated against both .*$`)
	notMsgRE      = regexp.MustCompile(`(?m)(^|: )not: validated against .*$`)
	containsMsgRE = regexp.MustCompile(`(?m)(^|: )contains: (.*?) does not have an item matching .*$`)
	schemaPathRE  = regexp.MustCompile(`validating (\S+?)(?:: |$)`)
)

// ExplainValidation returns err, the error of rs.Validate(instance), worded
// with JSON values (nil stays nil).
func ExplainValidation(err error, rs *jsonschema.Resolved, instance any) error {
	if err == nil {
		return nil
	}
	x := explainer{msg: err.Error(), instance: instance, rs: rs}
	msg := x.explain()
	if msg == err.Error() {
		return err
	}
	return &validationError{msg: msg, err: err}
}

type explainer struct {
	msg      string
	instance any
	rs       *jsonschema.Resolved
	doc      any // the root schema as JSON, decoded when first needed
}

func (x *explainer) explain() string {
	s := x.msg
	s = replaceAll(typeMsgRE, s, func(m []string, _ int) string {
		return m[1] + "type: " + x.value(m[2], m[3]) + ` has type "` + m[3] + `", want `
	})
	s = replaceAll(enumMsgRE, s, func(m []string, at int) string {
		allowed := "the values its schema allows"
		if list, ok := x.keyword(s[:at], "enum").([]any); ok && len(list) > 0 {
			allowed = joinJSON(list)
		}
		return m[1] + "enum: " + x.value(m[2], "") + " is not one of " + allowed
	})
	s = replaceAll(constMsgRE, s, func(m []string, at int) string {
		want := "its schema's constant"
		if c := x.keyword(s[:at], "const"); c != nil {
			want = toJSON(c)
		}
		return m[1] + "const: " + x.value(m[2], "") + " does not equal " + want
	})
	s = replaceAll(boundMsgRE, s, func(m []string, _ int) string {
		return m[1] + m[2] + ": " + number(m[3]) + " is " + m[4] + " " + number(m[5])
	})
	s = replaceAll(choicesMsgRE, s, func(m []string, at int) string {
		n := "its choices"
		if list, ok := x.keyword(s[:at], m[2]).([]any); ok {
			n = fmt.Sprintf("its %d choices", len(list))
		}
		return m[1] + m[2] + ": did not validate against any of " + n
	})
	s = bothMsgRE.ReplaceAllString(s, "${1}oneOf: validated against more than one of its choices")
	s = notMsgRE.ReplaceAllString(s, "${1}not: validated against the schema it must not")
	s = replaceAll(containsMsgRE, s, func(m []string, _ int) string {
		return m[1] + "contains: " + x.value(m[2], "array") + ` has no item that its "contains" schema allows`
	})
	return strings.ReplaceAll(s, "<invalid reflect.Value>", "null")
}

// replaceAll replaces each match of re in s with f's text, which gets the
// submatches and the match's offset in s.
func replaceAll(re *regexp.Regexp, s string, f func(m []string, at int) string) string {
	var b strings.Builder
	last := 0
	for _, loc := range re.FindAllStringSubmatchIndex(s, -1) {
		m := make([]string, len(loc)/2)
		for i := range m {
			if loc[2*i] >= 0 {
				m[i] = s[loc[2*i]:loc[2*i+1]]
			}
		}
		b.WriteString(s[last:loc[0]])
		b.WriteString(f(m, loc[0]))
		last = loc[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// value is the JSON of the value of the instance that Go's %v prints as
// printed (and whose JSON type is typ, when given): the first such value in a
// walk of the instance, or printed itself when none is.
func (x *explainer) value(printed, typ string) string {
	if printed == "<invalid reflect.Value>" {
		return "null"
	}
	var found any
	ok := false
	var walk func(v any)
	walk = func(v any) {
		if ok {
			return
		}
		if fmt.Sprint(v) == printed && (typ == "" || jsonType(v) == typ) {
			found, ok = v, true
			return
		}
		switch v := v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(v)) {
				walk(v[k])
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(x.instance)
	if !ok {
		return printed
	}
	return toJSON(found)
}

// keyword returns the value of keyword in the schema that the last
// "validating PATH: " of before names, PATH being a JSON pointer into the
// root schema; nil when there is none.
func (x *explainer) keyword(before, keyword string) any {
	paths := schemaPathRE.FindAllStringSubmatch(before, -1)
	if len(paths) == 0 || x.rs == nil {
		return nil
	}
	if x.doc == nil {
		data, err := json.Marshal(x.rs.Schema())
		if err != nil || json.Unmarshal(data, &x.doc) != nil {
			return nil
		}
	}
	path := paths[len(paths)-1][1]
	if path == "root" {
		path = ""
	}
	cur := pointer(x.doc, path)
	m, _ := cur.(map[string]any)
	return m[keyword]
}

// number rewrites a number as jsonschema-go prints it (a big.Rat as 0/1, a
// float64 as 1.000000) the way JSON writes it.
func number(s string) string {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return s
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func jsonType(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		if v == float64(int64(v)) {
			return "integer"
		}
		return "number"
	case json.Number:
		if _, err := v.Int64(); err == nil {
			return "integer"
		}
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return ""
}

// toJSON writes v as JSON, with <, > and & as they are.
func toJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func joinJSON(list []any) string {
	parts := make([]string, len(list))
	for i, v := range list {
		parts[i] = toJSON(v)
	}
	return strings.Join(parts, ", ")
}
