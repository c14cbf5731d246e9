package bfcl

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/suite"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// fixtureFiles are the project's own fixtures in BFCL's format, one file
// per category, with their possible answers.
func fixtureFiles(t testing.TB) (questions, answers []string) {
	t.Helper()
	qs, err := filepath.Glob("testdata/BFCL_v3_*.json")
	if err != nil || len(qs) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	as, _ := filepath.Glob("testdata/possible_answer/BFCL_v3_*.json")
	return qs, as
}

func importFixtures(t testing.TB) (*Import, []byte) {
	t.Helper()
	qs, as := fixtureFiles(t)
	im, err := Load(qs, as)
	if err != nil {
		t.Fatal(err)
	}
	doc, warnings, err := im.Suite()
	if err != nil || len(warnings) > 0 {
		t.Fatalf("Suite: %v %v", err, warnings)
	}
	var b bytes.Buffer
	if err := Write(&b, doc); err != nil {
		t.Fatal(err)
	}
	return im, b.Bytes()
}

// TestImportGolden: the import of every fixture, byte for byte (run with
// -update after a deliberate change, and read the diff).
func TestImportGolden(t *testing.T) {
	_, got := importFixtures(t)
	_, again := importFixtures(t)
	if !bytes.Equal(got, again) {
		t.Fatal("two imports of the same files differ")
	}
	golden := filepath.Join("testdata", "golden", "fixtures.yaml")
	if *update {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("import differs from %s (go test -update to accept):\n%s", golden, got)
	}
}

// ImportedSuite is the fixtures' suite as toolgrade's loader reads it.
func importedSuite(t testing.TB) (*Import, *suite.Suite) {
	t.Helper()
	im, src := importFixtures(t)
	s, err := suite.Parse(src, "bfcl.yaml")
	if err != nil {
		t.Fatalf("the imported suite does not load: %v", err)
	}
	return im, s
}

// TestImportStructure: every question is a case with its id, the two tags,
// and the expectation of its category.
func TestImportStructure(t *testing.T) {
	im, s := importedSuite(t)
	if len(s.Cases) != len(im.Questions) {
		t.Fatalf("%d cases of %d questions", len(s.Cases), len(im.Questions))
	}
	cats := map[string]bool{}
	for i, c := range s.Cases {
		q := im.Questions[i]
		cat := CategoryOf(q.ID)
		cats[cat] = true
		if c.ID != q.ID || !slices.Equal(c.Tags, []string{"bfcl", "bfcl_category:" + cat}) {
			t.Errorf("case %d: id %s tags %v", i, c.ID, c.Tags)
		}
		if last := c.Messages[len(c.Messages)-1]; last.Role != "user" || last.Content != q.Messages[len(q.Messages)-1].Content {
			t.Errorf("%s: last message %+v", c.ID, last)
		}
		// Every function is offered as an inline tool of the case, under
		// the name tool APIs accept, and nothing runs.
		if len(c.Tools) != len(q.Functions) || !c.NoExecute {
			t.Errorf("%s: %d tools for %d functions, no-execute %v", c.ID, len(c.Tools), len(q.Functions), c.NoExecute)
		}
		for j, ct := range c.Tools {
			if !ct.Inline || ct.Name != ToolName(q.Functions[j].Name) {
				t.Errorf("%s: tool %d is %+v, want inline %s", c.ID, j, ct, ToolName(q.Functions[j].Name))
			}
		}
		e := c.Expect
		switch KindOf(cat) {
		case Irrelevance:
			if !e.NoTool {
				t.Errorf("%s: want no_tool", c.ID)
			}
		case Relevance:
			if !e.AnyTool {
				t.Errorf("%s: want any_tool", c.ID)
			}
		case OneCall:
			if len(e.Calls) != 1 || e.AnyOrder || e.FirstOnly || e.StrictArgs == nil || !*e.StrictArgs {
				t.Errorf("%s: want exactly one call, strict: %+v", c.ID, e)
			}
		case Parallel:
			if len(e.Calls) != len(im.Answers[q.ID].Calls) || !e.AnyOrder || e.StrictArgs == nil || !*e.StrictArgs {
				t.Errorf("%s: want every call in any order, strict: %+v", c.ID, e)
			}
		}
		for j, call := range e.Calls {
			want := ToolName(im.Answers[q.ID].Calls[j].Name)
			if call.Tool != want || strings.Contains(call.Tool, ".") {
				t.Errorf("%s: call %d names %s, want %s", c.ID, j, call.Tool, want)
			}
			for _, a := range call.Args {
				if a.Kind != suite.MatchBFCL {
					t.Errorf("%s: %s is a %s matcher", c.ID, a.Key, a.Kind)
				}
			}
		}
	}
	for _, want := range []string{"simple", "java", "javascript", "multiple", "parallel", "parallel_multiple", "irrelevance",
		"live_simple", "live_multiple", "live_parallel", "live_parallel_multiple", "live_irrelevance", "live_relevance"} {
		if !cats[want] {
			t.Errorf("no fixture of category %s", want)
		}
	}
}

// TestImportErrors: every problem is reported with its file and line.
func TestImportErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fn := `{"name": "f", "description": "d", "parameters": {"type": "dict", "properties": {"x": {"type": "integer", "description": "x"}}, "required": ["x"]}}`
	q := write("q.json", strings.Join([]string{
		`{"id": "simple_0", "question": [[{"role": "user", "content": "one"}]], "function": [` + fn + `]}`,
		`{"id": "simple_1", "question": [[{"role": "user", "content": "two"}]], "function": [` + strings.Replace(fn, `"integer"`, `"vector"`, 1) + `]}`,
		`{"id": "simple_2", "question": [[{"role": "user", "content": "three"}]], "function": [` + fn + `]`,
		`{"id": "chatty_0", "question": [[{"role": "user", "content": "four"}]], "function": [` + fn + `]}`,
		`{"id": "simple_4", "question": [[{"role": "user", "content": "a"}], [{"role": "user", "content": "b"}]], "function": [` + fn + `]}`,
		``,
		`{"id": "simple_6", "question": [[{"role": "user", "content": "six"}]], "function": [` + fn + `]}`,
	}, "\n"))
	a := write("a.json", strings.Join([]string{
		`{"id": "simple_1", "ground_truth": [{"f": {"x": [1]}}]}`,
		`{"id": "simple_6", "ground_truth": [{"g": {"x": [1]}}]}`,
		`{"id": "simple_6", "ground_truth": [{"f": {"x": [1]}}]}`,
	}, "\n"))
	im, err := Load([]string{q}, []string{a})
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		q + ":3:", // the line, then the column of the syntax error
		"malformed JSON: unexpected end of JSON",
		q + ":5: simple_4.question: has 2 turns; only single-turn categories can be imported",
		a + ":3: simple_6: duplicate id (first at line 2)",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Load error lacks %q:\n%v", want, err)
		}
	}
	_, _, err = im.Suite()
	if err == nil {
		t.Fatal("Suite: no error")
	}
	for _, want := range []string{
		q + `:1: simple_0: no possible answer with this id`,
		q + `:2: simple_1: function f: properties.x: unknown type "vector"`,
		q + `:4: chatty_0: the id names no known category`,
		q + `:7: simple_6: the possible answer at ` + a + `:2 calls "g", which the question does not offer`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Suite error lacks %q:\n%v", want, err)
		}
	}
}

// TestImportLeavesOutCollections: a Java or JavaScript collection, which
// toolgrade does not convert from its string form, leaves its question out
// with a warning that says where.
func TestImportLeavesOutCollections(t *testing.T) {
	fn := `{"name": "Lists.sum", "description": "d", "parameters": {"type": "dict", "properties": {"xs": {"type": "ArrayList", "items": {"type": "integer"}, "description": "xs"}}, "required": ["xs"]}}`
	qs, err := ReadQuestions(strings.NewReader(`{"id": "java_0", "question": [[{"role": "user", "content": "sum"}]], "function": [`+fn+`]}`), "j.json")
	if err != nil {
		t.Fatal(err)
	}
	as, err := ReadAnswers(strings.NewReader(`{"id": "java_0", "ground_truth": [{"Lists.sum": {"xs": ["new ArrayList<>(Arrays.asList(1, 2))"]}}]}`), "ja.json")
	if err != nil {
		t.Fatal(err)
	}
	_, warnings, err := (&Import{Questions: qs, Answers: as}).Suite()
	if err == nil || !strings.Contains(err.Error(), "no question to import") {
		t.Errorf("err %v", err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "j.json:1: java_0: left out: parameter xs has java type ArrayList") {
		t.Errorf("warnings %q", warnings)
	}
}

// TestSchemaTypes: BFCL's types as its function-calling handlers send them.
func TestSchemaTypes(t *testing.T) {
	v, _, err := decodeLine([]byte(`{"type": "dict", "properties": {
		"a": {"type": "dict", "description": "A.", "properties": {"b": {"type": "float", "description": "B."}}},
		"c": {"type": "tuple", "items": {"type": "float"}, "description": "C."},
		"d": {"type": "any", "description": "D."},
		"e": {"description": "E."},
		"f": {"type": "array", "items": {"type": "dict", "properties": {"g": {"type": "integer"}}}}
	}, "required": ["a"]}`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := Schema(Function{Name: "f", Parameters: v.(Object)}, "python")
	if err != nil {
		t.Fatal(err)
	}
	b := pyJSON(got)
	want := `{"type": "object", "properties": {` +
		`"a": {"type": "object", "description": "A.", "properties": {"b": {"type": "number", "description": "B. This is a float type value.", "format": "float"}}}, ` +
		`"c": {"type": "array", "items": {"type": "number"}, "description": "C."}, ` +
		`"d": {"type": "string", "description": "D."}, ` +
		`"e": {"type": "string", "description": "E."}, ` +
		`"f": {"type": "array", "items": {"type": "object", "properties": {"g": {"type": "integer"}}}}}, "required": ["a"]}`
	if b != want {
		t.Errorf("Schema:\n got %s\nwant %s", b, want)
	}
}

func TestToolNameAndCategory(t *testing.T) {
	if got := ToolName("math.factorial"); got != "math_factorial" {
		t.Errorf("ToolName = %s", got)
	}
	for id, want := range map[string]string{"simple_0": "simple", "live_simple_19-3-15": "live_simple", "parallel_multiple_7": "parallel_multiple",
		"simple_python_3": "simple_python", "multi_turn_base_0": "", "nounderscore": ""} {
		if got := CategoryOf(id); got != want {
			t.Errorf("CategoryOf(%s) = %q, want %q", id, got, want)
		}
	}
}

// TestSchemaJavaScript: func_doc_language_specific_pre_processing makes
// every parameter a string and writes a dict's schema into the description
// as json.dumps does.
func TestSchemaJavaScript(t *testing.T) {
	v, _, err := decodeLine([]byte(`{"type": "dict", "properties": {"opts": {"type": "dict", "description": "Options.", "properties": {"café": {"type": "String"}}}, "xs": {"type": "array", "items": {"type": "integer"}, "description": "Xs."}}}`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := Schema(Function{Name: "f", Parameters: v.(Object)}, "javascript")
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type": "object", "properties": {` +
		`"opts": {"type": "string", "description": "Options. This is JavaScript dict type parameter in string representation. The dictionary entries have the following schema; they are not in string representation. {\"caf\\u00e9\": {\"type\": \"String\"}}"}, ` +
		`"xs": {"type": "string", "description": "Xs. This is JavaScript array type parameter in string representation. The list elements are of type integer; they are not in string representation."}}}`
	if b := pyJSON(got); b != want {
		t.Errorf("Schema:\n got %s\nwant %s", b, want)
	}
}

// TestWriteByCase: writing case by case gives the bytes yaml.v3 gives for
// the whole document.
func TestWriteByCase(t *testing.T) {
	qs, as := fixtureFiles(t)
	im, err := Load(qs, as)
	if err != nil {
		t.Fatal(err)
	}
	// Block scalars, blank lines in them and a trailing space.
	more, err := ReadQuestions(strings.NewReader(`{"id": "irrelevance_9", "question": [[{"role": "user", "content": "First line.\n\n  Indented third line \nEnd"}]], "function": [{"name": "f", "description": "Does f.\n\nReally.", "parameters": {"type": "dict", "properties": {}}}]}`), "m.json")
	if err != nil {
		t.Fatal(err)
	}
	im.Questions = append(im.Questions, more...)
	doc, _, err := im.Suite()
	if err != nil {
		t.Fatal(err)
	}
	var byCase, whole bytes.Buffer
	if err := Write(&byCase, doc); err != nil {
		t.Fatal(err)
	}
	if err := writeWhole(&whole, doc); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(whole.String(), "Really.") {
		t.Fatalf("no multi-line case:\n%s", whole.String())
	}
	if byCase.String() != whole.String() {
		t.Errorf("case by case:\n%s\nwhole:\n%s", byCase.String(), whole.String())
	}
}

// TestAnswersGivenAsQuestions: a possible-answer file given where questions
// go is named as such, once, with where to give it.
func TestAnswersGivenAsQuestions(t *testing.T) {
	a := "{\"id\": \"simple_0\", \"ground_truth\": [{\"f\": {\"x\": [1]}}]}\n{\"id\": \"simple_1\", \"ground_truth\": [{\"f\": {\"x\": [2]}}]}\n"
	_, err := ReadQuestions(strings.NewReader(a), "possible_answer/BFCL_v4_simple.json")
	want := "possible_answer/BFCL_v4_simple.json:1: simple_0: a possible answer (it has ground_truth), not a question: give this file after --answers"
	if err == nil || !strings.HasPrefix(err.Error(), want) || strings.Count(err.Error(), "\n") > 0 {
		t.Errorf("error %v; want one line starting %q", err, want)
	}
}
