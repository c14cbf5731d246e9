package expr

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLeaf: the expression parser imports no package of toolgrade but the
// metric table and srcpos (and the record the table judges), so a suite can
// parse its gates without what checks them.
func TestLeaf(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command:", err)
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const mod = "github.com/toolgrade/toolgrade/"
	allowed := map[string]bool{mod + "internal/gate/expr": true, mod + "internal/metric": true, mod + "internal/srcpos": true, mod + "internal/record": true}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, mod) && !allowed[dep] {
			t.Errorf("internal/gate/expr depends on %s", dep)
		}
	}
}
