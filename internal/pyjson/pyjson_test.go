package pyjson

import (
	"encoding/json"
	"iter"
	"math"
	"os"
	"strings"
	"testing"
)

// obj is an Ordered for the tests: keys in the order given.
type obj []any

func (o obj) Members() iter.Seq2[string, any] {
	return func(yield func(string, any) bool) {
		for i := 0; i+1 < len(o); i += 2 {
			if !yield(o[i].(string), o[i+1]) {
				return
			}
		}
	}
}

func nums(ss ...string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = json.Number(s)
	}
	return out
}

// cases are the values of testdata/dumps.py, in its order and by its
// names.
var cases = []struct {
	name string
	v    any
}{
	{"call", obj{"query", "dog", "top_k", 5}},
	{"nested", obj{"a", []any{1, 2.5, nil, true, false}, "b", obj{"c", []any{}, "d", map[string]any{}}}},
	{"order", obj{"zeta", 1, "alpha", obj{"y", 2, "x", 3}}},
	{"order-map", map[string]any{"zeta": 1, "alpha": map[string]any{"y": 2, "x": 3}}},
	{"keys-map", map[string]any{"b": 1, "a": 2, "é": 3, "Z": 4}},
	{"non-ascii", "café 東京 😀"},
	{"controls", "a\"b\\c\nd\re\tf\bg\fh\x00i\x1fj\x7fk\u2028l</script>&"},
	{"floats", []any{1.0, 0.5, math.Copysign(0, -1), 1e16, 1e15, 123456789012345678.0, 0.0001, 0.00001,
		1.5e-7, 1e22, 3.14159, 2.5e-5, 100.0, 1e100, 5e-324, 1.7976931348623157e308,
		0.1 + float64(fl(0.2)), math.Inf(1), math.Inf(-1), math.NaN()}},
	{"numbers", nums("5", "5.0", "-0", "1e5", "1E-7", "12345678901234567890", "0.10")},
	{"ints", []any{0, int64(-1), uint64(9007199254740993)}},
	{"empty", []any{[]any{}, obj{}, ""}},
}

// fl keeps 0.1 + 0.2 from being folded into the constant 0.3 at compile
// time, so the sum is the float64 Python computes.
func fl(f float64) float64 { return f }

// TestDumpsAsPython: every case is written byte for byte as Python's
// json.dumps wrote it (testdata/dumps.txt, made by testdata/dumps.py), with
// ensure_ascii on and off.
func TestDumpsAsPython(t *testing.T) {
	data, err := os.ReadFile("testdata/dumps.txt")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != len(cases) {
		t.Fatalf("dumps.txt has %d lines, the test %d cases: run testdata/dumps.py again", len(lines), len(cases))
	}
	for i, c := range cases {
		f := strings.Split(lines[i], "\t")
		if len(f) != 3 || f[0] != c.name {
			t.Fatalf("dumps.txt line %d is %q, want case %s", i+1, lines[i], c.name)
		}
		for j, o := range []*Options{nil, {KeepNonASCII: true}} {
			got, err := Dumps(c.v, o)
			if err != nil || got != f[j+1] {
				t.Errorf("%s (KeepNonASCII %v):\n got %s (%v)\nwant %s", c.name, j == 1, got, err, f[j+1])
			}
		}
	}
}

// TestDumpsOtherTypes: values of other types are written as encoding/json
// encodes them; a value it cannot encode is an error.
func TestDumpsOtherTypes(t *testing.T) {
	type point struct {
		Y int     `json:"y"`
		X float64 `json:"x"`
	}
	for _, tc := range []struct {
		v    any
		want string
	}{
		{point{Y: 1, X: 2}, `{"x": 2, "y": 1}`},
		{[]string{"é"}, `["\u00e9"]`},
		{map[string]int{"b": 1, "a": 2}, `{"a": 2, "b": 1}`},
		{(*point)(nil), "null"},
		{float32(0.5), "0.5"},
	} {
		if got, err := Dumps(tc.v, nil); err != nil || got != tc.want {
			t.Errorf("Dumps(%#v) = %s, %v; want %s", tc.v, got, err, tc.want)
		}
	}
	if _, err := Dumps([]any{make(chan int)}, nil); err == nil {
		t.Error("a channel was written")
	}
}
