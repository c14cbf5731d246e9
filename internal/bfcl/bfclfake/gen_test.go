package bfclfake

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/bfcl"
)

// Generate is deterministic with a seed, starts each question with its
// ground truth, keeps Python's int and float apart in what BFCL sees, and
// loses the difference where the fake Ollama encodes (as Ollama does).
func TestGenerate(t *testing.T) {
	im, _ := fixtures(t)
	a, b := Generate(im, 12, 7), Generate(im, 12, 7)
	if len(a) == 0 || !reflect.DeepEqual(a, b) {
		t.Fatalf("%d outputs; the same seed gave different outputs", len(a))
	}
	per, kinds := map[string]int{}, map[string]int{}
	for _, o := range a {
		if n := per[o.Question]; n == 0 && o.Kind != "ground_truth" && o.Kind != "text" {
			t.Errorf("%s: first output is %s", o.ID, o.Kind)
		}
		per[o.Question]++
		kinds[o.Kind]++
		if _, err := o.Reply(); err != nil {
			t.Error(err)
		}
		if _, err := o.BFCLResult(); err != nil {
			t.Error(err)
		}
	}
	for q, n := range per {
		if n > 12 || strings.HasPrefix(q, "java") {
			t.Errorf("%s: %d outputs", q, n)
		}
	}
	for _, k := range []string{"ground_truth", "string_case", "omit_required", "wrong_type", "extra_call", "wrong_name", "text", "call"} {
		if kinds[k] == 0 {
			t.Errorf("no %s output in %v", k, kinds)
		}
	}
	o := Output{ID: "x", Calls: []Call{{Name: "f", Args: nil}}}
	o.Calls[0].Args = append(o.Calls[0].Args, member("n", json.Number("5.0")))
	res, _ := o.BFCLResult()
	r, _ := o.Reply()
	if got := res.([]map[string]string)[0]["f"]; got != `{"n":5.0}` {
		t.Errorf("BFCL sees %s, want 5.0 kept", got)
	}
	if v, ok := r.ToolCalls[0].Arguments[0].Value.(float64); !ok || v != 5 {
		t.Errorf("the fake is given %#v, want float64 5", r.ToolCalls[0].Arguments[0].Value)
	}
}

func member(k string, v any) bfcl.Member { return bfcl.Member{Key: k, Value: v} }
