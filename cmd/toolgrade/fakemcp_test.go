package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestFakeMCPNotesDir: `toolgrade fake-mcp --dir DIR notes`, as a servers
// file names a trial's directory, keeps its notes in DIR/notes.json, not in
// its working directory.
func TestFakeMCPNotesDir(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, cwd := t.TempDir(), t.TempDir()
	cmd := exec.Command(self, "fake-mcp", "--dir", dir, "notes")
	cmd.Dir = cwd
	cmd.Env = append(os.Environ(), mainEnv+"=1")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "add_note", Arguments: map[string]any{"title": "groceries", "text": "milk"}})
	if err != nil || res.IsError {
		t.Fatalf("add_note: %v %+v", err, res)
	}
	cs.Close()
	data, err := os.ReadFile(filepath.Join(dir, "notes.json"))
	if err != nil || !strings.Contains(string(data), `"text": "milk"`) {
		t.Errorf("DIR/notes.json: %s (%v)", data, err)
	}
	if _, err := os.Stat(filepath.Join(cwd, "notes.json")); err == nil {
		t.Error("notes.json was written in the working directory too")
	}
}
