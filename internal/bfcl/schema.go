package bfcl

import (
	"fmt"

	"github.com/toolgrade/toolgrade/internal/pyjson"
)

// gorillaToOpenAPI is BFCL's GORILLA_TO_OPENAPI
// (bfcl_eval/constants/type_mappings.py): the JSON Schema type its
// function-calling handlers send for each BFCL type. any becomes string, as
// there (the checker, too, wants a string for any).
var gorillaToOpenAPI = map[string]string{
	"integer": "integer", "number": "number", "float": "number", "string": "string",
	"boolean": "boolean", "bool": "boolean", "array": "array", "list": "array",
	"dict": "object", "object": "object", "tuple": "array", "any": "string",
	"byte": "integer", "short": "integer", "long": "integer", "double": "number",
	"char": "string", "ArrayList": "array", "Array": "array", "HashMap": "object",
	"Hashtable": "object", "Queue": "array", "Stack": "array", "Any": "string",
	"String": "string", "Bigint": "integer",
}

// ToolName maps a BFCL function name to the name the model sees: every "."
// becomes "_", as convert_to_tool (bfcl_eval/model_handler/utils.py) does
// for the function-calling models whose APIs refuse dots (OpenAI's
// ^[a-zA-Z0-9_-]{1,64}$, which convert_func_name quotes), and as
// convert_func_name maps the expected name before comparing. Ollama
// accepts dots, but toolgrade maps them as BFCL does so that a model meets
// the names BFCL's function-calling runs show it; nothing else is changed,
// as BFCL changes nothing else.
func ToolName(name string) string {
	out := []byte(name)
	for i, c := range out {
		if c == '.' {
			out[i] = '_'
		}
	}
	return string(out)
}

// Hint is the sentence func_doc_language_specific_pre_processing appends to
// every function description (bfcl_eval/utils.py; earlier versions keep it
// in model_handler/utils.py and call it from each function-calling
// handler's _compile_tools), Python's included.
func Hint(lang string) string {
	switch lang {
	case "java":
		return " Note that the provided function is in Java 8 SDK syntax."
	case "javascript":
		return " Note that the provided function is in JavaScript syntax."
	}
	return " Note that the provided function is in Python 3 syntax."
}

// Schema returns the JSON Schema parameters BFCL's function-calling
// handlers send for f: func_doc_language_specific_pre_processing (Java and
// JavaScript parameters become strings, their type named in the
// description), then convert_to_tool and _cast_to_openai_type (type
// object; each BFCL type mapped by GORILLA_TO_OPENAPI, a property without
// type a string, a float one with format float and " This is a float type
// value." added to its description; array items and object properties
// likewise, recursively). A type BFCL's table does not know is an error
// (BFCL's handlers would send it as a string). Keys other than type keep
// their order and values.
func Schema(f Function, lang string) (Object, error) {
	props, _ := get[Object](f.Parameters, "properties")
	if lang != "python" {
		props = languageProps(props, lang)
	}
	cast, err := castProps(props, "properties")
	if err != nil {
		return nil, err
	}
	out := Object{{Key: "type", Value: "object"}}
	for _, m := range f.Parameters {
		switch m.Key {
		case "type":
		case "properties":
			out = append(out, Member{Key: "properties", Value: cast})
		default:
			out = append(out, m)
		}
	}
	if _, ok := out.Get("properties"); !ok {
		out = append(out, Member{Key: "properties", Value: Object{}})
	}
	return out, nil
}

// languageProps is the Java and JavaScript half of
// func_doc_language_specific_pre_processing: every parameter becomes a
// string whose description names its type.
func languageProps(props Object, lang string) Object {
	langName := map[string]string{"java": "Java", "javascript": "JavaScript"}[lang]
	out := make(Object, 0, len(props))
	for _, p := range props {
		po, ok := p.Value.(Object)
		if !ok {
			out = append(out, p)
			continue
		}
		t, _ := get[string](po, "type")
		desc, _ := get[string](po, "description")
		if t == "any" {
			desc += " This parameter can be of any type of " + langName + " object in string representation."
		} else {
			desc += " This is " + langName + " " + t + " type parameter in string representation."
		}
		items, _ := get[Object](po, "items")
		itemType, _ := get[string](items, "type")
		if (lang == "java" && (t == "ArrayList" || t == "Array")) || (lang == "javascript" && t == "array") {
			desc += " The list elements are of type " + itemType + "; they are not in string representation."
		}
		dictProps, hasProps := get[Object](po, "properties")
		if lang == "javascript" && t == "dict" && hasProps {
			desc += " The dictionary entries have the following schema; they are not in string representation. " + pyJSON(dictProps)
		}
		np := Object{}
		for _, m := range po {
			switch {
			case m.Key == "description":
			case m.Key == "items" && (t == "ArrayList" || t == "Array" || (lang == "javascript" && t == "array")):
			case m.Key == "properties" && lang == "javascript" && t == "dict":
			case m.Key == "type":
				np = append(np, Member{Key: "type", Value: "string"})
			default:
				np = append(np, m)
			}
		}
		np = setKey(np, "description", desc)
		out = append(out, Member{Key: p.Key, Value: np})
	}
	return out
}

// castProps is _cast_to_openai_type over one properties object.
func castProps(props Object, path string) (Object, error) {
	out := make(Object, 0, len(props))
	for _, p := range props {
		po, ok := p.Value.(Object)
		field := path + "." + p.Key
		if !ok {
			return nil, fmt.Errorf("%s: must be an object", field)
		}
		cp, err := castProp(po, field)
		if err != nil {
			return nil, err
		}
		out = append(out, Member{Key: p.Key, Value: cp})
	}
	return out, nil
}

func castProp(po Object, field string) (Object, error) {
	t, hasType := get[string](po, "type")
	mapped := "string"
	if hasType {
		m, ok := gorillaToOpenAPI[t]
		if !ok {
			return nil, fmt.Errorf("%s: unknown type %q (BFCL's table GORILLA_TO_OPENAPI has no such type)", field, t)
		}
		mapped = m
	}
	out := make(Object, 0, len(po)+1)
	for _, m := range po {
		switch m.Key {
		case "type":
			out = append(out, Member{Key: "type", Value: mapped})
		case "description":
			d, _ := m.Value.(string)
			if t == "float" {
				d += " This is a float type value."
			}
			out = append(out, Member{Key: "description", Value: d})
		case "properties":
			sub, ok := m.Value.(Object)
			if !ok || (mapped != "array" && mapped != "object") {
				out = append(out, m)
				continue
			}
			cast, err := castProps(sub, field+".properties")
			if err != nil {
				return nil, err
			}
			out = append(out, Member{Key: "properties", Value: cast})
		case "items":
			items, ok := m.Value.(Object)
			_, hasProps := po.Get("properties")
			if !ok || hasProps || (mapped != "array" && mapped != "object") {
				out = append(out, m)
				continue
			}
			cast, err := castItems(items, field+".items")
			if err != nil {
				return nil, err
			}
			out = append(out, Member{Key: "items", Value: cast})
		default:
			out = append(out, m)
		}
	}
	if !hasType {
		out = append(Object{{Key: "type", Value: "string"}}, out...)
	}
	if t == "float" {
		if _, ok := out.Get("description"); !ok {
			out = append(out, Member{Key: "description", Value: " This is a float type value."})
		}
		out = setKey(out, "format", "float")
	}
	return out, nil
}

// castItems is _cast_to_openai_type's handling of an array's items: only
// the type is mapped (no float format), one level further for a list of
// lists, and an object's properties are cast in full.
func castItems(items Object, field string) (Object, error) {
	t, _ := get[string](items, "type")
	mapped, ok := gorillaToOpenAPI[t]
	if !ok {
		return nil, fmt.Errorf("%s: unknown type %q (BFCL's table GORILLA_TO_OPENAPI has no such type)", field, t)
	}
	out := make(Object, 0, len(items))
	for _, m := range items {
		switch {
		case m.Key == "type":
			out = append(out, Member{Key: "type", Value: mapped})
		case m.Key == "items" && mapped == "array":
			inner, isObj := m.Value.(Object)
			it, _ := get[string](inner, "type")
			im, known := gorillaToOpenAPI[it]
			if !isObj || !known {
				return nil, fmt.Errorf("%s.items: unknown type %q (BFCL's table GORILLA_TO_OPENAPI has no such type)", field, it)
			}
			out = append(out, Member{Key: "items", Value: setKey(append(Object(nil), inner...), "type", im)})
		case m.Key == "properties" && mapped == "object":
			sub, isObj := m.Value.(Object)
			if !isObj {
				out = append(out, m)
				continue
			}
			cast, err := castProps(sub, field+".properties")
			if err != nil {
				return nil, err
			}
			out = append(out, Member{Key: "properties", Value: cast})
		default:
			out = append(out, m)
		}
	}
	return out, nil
}

// setKey sets key in o, in place when present, else at the end.
func setKey(o Object, key string, v any) Object {
	for i := range o {
		if o[i].Key == key {
			o[i].Value = v
			return o
		}
	}
	return append(o, Member{Key: key, Value: v})
}

// pyJSON writes v as Python's json.dumps does with its defaults (the
// form BFCL puts into descriptions): ", " and ": " between items, non-ASCII
// characters as \uXXXX, keys in order. v is decoded JSON, which pyjson
// always writes.
func pyJSON(v any) string {
	s, _ := pyjson.Dumps(v, nil)
	return s
}
