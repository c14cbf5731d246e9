package simuser

import (
	"testing"

	"github.com/ollama/ollama/api"
)

// BenchmarkNext is one user-model turn against the fake Ollama over
// loopback HTTP: the request built, streamed and read. It is what the
// simulated user adds to a turn beyond the user model's own time.
func BenchmarkNext(b *testing.B) {
	u, _, _ := fake(b, "u")
	u.OnTurn = nil
	convo := []api.Message{{Role: "user", Content: "Please note milk under groceries."}, {Role: "assistant", Content: "Saved."}}
	b.ReportAllocs()
	for b.Loop() {
		if msg, _, err := u.Next(b.Context(), convo); err != nil || msg == "" {
			b.Fatal(msg, err)
		}
	}
}
