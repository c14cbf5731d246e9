package draft

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoClientDependencies: a draft is made from files alone, anywhere, so
// the package may not pull in the MCP servers, the bridge, the proxy or the
// Ollama client's users (STYLE: stages meet at files). Ollama's api package
// comes in through internal/suite, for its tool types only.
func TestNoClientDependencies(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command:", err)
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{"/internal/mcpclient", "/internal/llm", "/internal/bridge", "/internal/proxy", "modelcontextprotocol/go-sdk"} {
			if strings.Contains(dep, banned) {
				t.Errorf("draft depends on %s", dep)
			}
		}
	}
}
