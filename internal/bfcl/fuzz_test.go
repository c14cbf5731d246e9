package bfcl

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolgrade/toolgrade/internal/srcpos"
)

// addFileSeeds seeds f with every file glob matches.
func addFileSeeds(f *testing.F, glob string) {
	files, err := filepath.Glob(glob)
	if err != nil || len(files) == 0 {
		f.Fatalf("no seeds in %s: %v", glob, err)
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

// lineErrors checks that err is nil or a srcpos.List of errors in file,
// each on a line of data (a read error has none), and returns how many
// there are on each line.
func lineErrors(t *testing.T, err error, data []byte) map[int]int {
	t.Helper()
	n := bytes.Count(data, []byte("\n")) + 1
	out := map[int]int{}
	if err == nil {
		return out
	}
	var l srcpos.List
	if !errors.As(err, &l) || len(l) == 0 {
		t.Fatalf("error %T is not a srcpos.List: %v", err, err)
	}
	for _, e := range l {
		if e.Pos.File != "fuzz.json" || e.Pos.Line < 0 || e.Pos.Line > n || e.Pos.Col < 0 {
			t.Fatalf("error not on a line of fuzz.json: %v", e)
		}
		out[e.Pos.Line]++
	}
	return out
}

// nonBlankLines returns the numbers of the lines of data a reader reads.
func nonBlankLines(data []byte) []int {
	var out []int
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, len(data)+1)
	for n := 1; sc.Scan(); n++ {
		if len(bytes.TrimSpace(sc.Bytes())) > 0 {
			out = append(out, n)
		}
	}
	return out
}

// FuzzReadQuestions checks that every non-blank line of a question file is
// a question or has an error on its line, and that Schema, in each
// language, neither panics nor changes the function it converts, and
// gives an object schema that encodes as JSON.
func FuzzReadQuestions(f *testing.F) {
	addFileSeeds(f, "testdata/BFCL_v3_*.json")
	q, _ := Synthetic(4)
	f.Add(q)
	for _, s := range []string{
		"\n \n",
		`{"id": "x", "question": "q", "function": [{"name": "f", "parameters": {"properties": {"a": {"items": {"type": "list", "items": {"type": "tuple"}}, "type": "array"}}}}]}`,
		`{"id": "java_1", "question": [[{"role": "user"}]], "function": [{"name": "f", "parameters": {"type": "dict", "properties": {"p": {"type": "ArrayList", "items": {"type": "x"}}, "q": {"type": "dict", "properties": {"r": {"type": "float"}}}}}}]}`,
		`{"id": 1} x`,
		`[{"id": "a"}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		qs, err := ReadQuestions(bytes.NewReader(data), "fuzz.json")
		errs := lineErrors(t, err, data)
		read := map[int]bool{}
		for _, q := range qs {
			// No messages ([[]]) is read: the import says a question must
			// end with a user message.
			if q.ID == "" || read[q.Pos.Line] || errs[q.Pos.Line] > 0 {
				t.Fatalf("question %+v: no id, or a line read twice or with errors", q)
			}
			read[q.Pos.Line] = true
			for _, fn := range q.Functions {
				checkSchema(t, fn)
			}
		}
		for _, n := range nonBlankLines(data) {
			if !read[n] && errs[n] == 0 {
				t.Fatalf("line %d is neither a question nor an error", n)
			}
		}
	})
}

// checkSchema converts fn in every language.
func checkSchema(t *testing.T, fn Function) {
	t.Helper()
	before, err := json.Marshal(fn.Parameters)
	if err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"python", "java", "javascript"} {
		s, err := Schema(fn, lang)
		if after, _ := json.Marshal(fn.Parameters); !bytes.Equal(after, before) {
			t.Fatalf("Schema(%s) changed the function's parameters:\n%s\n%s", lang, before, after)
		}
		if err != nil {
			continue
		}
		props, _ := s.Get("properties")
		if len(s) == 0 || s[0].Key != "type" || s[0].Value != "object" || props == nil {
			t.Fatalf("Schema(%s) = %v, not an object schema with properties", lang, s)
		}
		if _, err := json.Marshal(s); err != nil {
			t.Fatalf("Schema(%s) does not encode: %v", lang, err)
		}
	}
}

// FuzzReadAnswers checks that every non-blank line of a possible-answer
// file is an answer, stored under its id, or has an error on its line.
func FuzzReadAnswers(f *testing.F) {
	addFileSeeds(f, "testdata/possible_answer/BFCL_v3_*.json")
	_, a := Synthetic(4)
	f.Add(a)
	for _, s := range []string{
		`{"id": "a", "ground_truth": [{"f": {"x": [1]}, "g": {}}, {"h": []}, {"i": {"y": []}}]}` + "\n" + `{"id": "a", "ground_truth": [{"f": {}}]}`,
		`{"id": "", "ground_truth": []}`,
		`{"id": "b", "ground_truth": [{"f": {"x": [1.0, "", {"k": [2]}]}}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		as, err := ReadAnswers(bytes.NewReader(data), "fuzz.json")
		errs := lineErrors(t, err, data)
		read := map[int]bool{}
		for id, a := range as {
			if a.ID != id || id == "" || read[a.Pos.Line] {
				t.Fatalf("answer %+v stored under %q, or a line read twice", a, id)
			}
			read[a.Pos.Line] = true
		}
		for _, n := range nonBlankLines(data) {
			if !read[n] && errs[n] == 0 {
				t.Fatalf("line %d is neither an answer nor an error", n)
			}
		}
	})
}
