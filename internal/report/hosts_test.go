package report

import (
	"slices"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/summary"
)

// TestSummaryWarnsOfHostDrift: a model whose hosts ran different Ollama
// versions or digests gets a warning in the summary; one whose hosts agree
// gets none.
func TestSummaryWarnsOfHostDrift(t *testing.T) {
	sum := summary.NewSummarizer("s", []record.Model{
		{Name: "a", Hosts: []record.ModelHost{{Host: "http://h1", Version: "0.17.4", Digest: "d"}, {Host: "http://h2", Version: "0.12.0", Digest: "d"}}},
		{Name: "b", Hosts: []record.ModelHost{{Host: "http://h1", Version: "0.17.4", Digest: "e"}, {Host: "http://h2", Version: "0.17.4", Digest: "e"}}},
	})
	w := sum.Summary().Warnings
	want := "hosts of a differ in Ollama version: 0.17.4 on http://h1; 0.12.0 on http://h2"
	if !slices.Contains(w, want) {
		t.Errorf("warnings %q lack %q", w, want)
	}
	if slices.ContainsFunc(w, func(s string) bool { return strings.Contains(s, "hosts of b") }) {
		t.Errorf("agreeing hosts warned: %q", w)
	}
}
