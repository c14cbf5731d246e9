package suite

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// validatorPath reads a JSON Schema validator's error (github.com/google/
// jsonschema-go's: "validating root: validating /properties/query: type:
// ...") into the argument path it concerns (["filter", "lang"]; an array's
// items as "[]"; nil for the whole object) and the failed keyword's own
// message ("type: ...").
func validatorPath(msg string) (path []string, kind string) {
	var deepest string
	for {
		rest, ok := strings.CutPrefix(msg, "validating ")
		if !ok {
			break
		}
		i := strings.Index(rest, ": ")
		if i < 0 {
			break
		}
		if ptr := rest[:i]; strings.HasPrefix(ptr, "/properties/") {
			deepest = ptr
		}
		msg = rest[i+2:]
	}
	segs := strings.Split(strings.TrimPrefix(deepest, "/"), "/")
	for i := 0; i+1 < len(segs) || i < len(segs) && segs[i] == "items"; i++ {
		switch segs[i] {
		case "properties":
			i++
			path = append(path, unescapePointer(segs[i]))
		case "items":
			if len(path) > 0 {
				path[len(path)-1] += "[]"
			}
		default:
			// anyOf/0, $defs/x: what follows no longer names arguments.
			return path, msg
		}
	}
	return path, msg
}

func unescapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}

// The keyword messages of jsonschema-go that words translates.
var (
	typeMsg     = regexp.MustCompile(`^type: .* has type "(\w+)", want (?:one of )?"([^"]+)"$`)
	enumMsg     = regexp.MustCompile(`^enum: .* does not equal any of: \[(.*)\]$`)
	constMsg    = regexp.MustCompile(`^const: .* does not equal (.*)$`)
	boundMsg    = regexp.MustCompile(`^(minimum|maximum|exclusiveMinimum|exclusiveMaximum): \S+ is .* than (?:or equal to )?(\S+)$`)
	lengthMsg   = regexp.MustCompile(`^(minLength|maxLength): ".*" contains (\d+) Unicode code points, (?:fewer|more) than (\d+)$`)
	itemsMsg    = regexp.MustCompile(`^(minItems|maxItems): array length (\d+) is (?:less|greater) than (\d+)$`)
	patternMsg  = regexp.MustCompile(`^pattern: ".*" does not match regular expression "(.*)"$`)
	requiredMsg = regexp.MustCompile(`^required: missing properties: \[(.*)\]$`)
	extraMsg    = regexp.MustCompile(`^unexpected additional properties \[(.*)\]$`)
)

// words says what kind, the validator's message about the value at path
// in args, means for the case, in a user's words: "must be a string, got
// an object {startswith: dog}". A message it does not know is kept, after
// the tool's name.
func (sp schemaProblems) words(path []string, kind string, args map[string]any) string {
	v, has := valueAt(args, path)
	got := ""
	if has {
		got = ", got " + shown(v)
	}
	bound := map[string]string{"minimum": "at least", "maximum": "at most", "exclusiveMinimum": "more than", "exclusiveMaximum": "less than"}
	re, m := matchAny(kind, typeMsg, enumMsg, constMsg, boundMsg, lengthMsg, itemsMsg, patternMsg, requiredMsg, extraMsg)
	switch {
	case re == nil:
	case re == typeMsg:
		wants := strings.Split(m[2], ", ")
		for i, w := range wants {
			wants[i] = article(w)
		}
		return fmt.Sprintf("must be %s, got %s", strings.Join(wants, " or "), typed(m[1], v))
	case re == enumMsg:
		return fmt.Sprintf("must be one of %s%s", strings.Join(strings.Fields(m[1]), ", "), got)
	case re == constMsg:
		return fmt.Sprintf("must be %s%s", m[1], got)
	case re == boundMsg:
		return fmt.Sprintf("must be %s %s%s", bound[m[1]], boundNumber(m[2]), got)
	case re == lengthMsg:
		least := map[string]string{"minLength": "at least", "maxLength": "at most"}[m[1]]
		return fmt.Sprintf("must be %s %s characters long%s (%s)", least, m[3], got, m[2])
	case re == itemsMsg:
		least := map[string]string{"minItems": "at least", "maxItems": "at most"}[m[1]]
		return fmt.Sprintf("must have %s %s items%s (%s)", least, m[3], got, m[2])
	case re == patternMsg:
		return fmt.Sprintf("must match the pattern %s%s", m[1], got)
	case re == requiredMsg && len(path) == 0 && sp.sent:
		return fmt.Sprintf("the arguments %s leave out %s, which the tool %s requires", Flow(args), names(m[1]), sp.call.Exposed)
	case re == requiredMsg && len(path) == 0:
		return fmt.Sprintf("the expected arguments %s leave out %s, which the tool %s requires; with strict_args they are all a passing call may send", Flow(args), names(m[1]), sp.call.Exposed)
	case re == requiredMsg:
		return fmt.Sprintf("must have %s", names(m[1]))
	case re == extraMsg && len(path) == 0:
		return fmt.Sprintf("the tool %s has no argument %s", sp.call.Exposed, names(m[1]))
	case re == extraMsg:
		return fmt.Sprintf("has no property %s", names(m[1]))
	}
	return fmt.Sprintf("does not fit the input schema of %s: %s", sp.call.Exposed, kind)
}

// matchAny is the first pattern that matches s and its submatches (the
// whole match first); nil when none does.
func matchAny(s string, res ...*regexp.Regexp) (*regexp.Regexp, []string) {
	for _, re := range res {
		if sub := re.FindStringSubmatch(s); sub != nil {
			return re, sub
		}
	}
	return nil, nil
}

// valueAt is the value at path in args; false when path leads through an
// array (or nowhere).
func valueAt(args map[string]any, path []string) (any, bool) {
	var v any = args
	for _, seg := range path {
		obj, ok := v.(map[string]any)
		if !ok || strings.HasSuffix(seg, "[]") {
			return nil, false
		}
		if v, ok = obj[seg]; !ok {
			return nil, false
		}
	}
	return v, true
}

// article names a JSON type with its article: "an object", "a string".
func article(t string) string {
	switch t {
	case "object", "array", "integer":
		return "an " + t
	case "null":
		return "null"
	}
	return "a " + t
}

// boundNumber prints the validator's %f bound as written: 1.000000 as 1.
func boundNumber(s string) string {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return s
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// names lists the validator's %q names ("a" "b") as a, b.
func names(quoted string) string {
	var out []string
	for _, q := range strings.Fields(quoted) {
		if s, err := strconv.Unquote(q); err == nil {
			out = append(out, s)
		} else {
			out = append(out, q)
		}
	}
	return strings.Join(out, ", ")
}

// shown is a value as an argument error shows it: a string quoted, else in
// flow style.
func shown(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return Flow(v)
}

// typed is a value with its JSON type: the string "five", an object
// {startswith: dog}, null.
func typed(t string, v any) string {
	switch t {
	case "null":
		return "null"
	case "string":
		return "the string " + shown(v)
	}
	return article(t) + " " + shown(v)
}
