package mcpclient

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestLowerHalvesReachNoClient: the client stands on the servers file and
// the schema conversion, and neither reaches back. Reading a servers file
// imports no package of toolgrade but srcpos and redact; converting a tool's
// schema none but bridge (for ToolInfo, with record) and termtext. So init,
// decoys and recorded catalogs link no client.
func TestLowerHalvesReachNoClient(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command:", err)
	}
	const mod = "github.com/toolgrade/toolgrade/"
	allowed := map[string][]string{
		"internal/serversfile": {"internal/srcpos", "internal/redact"},
		"internal/toolschema":  {"internal/bridge", "internal/record", "internal/termtext"},
	}
	out, err := exec.Command(goTool, "list", "-f", `{{.ImportPath}} {{join .Deps " "}}`, "../serversfile", "../toolschema").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], mod)
		may, listed := allowed[pkg]
		if !listed {
			t.Fatalf("go list named %s, which the rules do not", fields[0])
		}
		seen++
		for _, dep := range fields[1:] {
			if name, inModule := strings.CutPrefix(dep, mod); inModule && !slices.Contains(may, name) {
				t.Errorf("%s depends on %s", pkg, dep)
			}
		}
	}
	if seen != len(allowed) {
		t.Errorf("go list answered for %d of the %d packages", seen, len(allowed))
	}
}
