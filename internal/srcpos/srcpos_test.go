package srcpos

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"ask", "aks", 1}, {"search", "serch", 1}, {"kitten", "sitting", 3},
		{"", "abc", 3}, {"ca", "abc", 3}, {"env", "evn", 1}, {"é", "e", 1},
	} {
		if got := Distance(tt.a, tt.b); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestSuggest(t *testing.T) {
	known := []string{"command", "args", "env", "max_rounds", "models", "disabled"}
	for _, tt := range []struct{ in, want string }{
		{"comand", "command"},
		{"COMMAND", "command"}, // case is ignored
		{"evn", "env"},         // a swap is one edit, within a 3-letter name's limit of 1
		{"ev", "env"},          //
		{"xyz", ""},            // 3 edits from env
		{"agrs", "args"},       //
		{"max_round", "max_rounds"},
		{"disabeld", "disabled"}, // within 2 for 8 letters
		{"zzzzzz", ""},
	} {
		if got := Suggest(tt.in, known); got != tt.want {
			t.Errorf("Suggest(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := Suggest("x", nil); got != "" {
		t.Errorf("Suggest with no candidates = %q", got)
	}
}

func TestUnknown(t *testing.T) {
	if got, want := Unknown("field", "comand", []string{"command", "args"}), `unknown field "comand" (did you mean "command"?)`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if got, want := Unknown("key", "zzz", []string{"id", "ask"}), `unknown key "zzz" (known keys: id, ask)`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestErrorRendering(t *testing.T) {
	for _, tt := range []struct {
		e    Error
		want string
	}{
		{Error{Pos{"s.json", 2, 12}, "mcpServers.docs", "bad", ""}, "s.json:2:12: mcpServers.docs: bad"},
		{Error{Pos{"s.yaml", 3, 0}, "", "bad", ""}, "s.yaml:3: bad"},
		{Error{Pos{"s.json", 0, 0}, "", "empty file", ""}, "s.json: empty file"},
		{Error{Pos{}, "rules[0].user", "bad", ""}, "rules[0].user: bad"}, // a script built in Go
	} {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
}

func TestList(t *testing.T) {
	var l List
	if l.Err() != nil {
		t.Fatal("an empty list is an error")
	}
	l.Add(Pos{"a", 3, 1}, "x", "third")
	l.Add(Pos{"a", 1, 5}, "", "first")
	l.Add(Pos{"a", 1, 5}, "", "second") // same place: kept in order
	err := l.Err()
	want := "a:1:5: first\na:1:5: second\na:3:1: x: third"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
	var back List
	if !errors.As(err, &back) || len(back) != 3 {
		t.Errorf("errors.As(List) = %v", back)
	}
	l = nil
	for i := range MaxErrors + 5 {
		l.Add(Pos{"a", i + 1, 1}, "", "e")
	}
	lines := strings.Split(l.Error(), "\n")
	if len(lines) != MaxErrors+1 || lines[MaxErrors] != "a:21:1: too many errors (5 more not shown)" {
		t.Errorf("%d lines, last %q", len(lines), lines[len(lines)-1])
	}
}

func TestOffset(t *testing.T) {
	data := []byte("{\n  \"é\": 1,\n\tx}")
	for _, tt := range []struct {
		off       int
		line, col int
	}{
		{0, 1, 1}, {1, 1, 2}, {2, 2, 1}, {8, 2, 6}, // "é" is two bytes, one column
		{13, 3, 1}, {14, 3, 2}, {-4, 1, 1}, {99, 3, 4},
	} {
		if got := Offset("f", data, tt.off); got != (Pos{"f", tt.line, tt.col}) {
			t.Errorf("Offset(%d) = %v, want f:%d:%d", tt.off, got, tt.line, tt.col)
		}
	}
}

func TestNode(t *testing.T) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte("a:\n  b: 1\n"), &doc); err != nil {
		t.Fatal(err)
	}
	b := doc.Content[0].Content[1].Content[0]
	if got := Node("f.yaml", b); got != (Pos{"f.yaml", 2, 3}) {
		t.Errorf("Node = %v", got)
	}
	if got := Node("f.yaml", nil); got != (Pos{File: "f.yaml"}) {
		t.Errorf("Node(nil) = %v", got)
	}
}

type inner struct {
	Contains string `yaml:"contains"`
}

type outer struct {
	Name  string           `yaml:"name"`
	Items []inner          `yaml:"items"`
	ByKey map[string]inner `yaml:"by_key"`
	Ptr   *inner           `yaml:"ptr"`
}

func TestUnknownFields(t *testing.T) {
	src := "nmae: x\nitems:\n  - {contians: a}\nby_key:\n  k: {contais: b}\nptr: {contains: c, extra: 1}\n"
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(src), &root); err != nil {
		t.Fatal(err)
	}
	got := UnknownFields("f.yaml", &root, &outer{}).Error()
	want := strings.Join([]string{
		`f.yaml:1:1: unknown field "nmae" (did you mean "name"?)`,
		`f.yaml:3:6: items[0]: unknown field "contians" (did you mean "contains"?)`,
		`f.yaml:5:7: by_key.k: unknown field "contais" (did you mean "contains"?)`,
		`f.yaml:6:20: ptr: unknown field "extra" (known fields: contains)`,
	}, "\n")
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestNearestAndRelated(t *testing.T) {
	names := []string{"search_web", "get_doc", "list_docs", "search_docs", "read_file"}
	if got, want := Nearest("serch_docs", names, 3), []string{"search_docs", "list_docs", "get_doc"}; !slices.Equal(got, want) {
		t.Errorf("Nearest = %v, want %v", got, want)
	}
	if got := Nearest("x", names, 9); len(got) != len(names) {
		t.Errorf("Nearest of more than there are = %v", got)
	}
	for _, tt := range []struct{ in, want string }{
		{"docs_search", "search_docs"}, // another order
		{"search", "search_web"},       // shorter: the nearest of the two it is part of
		{"search_doc", "search_docs"},  // a word cut short
		{"docs-list", "list_docs"},     // other separators
		{"weather", ""},
		{"search_documents", ""}, // docs is not documents
		{"", ""},
	} {
		if got := Related(tt.in, names); got != tt.want {
			t.Errorf("Related(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestCursorAgreesWithOffset: a Cursor gives Offset's position at every
// rune boundary, asked in increasing order (as a decoder asks), backwards
// and past either end.
func TestCursorAgreesWithOffset(t *testing.T) {
	data := []byte("{\"a\": 1,\n  \"é\": \"日本\",\r\n\n\"z\": [1,\n2]}\n")
	var offs []int
	for i := range string(data) {
		offs = append(offs, i)
	}
	offs = append(offs, len(data), len(data)+5, 3, 0, -2, 17, 9, 40)
	c := NewCursor("f", data)
	for _, off := range offs {
		if got, want := c.Pos(off), Offset("f", data, off); got != want {
			t.Errorf("Cursor.Pos(%d) = %v, Offset = %v", off, got, want)
		}
	}
}

// TestCursorIsLinear: offsets asked in order over one long line (a minified
// file) read each byte at most twice, where Offset reads the whole prefix
// every time.
func TestCursorIsLinear(t *testing.T) {
	data := []byte(strings.Repeat(`"k":"v",`, 100000) + "\n" + strings.Repeat(`"é":1,`, 1000))
	c := NewCursor("f", data)
	for off := 0; off < len(data); off += 4 {
		c.Pos(off)
	}
	if c.scanned > 2*len(data) {
		t.Errorf("the cursor read %d bytes for a file of %d", c.scanned, len(data))
	}
}
