package servers

import (
	"encoding/json"
	"fmt"
	"regexp"
)

// The messages of jsonschema-go that quote the value judged, which it
// prints with Go's %v: the string "3" as 3, an object as map[k:v], null as
// <invalid reflect.Value>. The value runs to the last " has type" (or "
// does not equal"), as it is the last part of the message.
var (
	typeMsgRE  = regexp.MustCompile(`(type: )(.*)( has type "([a-z]+)", want .*)$`)
	valueMsgRE = regexp.MustCompile(`((?:enum|const): )(.*)( does not equal .*)$`)
)

// jsonValueError is a validation error whose message shows the value judged
// as JSON; it unwraps to jsonschema-go's own.
type jsonValueError struct {
	msg string
	err error
}

func (e *jsonValueError) Error() string { return e.msg }
func (e *jsonValueError) Unwrap() error { return e.err }

// withJSONValues is err, a validation error of instance (decoded JSON),
// with the value its message quotes written as JSON: found in instance as
// the value Go prints the same way, of the type the message names; err
// itself when there is none.
func withJSONValues(err error, instance any) error {
	msg := err.Error()
	m := typeMsgRE.FindStringSubmatchIndex(msg)
	var jsonType string
	if m != nil {
		jsonType = msg[m[8]:m[9]]
	} else if m = valueMsgRE.FindStringSubmatchIndex(msg); m == nil {
		return err
	}
	shown := msg[m[4]:m[5]]
	var v any
	found := jsonType == "null"
	if !found {
		v, found = findValue(instance, shown, jsonType)
	}
	if !found {
		return err
	}
	b, jerr := json.Marshal(v)
	if jerr != nil {
		return err
	}
	return &jsonValueError{msg: msg[:m[4]] + string(b) + msg[m[5]:], err: err}
}

// findValue is the first value in v, depth first, that Go's %v prints as
// shown and, unless jsonType is "", has that JSON type.
func findValue(v any, shown, jsonType string) (any, bool) {
	if fmt.Sprint(v) == shown && (jsonType == "" || jsonTypeOf(v) == jsonType) {
		return v, true
	}
	switch x := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			if got, ok := findValue(x[k], shown, jsonType); ok {
				return got, true
			}
		}
	case []any:
		for _, e := range x {
			if got, ok := findValue(e, shown, jsonType); ok {
				return got, true
			}
		}
	}
	return nil, false
}

// jsonTypeOf is the type jsonschema-go names for a decoded JSON value.
func jsonTypeOf(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case float64:
		if x == float64(int64(x)) {
			return "integer"
		}
		return "number"
	}
	return ""
}
