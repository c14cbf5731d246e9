package store

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoClientDependencies: report, compare and the gates read runs offline
// through this package, so neither it nor they may pull in the MCP or Ollama
// clients (STYLE: stages meet at files).
func TestNoClientDependencies(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command:", err)
	}
	out, err := exec.Command(goTool, "list", "-deps", ".", "../compare", "../gate", "../../reports").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{"/internal/mcpclient", "/internal/llm", "/internal/bridge", "github.com/ollama/ollama", "modelcontextprotocol/go-sdk"} {
			if strings.Contains(dep, banned) {
				t.Errorf("store, compare, gate or reports depends on %s", dep)
			}
		}
	}
}
