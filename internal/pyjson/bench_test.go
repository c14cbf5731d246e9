package pyjson

import "testing"

// BenchmarkDumps writes a tool call's arguments as a model writes them,
// the fake Ollama's raw-call path.
func BenchmarkDumps(b *testing.B) {
	args := obj{"query", "can I bring my dog to the terrace", "top_k", 5, "filters", map[string]any{"lang": "en", "score": 0.75}, "tags", []any{"faq", "café"}}
	o := &Options{KeepNonASCII: true}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Dumps(args, o); err != nil {
			b.Fatal(err)
		}
	}
}
