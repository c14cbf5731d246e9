package runner_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/toolgrade/toolgrade/internal/runner"
)

const optionsSuite = `
name: options
defaults: {think: false, options: {seed: 7, temperature: 0, num_ctx: 8192}}
variants:
  - {name: warm, options: {temperature: 0.7, top_k: 20}}
sweep: {think: [false, true], num_ctx: [8192, 32768]}
cases:
  - {id: dog, ask: "Can I bring my dog?", expect: {tool: search}}
`

// Option variants and grid points reach Ollama exactly: each trial's
// /api/chat carries the suite's options with the variant's over them, the
// variant's think, and the suite's seed.
func TestOptionVariantsReachOllama(t *testing.T) {
	r := newRig(t, nil, nil, nil, "docs")
	s := parseSuite(t, optionsSuite, r.cat)
	variants := []runner.Variant{{}}
	for _, name := range s.VariantNames() {
		variants = append(variants, runner.Variant{Name: name, Suite: s.Variant(name)})
	}
	if _, err := r.runner.Run(context.Background(), runner.Config{Suite: s, Models: models(t, r, "scripted-think"), Variants: variants}); err != nil {
		t.Fatal(err)
	}
	type sent struct {
		Think   any            `json:"think"`
		Options map[string]any `json:"options"`
	}
	want := []sent{
		{false, map[string]any{"seed": 7.0, "temperature": 0.0, "num_ctx": 8192.0}},                // base: think=false+num_ctx=8192
		{false, map[string]any{"seed": 7.0, "temperature": 0.7, "top_k": 20.0, "num_ctx": 8192.0}}, // warm
		{false, map[string]any{"seed": 7.0, "temperature": 0.0, "num_ctx": 32768.0}},
		{true, map[string]any{"seed": 7.0, "temperature": 0.0, "num_ctx": 8192.0}},
		{true, map[string]any{"seed": 7.0, "temperature": 0.0, "num_ctx": 32768.0}},
	}
	if got := s.VariantNames(); !reflect.DeepEqual(got, []string{"warm", "think=false+num_ctx=32768", "think=true+num_ctx=8192", "think=true+num_ctx=32768"}) {
		t.Fatalf("variants %v", got)
	}
	// The first request of each trial, in trial order (one at a time).
	var got []sent
	for _, req := range r.fake.Requests() {
		if req.Chat == nil || len(req.Chat.Messages) != 1 {
			continue
		}
		var s sent
		if err := json.Unmarshal(req.Body, &s); err != nil {
			t.Fatal(err)
		}
		got = append(got, s)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("requests sent\n%v\nwant\n%v", got, want)
	}
	for _, tr := range r.trials(t) {
		if tr.Seed != 7 {
			t.Errorf("%s: seed %d, want the suite's", tr.Variant, tr.Seed)
		}
	}
}
