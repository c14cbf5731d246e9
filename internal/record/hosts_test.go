package record

import (
	"slices"
	"testing"
)

// TestHostDrift: hosts of one model that differ in digest or Ollama version
// are each named with what they run; agreeing hosts, or one, say nothing.
func TestHostDrift(t *testing.T) {
	m := Model{Name: "qwen3", Hosts: []ModelHost{
		{Host: "http://a:11434", Version: "0.17.4", Digest: "d1"},
		{Host: "http://b:11434", Version: "0.17.4", Digest: "d2"},
		{Host: "http://c:11434", Version: "0.17.4", Digest: "d1"},
	}}
	want := []string{"hosts of qwen3 differ in digest: d1 on http://a:11434, http://c:11434; d2 on http://b:11434"}
	if got := m.HostDrift(); !slices.Equal(got, want) {
		t.Errorf("drift %q, want %q", got, want)
	}
	m.Hosts[1].Digest = "d1"
	if got := m.HostDrift(); got != nil {
		t.Errorf("agreeing hosts: drift %q", got)
	}
	if got := (&Model{Name: "x"}).HostDrift(); got != nil {
		t.Errorf("no hosts: drift %q", got)
	}
}
