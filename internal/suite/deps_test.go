package suite

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLoadingASuiteReachesNoReport: loading a suite checks its gates with
// the expression leaf alone, so it never pulls in what checks them, the
// summary model, the run store, comparisons or the renderers (and their
// table and template libraries).
func TestLoadingASuiteReachesNoReport(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command:", err)
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const mod = "github.com/toolgrade/toolgrade/"
	banned := map[string]bool{}
	for _, p := range []string{"reports", "internal/gate", "internal/summary", "internal/compare", "internal/curve", "internal/store"} {
		banned[mod+p] = true
	}
	for _, dep := range strings.Fields(string(out)) {
		if banned[dep] || dep == "html/template" || strings.HasPrefix(dep, "github.com/olekukonko/tablewriter") {
			t.Errorf("internal/suite depends on %s", dep)
		}
	}
}
