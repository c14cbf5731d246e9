package fakemcp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgrade/toolgrade/fakes/mcp"
)

// notesIn connects a notes server keeping its notes in dir.
func notesIn(t *testing.T, dir string) *mcp.ClientSession {
	t.Helper()
	cs, _ := connect(t, fakemcp.Notes(&fakemcp.NotesOptions{Dir: dir}))
	return cs
}

// fileNotes reads dir's notes.json as the state check of a scenario would
// see it, as "title=text" lines.
func fileNotes(t *testing.T, dir string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, fakemcp.NotesFile))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Notes []struct{ Title, Text string }
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("notes.json: %v\n%s", err, data)
	}
	var lines []string
	for _, n := range f.Notes {
		lines = append(lines, n.Title+"="+n.Text)
	}
	return strings.Join(lines, "\n")
}

// TestNotesLife: add, list, read, replace and delete, each change written
// to notes.json at once, sorted by title whatever the order of adding.
func TestNotesLife(t *testing.T) {
	dir := t.TempDir()
	cs := notesIn(t, dir)
	if got := wantText(t, cs, "list_notes", nil); got != "no notes" {
		t.Errorf("list_notes on a new directory = %q", got)
	}
	if msg := wantToolError(t, cs, "read_note", map[string]any{"title": "x"}); msg != `no note is titled "x": there are no notes` {
		t.Errorf("read_note with no notes = %q", msg)
	}
	if got := wantText(t, cs, "add_note", map[string]any{"title": "todo", "text": "call Ana"}); got != `Saved note "todo".` {
		t.Errorf("add_note = %q", got)
	}
	wantText(t, cs, "add_note", map[string]any{"title": "groceries", "text": "milk, eggs"})
	if got := fileNotes(t, dir); got != "groceries=milk, eggs\ntodo=call Ana" {
		t.Errorf("notes.json after two adds:\n%s", got)
	}
	if got := wantText(t, cs, "list_notes", nil); got != "groceries\ntodo" {
		t.Errorf("list_notes = %q", got)
	}
	if got := wantText(t, cs, "add_note", map[string]any{"title": "Groceries", "text": "bread"}); got != `Replaced note "Groceries".` {
		t.Errorf("add_note over an existing title = %q", got)
	}
	if got := wantText(t, cs, "read_note", map[string]any{"title": "GROCERIES"}); got != "bread" {
		t.Errorf("read_note ignoring case = %q", got)
	}
	if msg := wantToolError(t, cs, "delete_note", map[string]any{"title": "nope"}); msg != `no note is titled "nope"; the titles are: Groceries, todo` {
		t.Errorf("delete_note of an unknown title = %q", msg)
	}
	if got := wantText(t, cs, "delete_note", map[string]any{"title": "todo"}); got != `Deleted note "todo".` {
		t.Errorf("delete_note = %q", got)
	}
	if got := fileNotes(t, dir); got != "Groceries=bread" {
		t.Errorf("notes.json after replace and delete:\n%s", got)
	}
	if msg := wantToolError(t, cs, "add_note", map[string]any{"title": "", "text": "x"}); !strings.Contains(msg, "title") {
		t.Errorf("add_note with an empty title = %q", msg)
	}
}

// TestNotesIsolation: servers in one directory share their notes (a second
// server, or a second process, sees the first one's), servers in two
// directories never do: the directory is what isolates a trial.
func TestNotesIsolation(t *testing.T) {
	shared, other := t.TempDir(), t.TempDir()
	a, b, c := notesIn(t, shared), notesIn(t, shared), notesIn(t, other)
	wantText(t, a, "add_note", map[string]any{"title": "groceries", "text": "milk"})
	if got := wantText(t, b, "read_note", map[string]any{"title": "groceries"}); got != "milk" {
		t.Errorf("a server sharing the directory read %q", got)
	}
	if got := wantText(t, c, "list_notes", nil); got != "no notes" {
		t.Errorf("a server in another directory lists %q", got)
	}
}

// TestNotesConcurrentAdds: one server's concurrent calls lose no note.
func TestNotesConcurrentAdds(t *testing.T) {
	dir := t.TempDir()
	cs := notesIn(t, dir)
	var wg sync.WaitGroup
	for _, title := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		wg.Go(func() {
			if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "add_note", Arguments: map[string]any{"title": title, "text": title}}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if got := wantText(t, cs, "list_notes", nil); got != "a\nb\nc\nd\ne\nf\ng\nh" {
		t.Errorf("after 8 concurrent adds: %q", got)
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".notes-*"))
	if len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestNotesBadFile: a notes.json that is not one is a tool error saying
// what to do, and is left as it was.
func TestNotesBadFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, fakemcp.NotesFile)
	os.WriteFile(p, []byte("not json"), 0o644)
	cs := notesIn(t, dir)
	msg := wantToolError(t, cs, "add_note", map[string]any{"title": "t", "text": "x"})
	if !strings.Contains(msg, "is not a notes file") || !strings.Contains(msg, "delete it to start with no notes") {
		t.Errorf("add_note over a broken file = %q", msg)
	}
	if data, _ := os.ReadFile(p); string(data) != "not json" {
		t.Errorf("the broken file was changed to %q", data)
	}
}

// TestNotesAnnotations: the reading tools say they are read-only, the
// changing ones that they may destroy, and none reaches beyond the store.
func TestNotesAnnotations(t *testing.T) {
	cs := notesIn(t, t.TempDir())
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"add_note": "destructive", "delete_note": "destructive", "list_notes": "read-only", "read_note": "read-only"}
	for _, tool := range res.Tools {
		a := tool.Annotations
		if a == nil || a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s: annotations %+v, want openWorldHint false", tool.Name, a)
			continue
		}
		got := "read-only"
		if !a.ReadOnlyHint {
			got = "neither"
			if a.DestructiveHint != nil && *a.DestructiveHint {
				got = "destructive"
			}
		}
		if got != want[tool.Name] {
			t.Errorf("%s is %s, want %s", tool.Name, got, want[tool.Name])
		}
		delete(want, tool.Name)
	}
	if len(want) != 0 {
		t.Errorf("tools missing: %v", want)
	}
}

// TestStdioNotes: `fake-mcp notes` started in a directory keeps its notes
// in that directory's notes.json, and a second process there reads them.
func TestStdioNotes(t *testing.T) {
	dir := t.TempDir()
	for _, step := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"add_note", map[string]any{"title": "groceries", "text": "milk, eggs"}, `Saved note "groceries".`},
		{"read_note", map[string]any{"title": "groceries"}, "milk, eggs"},
	} {
		cmd, stderr := serverCommand(t, "notes")
		cmd.Dir = dir
		cs, err := mcp.NewClient(clientImpl, nil).Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := wantText(t, cs, step.tool, step.args); got != step.want {
			t.Errorf("%s over stdio = %q, want %q", step.tool, got, step.want)
		}
		if err := cs.Close(); err != nil || cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 0 {
			t.Errorf("closing: %v, process %v (stderr: %s)", err, cmd.ProcessState, stderr)
		}
	}
	if got := fileNotes(t, dir); got != "groceries=milk, eggs" {
		t.Errorf("notes.json in the server's directory:\n%s", got)
	}
}
