package suite

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ollama/ollama/api"
)

const sweepSuite = `servers: servers.json
decoys: [decoys/, extra.json, {servers: more.json}]
defaults:
  think: false
  options: {seed: 7, num_ctx: 4096, temperature: 0}
variants:
  - {name: big, think: true, options: {num_ctx: 32768}, decoys: 5}
sweep: {decoys: [0, 10], think: [false, true], num_ctx: [4096, 32768]}
cases:
  - {id: a, ask: q, expect: {no_tool: true}}
`

func TestParseSweep(t *testing.T) {
	s, err := Parse([]byte(sweepSuite), "/suites/s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	wantPool := []DecoySource{
		{Path: "/suites/decoys", Pos: Pos{File: "/suites/s.yaml", Line: 2, Col: 10}},
		{Path: "/suites/extra.json", Pos: Pos{File: "/suites/s.yaml", Line: 2, Col: 19}},
		{ServersPath: "/suites/more.json", Pos: Pos{File: "/suites/s.yaml", Line: 2, Col: 31}},
	}
	if diff := cmp.Diff(wantPool, s.Decoys); diff != "" {
		t.Errorf("pool (-want +got):\n%s", diff)
	}
	if got := s.DrawSeed(); got != 7 {
		t.Errorf("DrawSeed = %d, want options.seed 7", got)
	}
	// Named variants first, then the grid in grid order (first axis
	// slowest), without the point equal to the defaults.
	want := []string{"big",
		"decoys=0+think=false+num_ctx=32768",
		"decoys=0+think=true+num_ctx=4096", "decoys=0+think=true+num_ctx=32768",
		"decoys=10+think=false+num_ctx=4096", "decoys=10+think=false+num_ctx=32768",
		"decoys=10+think=true+num_ctx=4096", "decoys=10+think=true+num_ctx=32768"}
	if diff := cmp.Diff(want, s.VariantNames()); diff != "" {
		t.Errorf("variants (-want +got):\n%s", diff)
	}
	wantBase := []AxisValue{{AxisDecoys, int64(0)}, {AxisThink, false}, {"num_ctx", int64(4096)}}
	if diff := cmp.Diff(wantBase, s.BaseSweep); diff != "" {
		t.Errorf("base point (-want +got):\n%s", diff)
	}
	if got := s.BasePoint(); !reflect.DeepEqual(got, wantBase) {
		t.Errorf("BasePoint = %v", got)
	}
	// Flags that change the defaults after reading (-o num_ctx=...) leave
	// the base no longer the grid's point.
	changed := *s
	changed.Defaults.Options = map[string]any{"seed": int64(7), "num_ctx": int64(2048), "temperature": 0.0}
	if got := changed.BasePoint(); got != nil {
		t.Errorf("BasePoint after -o num_ctx = %v, want none", got)
	}
	changed.Defaults.Options, changed.Defaults.Think = s.Defaults.Options, "true"
	if got := changed.BasePoint(); got != nil {
		t.Errorf("BasePoint after --think true = %v, want none", got)
	}
	v := s.Variant("decoys=10+think=true+num_ctx=32768")
	if v.Decoys != 10 || v.Think != "true" || v.Options["num_ctx"] != int64(32768) {
		t.Errorf("grid point = %+v", v)
	}
	if got, want := SweepMap(v.Sweep), map[string]any{"decoys": int64(10), "think": true, "num_ctx": int64(32768)}; !reflect.DeepEqual(got, want) {
		t.Errorf("SweepMap = %v, want %v", got, want)
	}
	// A variant's options are merged over the defaults; its think wins.
	big := s.Variant("big")
	if got, want := s.VariantOptions(big), map[string]any{"seed": int64(7), "num_ctx": int64(32768), "temperature": 0.0}; !reflect.DeepEqual(got, want) {
		t.Errorf("VariantOptions = %v, want %v", got, want)
	}
	if s.VariantThink(big) != "true" || s.VariantThink(nil) != "false" || big.Decoys != 5 || big.Sweep != nil {
		t.Errorf("big = %+v, base think %q", big, s.VariantThink(nil))
	}
	if got := s.VariantOptions(nil); !reflect.DeepEqual(got, s.Defaults.Options) {
		t.Errorf("base options = %v", got)
	}
}

func TestSweepDefaultsPointIsTheBase(t *testing.T) {
	for _, tt := range []struct {
		name, src string
		variants  []string
		base      bool
	}{
		{"decoys only", "decoys: [d.json]\nsweep: {decoys: [0, 10, 30, 60]}", []string{"decoys=10", "decoys=30", "decoys=60"}, true},
		{"no zero", "decoys: [d.json]\nsweep: {decoys: [10, 30]}", []string{"decoys=10", "decoys=30"}, false},
		// think unset in the defaults: no point is the base.
		{"think unset", "sweep: {think: [false, true]}", []string{"think=false", "think=true"}, false},
		{"think set", "defaults: {think: true}\nsweep: {think: [false, true]}", []string{"think=false"}, true},
		{"level", "defaults: {think: high}\nsweep: {think: [low, high]}", []string{"think=low"}, true},
		{"temperature", "defaults: {options: {temperature: 0.7}}\nsweep: {temperature: [0, 0.7]}", []string{"temperature=0"}, true},
		{"system", "defaults: {system: A}\nsweep: {system: [A, B]}", []string{"system=s1"}, true},
		{"system unset", "sweep: {system: [A, B]}", []string{"system=s0", "system=s1"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse([]byte(tt.src+"\ncases: [{id: a, ask: q, expect: {no_tool: true}}]\n"), "s.yaml")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.variants, s.VariantNames()); diff != "" {
				t.Errorf("variants (-want +got):\n%s", diff)
			}
			if (s.BaseSweep != nil) != tt.base {
				t.Errorf("BaseSweep = %v, want a base point: %v", s.BaseSweep, tt.base)
			}
			if (s.BasePoint() != nil) != tt.base {
				t.Errorf("BasePoint = %v, want a base point: %v", s.BasePoint(), tt.base)
			}
		})
	}
}

func TestSweepSystemPrompts(t *testing.T) {
	s, err := Parse([]byte("sweep: {system: [Be brief., Be thorough.]}\ncases: [{id: a, ask: q, expect: {no_tool: true}}]\n"), "s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if v := s.Variant("system=s1"); v == nil || v.System != "Be thorough." || SweepMap(v.Sweep)["system"] != "s1" {
		t.Errorf("system=s1 = %+v", v)
	}
}

func TestParseSweepErrors(t *testing.T) {
	src := `decoys: [d.json, 5, {sevrers: x.json}, {}]
decoy_seed: x
variants:
  - {name: a, decoys: -1}
  - {name: b, options: {seed: 3, num_cxt: 5}}
  - {name: c, think: maybe}
  - {name: "decoys=10", decoys: 10}
sweep:
  decoys: [0, 10, 10]
  thnik: [true]
  num_ctx: 4096
  seed: [1, 2]
  temperature: [hot]
cases:
  - {id: a, ask: q, expect: {no_tool: true}}
`
	_, err := Parse([]byte(src), "s.yaml")
	if err == nil {
		t.Fatal("no error")
	}
	for _, w := range []string{
		`s.yaml:1:18: decoys[1]: must be a string, not the number 5`,
		`s.yaml:1:22: decoys[2]: unknown key "sevrers" (did you mean "servers"?)`,
		`s.yaml:1:40: decoys[3]: give servers: FILE`,
		`s.yaml:2:13: decoy_seed: must be an integer`,
		`s.yaml:4:23: variants[0].decoys: must not be negative, not -1`,
		`s.yaml:5:25: variants[1].options.seed: a variant runs with the suite's seeds`,
		`s.yaml:5:34: variants[1].options.num_cxt: unknown Ollama option "num_cxt" (did you mean "num_ctx"?)`,
		`s.yaml:6:22: variants[2].think: must be true, false, low, medium or high`,
		`s.yaml:9:19: sweep.decoys[2]: 10 is listed twice`,
		`s.yaml:10:3: sweep: unknown key "thnik" (did you mean "think"?)`,
		`s.yaml:11:12: sweep.num_ctx: must be a non-empty list of values`,
		`s.yaml:12:3: sweep.seed: every point runs with the suite's seeds`,
		`s.yaml:13:17: sweep.temperature[0]: must be a number`,
	} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("errors lack %q:\n%v", w, err)
		}
	}
}

func TestSweepNeedsAPoolAndUniqueNames(t *testing.T) {
	src := `decoys: [d.json]
variants:
  - {name: "decoys=10", decoys: 10}
sweep: {decoys: [0, 10]}
cases: [{id: a, ask: q, expect: {no_tool: true}}]
`
	_, err := Parse([]byte(src), "s.yaml")
	if err == nil || !strings.Contains(err.Error(), `s.yaml:4:8: sweep: grid point decoys=10 has the name of a variant the suite defines`) {
		t.Errorf("err = %v", err)
	}
	src = `variants:
  - {name: a, decoys: 3}
sweep: {decoys: [0, 10]}
cases: [{id: a, ask: q, expect: {no_tool: true}}]
`
	_, err = Parse([]byte(src), "s.yaml")
	for _, w := range []string{
		`s.yaml:2:23: variants[0].decoys: needs a decoys: pool`,
		`s.yaml:3:21: sweep.decoys[1]: needs a decoys: pool`,
	} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("errors lack %q:\n%v", w, err)
		}
	}
	src = "sweep: {top_k: [1, 2, 3, 4, 5, 6, 7], num_ctx: [1, 2, 3, 4, 5, 6, 7], top_p: [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6]}\ncases: [{id: a, ask: q, expect: {no_tool: true}}]\n"
	if _, err := Parse([]byte(src), "s.yaml"); err == nil || !strings.Contains(err.Error(), "the grid has 343 points") {
		t.Errorf("a huge grid: %v", err)
	}
}

// TestOptionNamesAreOllamas keeps the option lists the parser checks in step
// with the json tags of Ollama's api.Options.
func TestOptionNamesAreOllamas(t *testing.T) {
	var tags []string
	var walk func(reflect.Type)
	walk = func(rt reflect.Type) {
		for i := range rt.NumField() {
			f := rt.Field(i)
			if f.Anonymous {
				walk(f.Type)
				continue
			}
			if tag, _, _ := strings.Cut(f.Tag.Get("json"), ","); tag != "" && tag != "-" {
				tags = append(tags, tag)
			}
		}
	}
	walk(reflect.TypeFor[api.Options]())
	slices.Sort(tags)
	known := knownOptions()
	slices.Sort(known)
	if diff := cmp.Diff(tags, known); diff != "" {
		t.Errorf("options (-api.Options +parser):\n%s", diff)
	}
}

// The shipped sweep example loads as its grid, and the schema accepts it.
func TestShippedSweepSuite(t *testing.T) {
	data, err := os.ReadFile("../../cases/sweep.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Parse(data, "../../cases/sweep.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got := s.VariantNames(); !slices.Equal(got, []string{"decoys=10", "decoys=30", "decoys=60"}) || s.BaseSweep == nil || len(s.Decoys) != 1 {
		t.Errorf("variants %v, base point %v, pool %v", got, s.BaseSweep, s.Decoys)
	}
	_, rs := loadSchema(t)
	if err := rs.Validate(yamlToJSON(t, string(data))); err != nil {
		t.Error(err)
	}
}
