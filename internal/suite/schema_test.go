package suite

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"go.yaml.in/yaml/v3"
)

// The JSON Schema editors use must agree with the loader; these tests keep
// the two from drifting apart.

const schemaPath = "../../cases/suite.schema.json"

func loadSchema(t *testing.T) (*jsonschema.Schema, *jsonschema.Resolved) {
	t.Helper()
	data, err := os.ReadFile(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("%s: %v", schemaPath, err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("%s: %v", schemaPath, err)
	}
	return &s, rs
}

// yamlToJSON converts a YAML document the way an editor's YAML language
// server sees it: as JSON, dates as the strings they are written as.
func yamlToJSON(t *testing.T, src string) any {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatalf("YAML: %v", err)
	}
	var conv func(n *yaml.Node) any
	conv = func(n *yaml.Node) any {
		switch n.Kind {
		case yaml.DocumentNode:
			return conv(n.Content[0])
		case yaml.AliasNode:
			return conv(n.Alias)
		case yaml.SequenceNode:
			out := []any{}
			for _, c := range n.Content {
				out = append(out, conv(c))
			}
			return out
		case yaml.MappingNode:
			out := map[string]any{}
			for i := 0; i+1 < len(n.Content); i += 2 {
				out[n.Content[i].Value] = conv(n.Content[i+1])
			}
			return out
		}
		if n.ShortTag() == "!!timestamp" {
			return n.Value
		}
		var v any
		if err := n.Decode(&v); err != nil {
			t.Fatalf("YAML value %q: %v", n.Value, err)
		}
		return v
	}
	data, err := json.Marshal(conv(&doc))
	if err != nil {
		t.Fatalf("as JSON: %v", err)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// Where the loader and the schema part ways on purpose.
const (
	both       = iota // both accept, or both reject
	loaderOnly        // only the loader can see the problem
	schemaOnly        // the schema checks what serversfile.ParseNode checks later
)

func TestSchemaAgreesWithLoader(t *testing.T) {
	_, rs := loadSchema(t)
	c := func(expect string) string {
		return "cases:\n  - {id: a, ask: q, expect: " + expect + "}\n"
	}
	args := func(a string) string { return c("{tool: t, args: " + a + "}") }
	tests := []struct {
		name  string
		src   string
		valid bool
		who   int
	}{
		{name: "minimal", src: c("{no_tool: true}"), valid: true},
		{name: "all matchers", valid: true, src: args(`{a: {equals: {contains: x}}, b: {contains: x}, c: {regex: "^x"}, d: {one_of: [1, x, {k: v}]},
    e: {number: 1.5, tolerance: 0.1}, e2: {number: 3}, f: {any: true}, g: {absent: true}, h: [1, {k: [x]}], i: null, j: {k: {l: 1}, m: 2}, o: {equals: {k: 1}}}`)},
		{name: "a one-key object is no literal", src: args(`{a: {startswith: dog}}`)},
		{name: "calls any order", valid: true, src: c("{calls: [{tool: a}, {tool: b, args: {x: 1}}], any_order: true, strict_args: true, max_rounds: 3, answer: {one_of: [x, y]}}")},
		{name: "answer with no_tool", valid: true, src: c("{no_tool: true, answer: {regex: x}}")},
		{name: "no_tool false with tool", valid: true, src: c("{no_tool: false, tool: x}")},
		{name: "defaults", valid: true, src: "defaults: {think: low, keep_alive: 1h30m, system: '', options: {stop: [\"\\n\"], mirostat: 1, num_ctx: 4096}}\n" + c("{no_tool: true}")},
		{name: "keep_alive seconds", valid: true, src: "defaults: {keep_alive: -1}\n" + c("{no_tool: true}")},
		{name: "messages", valid: true, src: "cases:\n  - {id: a, ask: [{role: system, content: s}, {role: user, content: u}], expect: {no_tool: true}}\n"},
		{name: "execute and tool patterns", valid: true, src: "defaults: {execute: false, allow_tools: [write_file, \"fs.*\", \"[a-c]?\"], deny_tools: []}\ncases:\n  - {id: a, ask: q, execute: true, expect: {no_tool: true}}\n"},
		{name: "execute not a boolean", src: "defaults: {execute: no-way}\n" + c("{no_tool: true}")},
		{name: "case execute not a boolean", src: "cases:\n  - {id: a, ask: q, execute: 1, expect: {no_tool: true}}\n"},
		{name: "allow_tools string", src: "defaults: {allow_tools: write_file}\n" + c("{no_tool: true}")},
		{name: "deny_tools empty pattern", src: "defaults: {deny_tools: [' ']}\n" + c("{no_tool: true}")},
		{name: "deny_tools number", src: "defaults: {deny_tools: [5]}\n" + c("{no_tool: true}")},
		{name: "servers path", valid: true, src: "servers: s.json\nmodels: [a]\n" + c("{no_tool: true}")},
		{name: "servers inline", valid: true, src: "servers: {mcpServers: {docs: {command: x}}}\n" + c("{no_tool: true}")},

		{name: "gates", valid: true, src: "gates: [pass>=0.9, 'qwen3:8b:p95<=2s', 'round_limit <= 5%', '@new:selection>0.5']\n" + c("{no_tool: true}")},
		{name: "gates on sweep points", valid: true, src: "gates: ['selection@60>=0.8', 'qwen3:8b:pass@think=true>=90%']\n" + c("{no_tool: true}")},
		{name: "gate without its sweep point", src: "gates: ['selection@>=0.8']\n" + c("{no_tool: true}")},
		{name: "gates not a list", src: "gates: pass>=0.9\n" + c("{no_tool: true}")},
		{name: "gate unknown metric", src: "gates: [pas>=0.9]\n" + c("{no_tool: true}")},
		{name: "gate without operator", src: "gates: [pass=0.9]\n" + c("{no_tool: true}")},
		{name: "gate number", src: "gates: [5]\n" + c("{no_tool: true}")},
		{name: "gate latency without unit", who: loaderOnly, src: "gates: ['p95<=2']\n" + c("{no_tool: true}")},
		{name: "gate rate out of range", who: loaderOnly, src: "gates: ['pass>=1.5']\n" + c("{no_tool: true}")},
		{name: "unknown top key", src: "modles: [a]\n" + c("{no_tool: true}")},
		{name: "unknown case key", src: "cases:\n  - {id: a, aks: q, ask: q, expect: {no_tool: true}}\n"},
		{name: "unknown expect key", src: c("{no_tool: true, tols: x}")},
		{name: "missing id", src: "cases:\n  - {ask: q, expect: {no_tool: true}}\n"},
		{name: "missing ask", src: "cases:\n  - {id: a, expect: {no_tool: true}}\n"},
		{name: "missing expect", src: "cases:\n  - {id: a, ask: q}\n"},
		{name: "no cases", src: "name: x\n"},
		{name: "empty cases", src: "cases: []\n"},
		{name: "tool and calls", src: c("{tool: a, calls: [{tool: b}]}")},
		{name: "no_tool with tool", src: c("{no_tool: true, tool: a}")},
		{name: "no_tool with calls", src: c("{no_tool: true, calls: [{tool: b}]}")},
		{name: "empty expect", src: c("{}")},
		{name: "answer alone", src: c("{answer: {contains: x}}")},
		{name: "no_tool false alone", src: c("{no_tool: false}")},
		{name: "args without tool", src: c("{no_tool: true, args: {a: 1}}")},
		{name: "any_order without calls", src: c("{tool: a, any_order: true}")},
		{name: "strict_args with no_tool", src: c("{no_tool: true, strict_args: false}")},
		{name: "empty calls", src: c("{calls: []}")},
		{name: "call without tool", src: c("{calls: [{args: {}}]}")},
		{name: "two matcher keys", src: args("{a: {contains: x, regex: y}}")},
		{name: "matcher key beside a literal key", src: args("{a: {name: x, contains: y}}")},
		{name: "tolerance alone", src: args("{a: {tolerance: 1}}")},
		{name: "tolerance with contains", src: args("{a: {contains: x, tolerance: 1}}")},
		{name: "negative tolerance", src: args("{a: {number: 1, tolerance: -1}}")},
		{name: "any false", src: args("{a: {any: false}}")},
		{name: "absent false", src: args("{a: {absent: false}}")},
		{name: "contains number", src: args("{a: {contains: 5}}")},
		{name: "contains empty", src: args(`{a: {contains: ""}}`)},
		{name: "empty one_of", src: args("{a: {one_of: []}}")},
		{name: "number string", src: args(`{a: {number: "5"}}`)},
		{name: "nested matcher in literal", src: args("{a: {filter: {any: true}}}")},
		{name: "matcher in literal list", src: args("{a: [{equals: 1}]}")},
		{name: "empty arg name", src: args(`{"": 1}`)},
		{name: "empty models", src: "models: []\n" + c("{no_tool: true}")},
		{name: "duplicate models", src: "models: [a, a]\n" + c("{no_tool: true}")},
		{name: "bad think", src: "defaults: {think: maybe}\n" + c("{no_tool: true}")},
		{name: "max_rounds 0", src: "defaults: {max_rounds: 0}\n" + c("{no_tool: true}")},
		{name: "max_rounds 101", src: "cases:\n  - {id: a, ask: q, max_rounds: 101, expect: {no_tool: true}}\n"},
		{name: "max_rounds fraction", src: c("{no_tool: true, max_rounds: 2.5}")},
		{name: "empty ask", src: "cases:\n  - {id: a, ask: ' ', expect: {no_tool: true}}\n"},
		{name: "no messages", src: "cases:\n  - {id: a, ask: [], expect: {no_tool: true}}\n"},
		{name: "bad role", src: "cases:\n  - {id: a, ask: [{role: usr, content: x}], expect: {no_tool: true}}\n"},
		{name: "message without content", src: "cases:\n  - {id: a, ask: [{role: user}], expect: {no_tool: true}}\n"},
		{name: "id with space", src: "cases:\n  - {id: a b, ask: q, expect: {no_tool: true}}\n"},
		{name: "numeric id", src: "cases:\n  - {id: 5, ask: q, expect: {no_tool: true}}\n"},
		{name: "duplicate tags", src: "cases:\n  - {id: a, ask: q, tags: [x, x], expect: {no_tool: true}}\n"},
		{name: "keep_alive without unit", src: "defaults: {keep_alive: '-1'}\n" + c("{no_tool: true}")},
		{name: "num_ctx 0", src: "defaults: {options: {num_ctx: 0}}\n" + c("{no_tool: true}")},
		{name: "seed fraction", src: "defaults: {options: {seed: 4.5}}\n" + c("{no_tool: true}")},
		{name: "negative temperature", src: "defaults: {options: {temperature: -1}}\n" + c("{no_tool: true}")},
		{name: "stop string", src: "defaults: {options: {stop: x}}\n" + c("{no_tool: true}")},
		{name: "answer string", src: c("{no_tool: true, answer: terrace}")},
		{name: "answer two keys", src: c("{no_tool: true, answer: {contains: x, regex: y}}")},
		{name: "servers number", src: "servers: 5\n" + c("{no_tool: true}")},
		{name: "variants", valid: true, src: "variants:\n  - {name: terse, system: s, tools: {search: {description: '', params: {query: q, filter.kind: k}}, docs.list: {description: d}}}\n  - {name: branch, servers: b.json}\n" + c("{no_tool: true}")},
		{name: "variant without name", src: "variants: [{system: s}]\n" + c("{no_tool: true}")},
		{name: "variant named base", src: "variants: [{name: base, system: s}]\n" + c("{no_tool: true}")},
		{name: "variant named Base", src: "variants: [{name: Base, system: s}]\n" + c("{no_tool: true}")},
		{name: "variant name with comma", src: "variants: [{name: 'a,b', system: s}]\n" + c("{no_tool: true}")},
		{name: "variant changes nothing", src: "variants: [{name: a}]\n" + c("{no_tool: true}")},
		{name: "variant unknown key", src: "variants: [{name: a, sytem: s}]\n" + c("{no_tool: true}")},
		{name: "variant empty system", src: "variants: [{name: a, system: ' '}]\n" + c("{no_tool: true}")},
		{name: "variant inline servers", src: "variants: [{name: a, servers: {mcpServers: {}}}]\n" + c("{no_tool: true}")},
		{name: "tool overlay changes nothing", src: "variants: [{name: a, tools: {search: {}}}]\n" + c("{no_tool: true}")},
		{name: "tool overlay unknown key", src: "variants: [{name: a, tools: {search: {descripton: x}}}]\n" + c("{no_tool: true}")},
		{name: "tool overlay a string", src: "variants: [{name: a, tools: {search: x}}]\n" + c("{no_tool: true}")},
		{name: "param overlay not a string", src: "variants: [{name: a, tools: {search: {params: {query: {description: x}}}}}]\n" + c("{no_tool: true}")},
		{name: "param path with an empty name", src: "variants: [{name: a, tools: {search: {params: {filter..kind: x}}}}]\n" + c("{no_tool: true}")},
		{name: "variants not a list", src: "variants: {name: a, system: s}\n" + c("{no_tool: true}")},

		{name: "duplicate ids", who: loaderOnly, src: "cases:\n  - {id: a, ask: q, expect: {no_tool: true}}\n  - {id: a, ask: q, expect: {no_tool: true}}\n"},
		{name: "bad regex", who: loaderOnly, src: args(`{a: {regex: "(x"}}`)},
		// The schema now rejects every one-key object that is no matcher, a typo too.
		{name: "matcher typo", src: args(`{a: {regexp: x}}`)},
		{name: "last message not the user's", who: loaderOnly, src: "cases:\n  - {id: a, ask: [{role: user, content: u}, {role: assistant, content: x}], expect: {no_tool: true}}\n"},
		{name: "late system message", who: loaderOnly, src: "cases:\n  - {id: a, ask: [{role: user, content: u}, {role: system, content: x}, {role: user, content: u}], expect: {no_tool: true}}\n"},
		{name: "option typo", who: loaderOnly, src: "defaults: {options: {temprature: 0}}\n" + c("{no_tool: true}")},
		{name: "max_rounds twice", who: loaderOnly, src: "cases:\n  - {id: a, ask: q, max_rounds: 2, expect: {no_tool: true, max_rounds: 3}}\n"},
		{name: "bad glob", who: loaderOnly, src: "defaults: {allow_tools: [\"write_[\"]}\n" + c("{no_tool: true}")},
		{name: "duplicate variants", who: loaderOnly, src: "variants: [{name: a, system: s}, {name: a, system: t}]\n" + c("{no_tool: true}")},
		{name: "sweep and decoys", valid: true, src: "decoys: [d/, x.json, {servers: s.json}]\ndecoy_seed: 3\ndefaults: {think: false}\nvariants: [{name: v, think: high, options: {num_ctx: 4096}, decoys: 5}]\nsweep: {decoys: [0, 10], think: [false, true], system: [a, b], temperature: [0, 0.7]}\n" + c("{no_tool: true}")},
		{name: "decoys not a list", src: "decoys: d.json\n" + c("{no_tool: true}")},
		{name: "decoys entry typo", src: "decoys: [{sevrers: s.json}]\n" + c("{no_tool: true}")},
		{name: "decoy_seed string", src: "decoy_seed: x\n" + c("{no_tool: true}")},
		{name: "variant decoys negative", src: "decoys: [d.json]\nvariants: [{name: v, decoys: -1}]\n" + c("{no_tool: true}")},
		{name: "variant options seed", src: "variants: [{name: v, options: {seed: 1}}]\n" + c("{no_tool: true}")},
		{name: "variant think bad", src: "variants: [{name: v, think: maybe}]\n" + c("{no_tool: true}")},
		{name: "sweep seed axis", src: "sweep: {seed: [1, 2]}\n" + c("{no_tool: true}")},
		{name: "sweep axis not a list", src: "sweep: {num_ctx: 4096}\n" + c("{no_tool: true}")},
		{name: "sweep repeated value", src: "decoys: [d.json]\nsweep: {decoys: [10, 10]}\n" + c("{no_tool: true}")},
		{name: "sweep axis typo", who: loaderOnly, src: "sweep: {thnik: [true]}\n" + c("{no_tool: true}")},
		{name: "sweep decoys without a pool", who: loaderOnly, src: "sweep: {decoys: [0, 10]}\n" + c("{no_tool: true}")},
		{name: "servers without mcpServers", who: schemaOnly, src: "servers: {docs: {command: x}}\n" + c("{no_tool: true}")},
	}
	for _, name := range []string{"example.yaml", "inline.yaml"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		tests = append(tests, struct {
			name  string
			src   string
			valid bool
			who   int
		}{name: name, src: string(data), valid: true})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, loadErr := Parse([]byte(tt.src), "s.yaml")
			schemaErr := rs.Validate(yamlToJSON(t, tt.src))
			wantLoader, wantSchema := tt.valid, tt.valid
			switch tt.who {
			case loaderOnly:
				wantSchema = true
			case schemaOnly:
				wantLoader = true
			}
			if (loadErr == nil) != wantLoader {
				t.Errorf("loader: err = %v, want valid %v", loadErr, wantLoader)
			}
			if (schemaErr == nil) != wantSchema {
				t.Errorf("schema: err = %v, want valid %v", schemaErr, wantSchema)
			}
		})
	}
}

// TestSchemaKnowsTheLoadersKeys compares the keys each mapping may have.
func TestSchemaKnowsTheLoadersKeys(t *testing.T) {
	s, _ := loadSchema(t)
	props := func(s *jsonschema.Schema) []string {
		var out []string
		for k := range s.Properties {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	sorted := func(l ...[]string) []string {
		out := slices.Concat(l...)
		slices.Sort(out)
		return slices.Compact(out)
	}
	def := func(name string) *jsonschema.Schema {
		d, ok := s.Defs[name]
		if !ok {
			t.Fatalf("schema has no $defs/%s", name)
		}
		return d
	}
	var matcher, answer []string
	for _, m := range def("matcher").OneOf {
		matcher = append(matcher, props(m)...)
	}
	for _, m := range def("answer").OneOf {
		answer = append(answer, props(m)...)
	}
	var matcherEnum []string
	for _, v := range def("matcherKey").Enum {
		matcherEnum = append(matcherEnum, v.(string))
	}
	for _, tt := range []struct {
		what         string
		schema, code []string
	}{
		{"suite", props(s), sorted(suiteKeys)},
		{"defaults", props(def("defaults")), sorted(defaultsKeys)},
		{"case", props(def("case")), sorted(caseKeys)},
		{"message", props(def("message")), sorted(messageKeys)},
		{"expect", props(def("expect")), sorted(expectKeys)},
		{"call", props(def("call")), sorted(callKeys)},
		{"matcher", sorted(matcher), sorted(matcherKeys, bfclKeys)},
		{"matcherKey", sorted(matcherEnum), sorted(matcherKeys)},
		{"answer", sorted(answer), sorted(answerKeys)},
		{"options", props(def("options")), sorted(intOptions, floatOptions, boolOptions, listOptions)},
		{"variant", props(def("variant")), sorted(variantKeys)},
		{"toolOverlay", props(def("toolOverlay")), sorted(toolOverlayKeys)},
	} {
		if diff := cmp.Diff(tt.code, tt.schema); diff != "" {
			t.Errorf("%s keys (-loader +schema):\n%s", tt.what, diff)
		}
	}
	var think []string
	for _, v := range def("defaults").Properties["think"].Enum {
		if s, ok := v.(string); ok {
			think = append(think, s)
		}
	}
	if diff := cmp.Diff(thinkValues, think); diff != "" {
		t.Errorf("think values (-loader +schema):\n%s", diff)
	}
	if max := def("maxRounds").Maximum; max == nil || *max != MaxRoundsLimit {
		t.Errorf("maxRounds maximum = %v, want %d", max, MaxRoundsLimit)
	}
}

// TestExamplesNameTheSchema keeps the editor hint in the example suites.
func TestExamplesNameTheSchema(t *testing.T) {
	for _, name := range []string{"example.yaml", "inline.yaml"} {
		data, _ := os.ReadFile(filepath.Join("testdata", name))
		first, _, _ := strings.Cut(string(data), "\n")
		const want = "# yaml-language-server: $schema="
		if !strings.HasPrefix(first, want) {
			t.Errorf("%s starts %q, want %q", name, first, want)
			continue
		}
		if _, err := os.Stat(filepath.Join("testdata", strings.TrimPrefix(first, want))); err != nil {
			t.Errorf("%s: the schema it names: %v", name, err)
		}
	}
}
