package fakemcp

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// NotesFile is the file a [Notes] server keeps its notes in, in its
// directory: a fresh directory per trial gives each trial its own notes,
// and trials sharing one see each other's.
const NotesFile = "notes.json"

// Tool descriptions are what a model sees; change them only on purpose.
const (
	notesInstructions = "A notes store: notes with a title and a text, kept in " + NotesFile + " in the server's working directory. " +
		"Use add_note to save one, list_notes to see the titles, read_note to read one, delete_note to remove one."

	addNoteDescription = "Save a note with a title and a text. A note that already has this title (ignoring case) is replaced. " +
		"Use read_note afterwards to check what was saved."
	listNotesDescription = "List the titles of all notes, sorted, one per line; the result is \"no notes\" when there are none."
	readNoteDescription  = "Return the text of the note with this title (ignoring case). " +
		"An unknown title is an error that lists the titles there are."
	deleteNoteDescription = "Delete the note with this title (ignoring case). " +
		"An unknown title is an error that lists the titles there are."
)

const (
	maxTitle = 100
	maxText  = 10000
)

type titleArgs struct {
	Title string `json:"title" jsonschema:"The note's title, for example 'groceries'; case does not matter."`
}

type addNoteArgs struct {
	Title string `json:"title" jsonschema:"The note's title, for example 'groceries'."`
	Text  string `json:"text" jsonschema:"The note's text, saved exactly as given."`
}

// note is one note as notes.json holds it.
type note struct {
	Title string `json:"title"`
	Text  string `json:"text"`
}

// NotesOptions tune a [Notes] server; the zero value (or nil) keeps the
// notes in the working directory.
type NotesOptions struct {
	// Dir is the directory whose NotesFile holds the notes; empty: the
	// process's working directory, as `toolgrade fake-mcp notes` started
	// in a trial's directory uses it.
	Dir string
}

// Notes returns the notes server: add_note, list_notes, read_note and
// delete_note over NotesFile, read at every call and written whole after
// every change, so the state outlives the process and is what a state
// check reads.
func Notes(o *NotesOptions) *mcp.Server {
	if o == nil {
		o = &NotesOptions{}
	}
	st := &notesStore{path: filepath.Join(o.Dir, NotesFile)}
	s := newServer(&mcp.Implementation{Name: "notes", Title: "Notes (toolgrade fake)", Version: version},
		&mcp.ServerOptions{Instructions: notesInstructions})
	closed := new(bool) // false: the store is all there is (openWorldHint)
	titleSchema := func(p map[string]*jsonschema.Schema) {
		p["title"].MinLength, p["title"].MaxLength = new(1), new(maxTitle)
	}

	mcp.AddTool(s, &mcp.Tool{
		Name: "add_note", Description: addNoteDescription,
		Annotations: &mcp.ToolAnnotations{Title: "Add a note", DestructiveHint: new(true), IdempotentHint: true, OpenWorldHint: closed},
		InputSchema: inputSchema[addNoteArgs](func(p map[string]*jsonschema.Schema) {
			titleSchema(p)
			p["text"].MaxLength = new(maxText)
		}),
	}, func(_ context.Context, _ *mcp.CallToolRequest, in addNoteArgs) (*mcp.CallToolResult, any, error) {
		return st.change(func(notes []note) ([]note, string, error) {
			n := note{Title: in.Title, Text: in.Text}
			if i := find(notes, in.Title); i >= 0 {
				notes[i] = n
				return notes, fmt.Sprintf("Replaced note %q.", in.Title), nil
			}
			return append(notes, n), fmt.Sprintf("Saved note %q.", in.Title), nil
		})
	})

	mcp.AddTool(s, &mcp.Tool{
		Name: "list_notes", Description: listNotesDescription,
		Annotations: &mcp.ToolAnnotations{Title: "List notes", ReadOnlyHint: true, OpenWorldHint: closed},
		InputSchema: inputSchema[noArgs](nil),
	}, func(context.Context, *mcp.CallToolRequest, noArgs) (*mcp.CallToolResult, any, error) {
		notes, err := st.read()
		if err != nil {
			return nil, nil, err
		}
		if len(notes) == 0 {
			return textResult("no notes"), nil, nil
		}
		return textResult(strings.Join(titles(notes), "\n")), nil, nil
	})

	mcp.AddTool(s, &mcp.Tool{
		Name: "read_note", Description: readNoteDescription,
		Annotations: &mcp.ToolAnnotations{Title: "Read a note", ReadOnlyHint: true, OpenWorldHint: closed},
		InputSchema: inputSchema[titleArgs](titleSchema),
	}, func(_ context.Context, _ *mcp.CallToolRequest, in titleArgs) (*mcp.CallToolResult, any, error) {
		notes, err := st.read()
		if err != nil {
			return nil, nil, err
		}
		i := find(notes, in.Title)
		if i < 0 {
			return nil, nil, unknownNote(in.Title, notes)
		}
		return textResult(notes[i].Text), nil, nil
	})

	mcp.AddTool(s, &mcp.Tool{
		Name: "delete_note", Description: deleteNoteDescription,
		Annotations: &mcp.ToolAnnotations{Title: "Delete a note", DestructiveHint: new(true), IdempotentHint: true, OpenWorldHint: closed},
		InputSchema: inputSchema[titleArgs](titleSchema),
	}, func(_ context.Context, _ *mcp.CallToolRequest, in titleArgs) (*mcp.CallToolResult, any, error) {
		return st.change(func(notes []note) ([]note, string, error) {
			i := find(notes, in.Title)
			if i < 0 {
				return nil, "", unknownNote(in.Title, notes)
			}
			msg := fmt.Sprintf("Deleted note %q.", notes[i].Title)
			return slices.Delete(notes, i, i+1), msg, nil
		})
	})
	return s
}

// notesStore is NotesFile, read and written whole; mu keeps one server's
// concurrent calls from losing each other's changes (two processes sharing
// a directory still can, as two writers of one file do).
type notesStore struct {
	path string
	mu   sync.Mutex
}

// read returns the notes, none when the file does not exist yet.
func (s *notesStore) read() ([]note, error) {
	data, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var f struct {
		Notes []note `json:"notes"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s is not a notes file (%v): fix it, or delete it to start with no notes", s.path, err)
	}
	return f.Notes, nil
}

// change applies fn to the notes and writes the result, sorted by title;
// fn's error is the tool's error and leaves the file as it was.
func (s *notesStore) change(fn func([]note) ([]note, string, error)) (*mcp.CallToolResult, any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	notes, err := s.read()
	if err != nil {
		return nil, nil, err
	}
	notes, msg, err := fn(notes)
	if err != nil {
		return nil, nil, err
	}
	slices.SortFunc(notes, func(a, b note) int {
		return cmp.Or(cmp.Compare(strings.ToLower(a.Title), strings.ToLower(b.Title)), cmp.Compare(a.Title, b.Title))
	})
	if err := s.write(notes); err != nil {
		return nil, nil, err
	}
	return textResult(msg), nil, nil
}

// write replaces the file through a temporary one, so a reader never sees
// half of it.
func (s *notesStore) write(notes []note) error {
	if notes == nil {
		notes = []note{} // "notes": [], not null
	}
	data, err := json.MarshalIndent(struct {
		Notes []note `json:"notes"`
	}{notes}, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.path), ".notes-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), s.path)
}

// find returns the index of the note titled title, ignoring case, or -1.
func find(notes []note, title string) int {
	return slices.IndexFunc(notes, func(n note) bool { return strings.EqualFold(n.Title, title) })
}

func titles(notes []note) []string {
	out := make([]string, len(notes))
	for i, n := range notes {
		out[i] = n.Title
	}
	return out
}

func unknownNote(title string, notes []note) error {
	if len(notes) == 0 {
		return fmt.Errorf("no note is titled %q: there are no notes", title)
	}
	return fmt.Errorf("no note is titled %q; the titles are: %s", title, strings.Join(titles(notes), ", "))
}
