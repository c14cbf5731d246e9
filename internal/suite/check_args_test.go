package suite

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ollama/ollama/api"
)

// listingTools is a partial-validating catalog that lists its tools, as
// *mcpclient.Catalog does: argument names are checked against them.
type listingTools struct{ partialTools }

func (c listingTools) OllamaTools() api.Tools {
	var out api.Tools
	for exposed, t := range c.tools {
		var tool api.Tool
		js := fmt.Sprintf(`{"type":"function","function":{"name":%q,"parameters":%s}}`, exposed, t.schema)
		if err := json.Unmarshal([]byte(js), &tool); err != nil {
			panic(err)
		}
		out = append(out, tool)
	}
	return out
}

const searchSchema = `{"type":"object","required":["query"],"properties":{
	"query":{"type":"string","minLength":2,"pattern":"^[a-z ]+$"},
	"limit":{"type":"integer","minimum":1,"maximum":50},
	"filter":{"type":"object","properties":{"lang":{"enum":["en","fr"]},"tags":{"type":"array","maxItems":2}}}}}`

// TestCheckArgsInAUsersWords: each expected argument is checked at its
// own line and column, a name the tool lacks with did-you-mean, a value
// against the schema in words, never the validator's paths.
func TestCheckArgsInAUsersWords(t *testing.T) {
	src := `cases:
  - {id: a, ask: q, expect: {tool: search, args: {query: dog}}}
  - id: typo
    ask: q
    expect:
      tool: search
      args:
        query: dog
        qeury: {contains: dog}
  - {id: c, ask: q, expect: {tool: search, args: {query: {equals: {startswith: dog}}}}}
  - {id: d, ask: q, expect: {tool: search, args: {query: d, limit: 0}}}
  - {id: e, ask: q, expect: {tool: search, args: {query: DOG, limit: {number: 99}}}}
  - {id: f, ask: q, expect: {tool: search, args: {query: dog, filter: {lang: de, tags: [a]}}}}
  - {id: g, ask: q, expect: {tool: list_documents, args: {all: true}}}
  - {id: h, ask: q, expect: {tool: search, args: {query: dog, zzz: {any: true}, debug: {absent: true}}}}
`
	s, err := Parse([]byte(src), "cases.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tools := newFakeCatalog(t)
	tools.tools["search"] = fakeTool{"docs", "search", searchSchema}
	err = s.Check(listingTools{partialTools{tools}})
	var es Errors
	if !errors.As(err, &es) {
		t.Fatalf("Check = %v, want Errors", err)
	}
	var got []string
	for _, e := range es {
		got = append(got, e.Error())
	}
	want := []string{
		`cases.yaml:9:9: cases[1].expect.args.qeury: the tool search has no argument "qeury" (did you mean "query"? its arguments: query, limit, filter)`,
		`cases.yaml:10:58: cases[2].expect.args.query: must be a string, got an object {startswith: dog}`,
		`cases.yaml:11:58: cases[3].expect.args.query: must be at least 2 characters long, got "d" (1)`,
		`cases.yaml:11:68: cases[3].expect.args.limit: must be at least 1, got 0`,
		`cases.yaml:12:58: cases[4].expect.args.query: must match the pattern ^[a-z ]+$, got "DOG"`,
		`cases.yaml:12:70: cases[4].expect.args.limit: must be at most 50, got 99`,
		`cases.yaml:13:71: cases[5].expect.args.filter.lang: must be one of en, fr, got "de"`,
		`cases.yaml:14:59: cases[6].expect.args.all: the tool list_documents has no argument "all" (it takes no arguments)`,
		`cases.yaml:15:63: cases[7].expect.args.zzz: the tool search has no argument "zzz" (its arguments: query, limit, filter)`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

// TestValidatorWords translates each kind of the validator's message, and
// keeps one it does not know after the tool's name.
func TestValidatorWords(t *testing.T) {
	sp := schemaProblems{call: &ExpectedCall{Exposed: "search"}}
	for _, c := range []struct{ msg, path, want string }{
		{`validating root: validating /properties/n: type: five has type "string", want one of "integer, null"`, "n", `must be an integer or null, got the string "five"`},
		{`validating root: validating /properties/tags: maxItems: array length 3 is greater than 2`, "tags", `must have at most 2 items, got [a, b, c] (3)`},
		{`validating root: validating /properties/n: exclusiveMinimum: 0 is less than or equal to 0.500000`, "n", `must be more than 0.5, got 0`},
		{`validating root: validating /properties/mode: const: x does not equal fast`, "mode", `must be fast, got "x"`},
		{`validating root: validating /properties/o: required: missing properties: ["a" "b"]`, "o", `must have a, b`},
		{`validating root: validating /properties/o: unexpected additional properties ["z"]`, "o", `has no property z`},
		{`validating root: validating /properties/n: anyOf: did not validate against any of [a b]`, "n", `does not fit the input schema of search: anyOf: did not validate against any of [a b]`},
	} {
		path, kind := validatorPath(c.msg)
		args := map[string]any{"n": "five", "tags": []any{"a", "b", "c"}, "mode": "x", "o": map[string]any{}}
		if c.path == "n" && c.want == `must be more than 0.5, got 0` {
			args["n"] = int64(0)
		}
		if fmt.Sprint(path) != "["+c.path+"]" {
			t.Errorf("%s: path %v, want [%s]", c.msg, path, c.path)
		}
		if got := sp.words(path, kind, args); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.msg, got, c.want)
		}
	}
}
