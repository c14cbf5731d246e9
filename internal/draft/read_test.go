package draft

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgrade/toolgrade/internal/record"
)

func writeLines(t *testing.T, path string, lines ...string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func transcriptLine(t *testing.T, c Conversation) string {
	t.Helper()
	b, err := json.Marshal(c.Transcript)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// readAll reads path and returns each conversation's source and question.
func readAll(t *testing.T, path string) ([]string, []*record.SyntaxError, error) {
	t.Helper()
	var got []string
	w, err := Read(path, func(c Conversation) {
		got = append(got, c.Source.String()+" "+lastUser(c.Transcript.Messages))
	})
	return got, w, err
}

func TestReadRecording(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, record.TranscriptsFile)
	writeLines(t, file,
		transcriptLine(t, conv(0, "m", "A?")),
		`{"model": "m", "messages": [{"role": "user", "con`,
		"",
		`{"answer": "no model"}`,
		transcriptLine(t, conv(0, "m", "B?")))
	for _, path := range []string{dir, file} {
		got, warnings, err := readAll(t, path)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{file + ":1 A?", file + ":5 B?"}
		if !cmp.Equal(got, want) {
			t.Errorf("Read(%s) = %q, want %q", path, got, want)
		}
		var ws []string
		for _, w := range warnings {
			ws = append(ws, w.Error())
		}
		wantW := []string{file + ":2: unexpected end of JSON input", file + ":4: not a transcript: no model or messages"}
		if !cmp.Equal(ws, wantW) {
			t.Errorf("warnings %q, want %q", ws, wantW)
		}
	}
}

func TestReadTrials(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, record.TrialsFile))
	if err != nil {
		t.Fatal(err)
	}
	w := record.NewWriter(f)
	for _, tr := range []*record.Trial{
		{Model: "m", CaseID: "a", Transcript: conv(0, "m", "first try of a").Transcript},
		{Model: "m", CaseID: "b", Transcript: conv(0, "m", "b").Transcript},
		{Model: "m", CaseID: "a", Transcript: conv(0, "m", "rerun of a").Transcript},
		{Model: "m", CaseID: "c", Variant: "terse", Repeat: 2, Transcript: conv(0, "m", "c").Transcript},
	} {
		if err := w.Write(tr); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	file := filepath.Join(dir, record.TrialsFile)
	// The last line of a key wins, in file order; a copy under another name
	// is told from a recording by its lines.
	other := filepath.Join(dir, "shard-0.jsonl")
	b, _ := os.ReadFile(file)
	os.WriteFile(other, b, 0o644)
	for path, name := range map[string]string{dir: file, file: file, other: other} {
		got, warnings, err := readAll(t, path)
		if err != nil || len(warnings) > 0 {
			t.Fatal(err, warnings)
		}
		want := []string{name + ": m b#0 b", name + ": m a#0 rerun of a", name + ": m c@terse#2 c"}
		if !cmp.Equal(got, want) {
			t.Errorf("Read(%s) = %q, want %q", path, got, want)
		}
	}
}

func TestReadErrors(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := readAll(t, dir); err == nil || !strings.Contains(err.Error(), "holds neither transcripts.jsonl (serve --record) nor trials.jsonl (a run)") {
		t.Errorf("an empty directory: %v", err)
	}
	if _, _, err := readAll(t, filepath.Join(dir, "missing")); !os.IsNotExist(err) {
		t.Errorf("a missing path: %v", err)
	}
}
