// Package refservers finds the pinned npm MCP reference servers
// (cases/servers/package.json, installed into cases/servers/node_modules by
// `make deps`) for the tests that run them over real stdio.
package refservers

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Hint says why a test that runs the reference servers cannot run.
const Hint = "needs the npm reference servers: make deps"

// The entry scripts of the reference servers, relative to node_modules; run
// them with node.
const (
	Filesystem = "@modelcontextprotocol/server-filesystem/dist/index.js"
	Everything = "@modelcontextprotocol/server-everything/dist/index.js"
	Memory     = "@modelcontextprotocol/server-memory/dist/index.js"
)

// Script returns the absolute path of script, one of the constants above, for
// a test whose package folder is root/..., root being the module's root
// relative to it ("../.." for cmd/toolgrade). Under `go test -short` the test
// is skipped, saying why; otherwise a missing node or server fails it, never
// a silent skip, so a full run cannot pass without having run the servers.
func Script(t testing.TB, root, script string) string {
	t.Helper()
	if testing.Short() {
		t.Skipf("%s (skipped under -short)", Hint)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("%s: node is not on PATH (%v)", Hint, err)
	}
	p, err := filepath.Abs(filepath.Join(root, "cases", "servers", "node_modules", script))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s: %v", Hint, err)
	}
	return p
}
