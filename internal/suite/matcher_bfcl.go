package suite

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// MatchBFCL is the Berkeley Function-Calling Leaderboard's check of one
// parameter, written {bfcl: [accepted, ...], type: T}: see BFCLSpec.
const MatchBFCL MatcherKind = "bfcl"

// BFCL languages: how a parameter's value is read before it is checked.
const (
	BFCLPython     = "python"
	BFCLJava       = "java"
	BFCLJavaScript = "javascript"
)

// BFCLSpec is one parameter's expectation as BFCL's AST checker
// (bfcl_eval/eval_checker/ast_eval/ast_checker.py, simple_function_checker)
// judges it, so a case imported from BFCL passes exactly when BFCL would
// call the model's value valid.
type BFCLSpec struct {
	// Accepted are the possible answer's values for the parameter, as BFCL
	// writes them (int64, float64, string, bool, nil, []any, map[string]any):
	// "" among them means the parameter may be left out.
	Accepted []any
	// Type is the parameter's BFCL type as the function document gives it:
	// string, integer, float, boolean, array, tuple, dict, any for Python;
	// Java's and JavaScript's scalar type names with Lang. Empty: the type
	// of the first accepted value other than "".
	Type string
	// Items is the element type of an array or tuple; empty when the
	// function document gives none.
	Items string
	// Lang is BFCLPython (empty), BFCLJava or BFCLJavaScript: Java and
	// JavaScript values arrive as strings and are converted first, as BFCL's
	// java_type_converter and js_type_converter do.
	Lang string
	// Required is set for a parameter the function requires: leaving it out
	// is invalid even when "" is accepted (simple_function_checker checks
	// required parameters first).
	Required bool
}

// bfclTypes are the Python types BFCL's PYTHON_TYPE_MAPPING (ast_checker.py)
// checks each parameter type against; "list" stands for Python's list,
// "dict" for dict, "str", "int", "float", "bool".
var bfclTypes = map[string]map[string]string{
	BFCLPython: {"string": "str", "integer": "int", "float": "float", "boolean": "bool",
		"array": "list", "tuple": "list", "dict": "dict", "any": "str"},
	// JAVA_TYPE_CONVERSION (bfcl_eval/constants/type_mappings.py), less the
	// collections, which toolgrade does not convert.
	BFCLJava: {"byte": "int", "short": "int", "integer": "int", "float": "float", "double": "float",
		"long": "int", "boolean": "bool", "char": "str", "String": "str", "any": "str"},
	// JS_TYPE_CONVERSION, less dict and array.
	BFCLJavaScript: {"String": "str", "integer": "int", "float": "float", "Bigint": "int",
		"Boolean": "bool", "any": "str"},
}

// BFCLTypeKnown reports whether toolgrade can check values of BFCL type t in
// language lang (BFCLPython when empty).
func BFCLTypeKnown(lang, t string) bool {
	if lang == "" {
		lang = BFCLPython
	}
	_, ok := bfclTypes[lang][t]
	return ok
}

// match is simple_function_checker's check of one parameter, from the type
// conversion to the comparison with the accepted values.
func (b *BFCLSpec) match(v any, present bool) (bool, string) {
	errType, why := b.Check(v, present)
	return errType == "", why
}

// Check is match with BFCL's error_type for a value it refuses
// (simple_function_checker:missing_required, type_error:simple,
// value_error:string, ...); "" when the value is accepted.
func (b *BFCLSpec) Check(v any, present bool) (errType, why string) {
	if !present {
		switch {
		case b.Required:
			return "simple_function_checker:missing_required", "missing required parameter"
		case !slices.ContainsFunc(b.Accepted, isEmptyString):
			return "simple_function_checker:missing_optional", `missing, and not marked optional ("" not accepted)`
		}
		return "", ""
	}
	lang := b.Lang
	if lang == "" {
		lang = BFCLPython
	}
	want := b.typeName()
	expected := bfclTypes[lang][want]
	if lang != BFCLPython {
		s, ok := v.(string)
		if !ok {
			return "type_error:" + map[string]string{BFCLJava: "java", BFCLJavaScript: "js"}[lang],
				fmt.Sprintf("got %s, want a %s in string representation (BFCL type_error:%s)", Flow(v), want, lang)
		}
		v = convertBFCL(lang, want, s)
	}
	if lang == BFCLPython && want == "float" && pyType(v) == "int" {
		// "Allow python auto conversion from int to float".
		f, _ := toFloat(v)
		v = f
	}
	isVariable, ok, why := b.typeCheck(v, expected)
	if !ok {
		if strings.Contains(why, "type_error:nested") {
			return "type_error:nested", why
		}
		return "type_error:simple", why
	}
	if !isVariable {
		if errType, why, done := b.checkKind(v, expected); done {
			return errType, why
		}
	}
	if !slices.ContainsFunc(b.Accepted, func(w any) bool { return pyEqual(v, w) }) {
		return "value_error:others", fmt.Sprintf("got %s, want one of %s", Flow(v), Flow(b.Accepted))
	}
	return "", ""
}

// checkKind is the comparison BFCL makes for a dict, a list of dicts, a
// string or a list that is not a variable; done is false for the other
// types, which are compared as values.
func (b *BFCLSpec) checkKind(v any, expected string) (errType, why string, done bool) {
	var ok bool
	switch {
	case expected == "dict":
		ok, why = dictChecker(v.(map[string]any), b.Accepted)
		errType = "value_error:dict_value"
		if strings.Contains(why, "dict_key") {
			errType = "value_error:dict_key"
		}
	case expected == "list" && bfclTypes[BFCLPython][b.Items] == "dict":
		ok, why = listDictChecker(v.([]any), b.Accepted)
		errType = "value_error:list_dict"
	case expected == "str":
		ok, why = stringChecker(v.(string), b.Accepted)
		errType = "value_error:string"
	case expected == "list":
		ok, why = listChecker(v.([]any), b.Accepted)
		errType = "value_error:list/tuple"
	default:
		return "", "", false
	}
	if ok {
		return "", "", true
	}
	return errType, why, true
}

// typeCheck is BFCL's type_checker: the value has the parameter's type, or
// the type of the accepted values (a "variable": an accepted value of
// another type than the parameter's, compared as is). For an array with an
// element type, every element must have it (one level deep, as BFCL).
func (b *BFCLSpec) typeCheck(v any, expected string) (isVariable, ok bool, why string) {
	acceptedType := answerType(b.Accepted)
	if acceptedType != "" && acceptedType != expected {
		isVariable = true
	}
	got := pyType(v)
	if got == expected {
		nested := bfclTypes[BFCLPython][b.Items]
		if expected != "list" || nested == "" {
			return isVariable, true, ""
		}
		for _, w := range b.Accepted {
			wl, isList := w.([]any)
			if !isList {
				// BFCL's loop lets a non-list accepted value ("") pass the
				// nested check.
				return isVariable, true, ""
			}
			elemType := answerType(wl)
			fits := true
			for _, e := range v.([]any) {
				if t := pyType(e); t != nested && t != elemType {
					fits = false
					break
				}
			}
			if fits {
				return isVariable, true, ""
			}
		}
		return isVariable, false, fmt.Sprintf("got %s, want a list of %s (BFCL type_error:nested)", Flow(v), b.Items)
	}
	if acceptedType != "" && got == acceptedType {
		return true, true, ""
	}
	return isVariable, false, fmt.Sprintf("got %s (%s), want type %s (BFCL type_error:simple)", Flow(v), got, b.typeName())
}

func (b *BFCLSpec) typeName() string {
	if b.Type == "" {
		return inferBFCLType(b.Accepted)
	}
	return b.Type
}

// stringChecker is BFCL's string_checker: equal to an accepted string after
// StandardizeString.
func stringChecker(v string, accepted []any) (bool, string) {
	s := StandardizeString(v)
	for _, w := range accepted {
		if ws, ok := w.(string); ok && StandardizeString(ws) == s {
			return true, ""
		}
	}
	return false, fmt.Sprintf("got %s, want one of %s (BFCL standardize_string)", Flow(v), Flow(accepted))
}

// listChecker is BFCL's list_checker: equal, in order, to one accepted
// list, the strings among the top-level elements of both compared after
// StandardizeString.
func listChecker(v []any, accepted []any) (bool, string) {
	got := standardizeList(v)
	for _, w := range accepted {
		wl, ok := w.([]any)
		if isEmptyString(w) {
			// BFCL standardizes each accepted value element by element,
			// so "" becomes the empty list.
			wl, ok = []any{}, true
		}
		if ok && pyEqual(got, standardizeList(wl)) {
			return true, ""
		}
	}
	return false, fmt.Sprintf("got %s, want one of %s (lists in order)", Flow(v), Flow(accepted))
}

func standardizeList(l []any) []any {
	out := make([]any, len(l))
	for i, e := range l {
		if s, ok := e.(string); ok {
			e = StandardizeString(s)
		}
		out[i] = e
	}
	return out
}

// dictChecker is BFCL's dict_checker: for one accepted dictionary (each key
// with its own list of accepted values, "" meaning it may be left out) every
// key the model sent is known and has an accepted value, strings compared
// after StandardizeString, and no key without "" is missing.
func dictChecker(v map[string]any, accepted []any) (bool, string) {
	why := fmt.Sprintf("got %s, want one of %s", Flow(v), Flow(accepted))
	for _, w := range accepted {
		wd, ok := w.(map[string]any)
		if !ok {
			continue // "" and anything else not a dictionary
		}
		if ok, reason := dictMatches(v, wd); ok {
			return true, ""
		} else {
			why = reason
		}
	}
	return false, why
}

func dictMatches(v, want map[string]any) (bool, string) {
	for _, k := range sortedKeys(v) {
		vals, known := want[k]
		if !known {
			return false, fmt.Sprintf("unexpected dict key %s (BFCL value_error:dict_key)", Flow(k))
		}
		got := v[k]
		if s, ok := got.(string); ok {
			got = StandardizeString(s)
		}
		list, _ := vals.([]any)
		if !slices.ContainsFunc(list, func(w any) bool {
			if s, ok := w.(string); ok {
				w = StandardizeString(s)
			}
			return pyEqual(got, w)
		}) {
			return false, fmt.Sprintf("dict key %s: got %s, want one of %s (BFCL value_error:dict_value)", Flow(k), Flow(v[k]), Flow(list))
		}
	}
	for _, k := range sortedKeys(want) {
		if _, sent := v[k]; !sent {
			list, _ := want[k].([]any)
			if !slices.ContainsFunc(list, isEmptyString) {
				return false, fmt.Sprintf("missing dict key %s (BFCL value_error:dict_key)", Flow(k))
			}
		}
	}
	return true, ""
}

// listDictChecker is BFCL's list_dict_checker: as many dictionaries as one
// accepted list has, each matching its counterpart by dictChecker.
func listDictChecker(v []any, accepted []any) (bool, string) {
	why := fmt.Sprintf("got %s, want one of %s", Flow(v), Flow(accepted))
	for _, w := range accepted {
		wl, ok := w.([]any)
		if isEmptyString(w) {
			// len("") is 0 to BFCL: an empty list matches it.
			wl, ok = []any{}, true
		}
		if !ok {
			continue
		}
		if len(wl) != len(v) {
			why = fmt.Sprintf("got %d dictionaries, want %d (BFCL value_error:list_dict_count)", len(v), len(wl))
			continue
		}
		all := true
		for i := range v {
			vd, okV := v[i].(map[string]any)
			if !okV {
				all, why = false, fmt.Sprintf("element %d is %s, not a dictionary", i, Flow(v[i]))
				break
			}
			if ok, reason := dictChecker(vd, []any{wl[i]}); !ok {
				all, why = false, fmt.Sprintf("element %d: %s", i, reason)
				break
			}
		}
		if all {
			return true, ""
		}
	}
	return false, why
}

// bfclStrip is the character class BFCL's standardize_string removes.
var bfclStrip = regexp.MustCompile(`[ ,./\-_*^]`)

// StandardizeString is BFCL's standardize_string (ast_checker.py): the
// characters space , . / - _ * ^ removed, lower-cased, single quotes turned
// into double quotes. Unlike Normalize (defaults.normalize_strings), it
// keeps other whitespace and punctuation.
func StandardizeString(s string) string {
	return strings.ReplaceAll(strings.ToLower(bfclStrip.ReplaceAllString(s, "")), "'", `"`)
}

// pyType is the Python type name BFCL's checker sees for a value decoded
// from JSON: a number is an int when written without fraction or exponent.
func pyType(v any) string {
	switch x := v.(type) {
	case nil:
		return "NoneType"
	case string:
		return "str"
	case bool:
		return "bool"
	case []any:
		return "list"
	case map[string]any:
		return "dict"
	case json.Number:
		if _, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return "int"
		}
		return "float"
	case float64, float32:
		return "float"
	}
	if _, ok := numeric(v); ok {
		return "int"
	}
	return ""
}

// inferBFCLType names the BFCL type of the first accepted value other than
// "", for a spec written without type.
func inferBFCLType(accepted []any) string {
	switch answerType(accepted) {
	case "int":
		return "integer"
	case "float":
		return "float"
	case "bool":
		return "boolean"
	case "list":
		return "array"
	case "dict":
		return "dict"
	}
	return "string"
}

// answerType is BFCL's get_possible_answer_type: the Python type of the
// first accepted value other than "" (None's is NoneType), or "" when every
// accepted value is "".
func answerType(accepted []any) string {
	for _, w := range accepted {
		if !isEmptyString(w) {
			return pyType(w)
		}
	}
	return ""
}

func isEmptyString(v any) bool {
	s, ok := v.(string)
	return ok && s == ""
}

// pyEqual is Python's ==, which BFCL's `in` tests use: numbers and booleans
// by value (True == 1, 5 == 5.0), lists in order, dictionaries key by key.
func pyEqual(a, b any) bool {
	if an, ok := pyNumber(a); ok {
		bn, ok := pyNumber(b)
		return ok && an.equal(bn)
	}
	switch x := a.(type) {
	case nil:
		return b == nil
	case string:
		y, ok := b.(string)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !pyEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !pyEqual(xv, yv) {
				return false
			}
		}
		return true
	}
	return false
}

func pyNumber(v any) (number, bool) {
	if b, ok := v.(bool); ok {
		if b {
			return number{isInt: true, i: 1}, true
		}
		return number{isInt: true}, true
	}
	return numeric(v)
}

var (
	javaInt    = regexp.MustCompile(`^-?\d+$`)
	javaFloat  = regexp.MustCompile(`^-?\d+(\.\d+)?([eE][+-]?\d+)?[fF]$`)
	javaDouble = regexp.MustCompile(`^-?\d+(\.\d+)?([eE][+-]?\d+)?$`)
	javaLong   = regexp.MustCompile(`^-?\d+[lL]$`)
	jsFloat    = regexp.MustCompile(`^-?\d+(\.\d+)?$`)
	jsBigint   = regexp.MustCompile(`^-?\d+n$`)
)

// convertBFCL is java_type_converter and js_type_converter for the scalar
// types: a string that does not parse as the type stays the string (and
// then fails the type check, as in BFCL).
func convertBFCL(lang, t, s string) any {
	parseInt := func(text string) any {
		if i, err := strconv.ParseInt(text, 10, 64); err == nil {
			return i
		}
		return s
	}
	parseFloat := func(text string) any {
		if f, err := strconv.ParseFloat(text, 64); err == nil {
			return f
		}
		return s
	}
	if lang == BFCLJava {
		switch t {
		case "byte", "short", "integer":
			if javaInt.MatchString(s) {
				return parseInt(s)
			}
		case "float":
			if javaFloat.MatchString(s) {
				return parseFloat(s[:len(s)-1])
			}
		case "double":
			if javaDouble.MatchString(s) {
				return parseFloat(s)
			}
		case "long":
			if javaLong.MatchString(s) {
				return parseInt(s[:len(s)-1])
			}
		case "boolean":
			if s == "true" || s == "false" {
				return s == "true"
			}
		}
		return s
	}
	switch t {
	case "String":
		if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\'') {
			return s[1 : len(s)-1]
		}
	case "integer":
		if javaInt.MatchString(s) {
			return parseInt(s)
		}
	case "float":
		if jsFloat.MatchString(s) {
			return parseFloat(s)
		}
	case "Bigint":
		if jsBigint.MatchString(s) {
			return parseInt(s[:len(s)-1])
		}
	case "Boolean":
		if s == "true" || s == "false" {
			return s == "true"
		}
	}
	return s
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// String shows the spec the way a suite writes it.
func (b *BFCLSpec) String() string {
	var parts []string
	parts = append(parts, "bfcl: "+Flow(b.Accepted))
	if b.Type != "" {
		parts = append(parts, "type: "+b.Type)
	}
	if b.Items != "" {
		parts = append(parts, "items: "+b.Items)
	}
	if b.Lang != "" && b.Lang != BFCLPython {
		parts = append(parts, "lang: "+b.Lang)
	}
	if b.Required {
		parts = append(parts, "required: true")
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// CheckBFCL is m's check of one parameter as BFCL's checker makes it, with
// BFCL's error_type when it fails ("" when it passes): a bfcl matcher by
// BFCLSpec.Check, an absent one as a parameter the function does not
// define (simple_function_checker:unexpected_param), any other kind (a case
// edited by hand) by Match, its failure a value_error:others.
func (m ArgMatcher) CheckBFCL(v any, present bool) (errType, why string) {
	switch m.Kind {
	case MatchBFCL:
		return m.BFCL.Check(v, present)
	case MatchAbsent:
		if present {
			return "simple_function_checker:unexpected_param", "the function does not define it"
		}
		return "", ""
	}
	if ok, why := m.Match(v, present, MatchOptions{}); !ok {
		if !present {
			return "simple_function_checker:missing_optional", why
		}
		return "value_error:others", why
	}
	return "", ""
}
