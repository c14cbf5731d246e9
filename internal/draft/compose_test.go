package draft

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/suite"
)

func written(q, tool, args string, line int) *Case {
	e := Expectation{}
	if tool != "" {
		e = Expectation{Calls: []Call{{Tool: tool, Args: json.RawMessage(args)}}, FirstOnly: true}
	}
	return &Case{
		Messages: []record.Message{{Role: "user", Content: q}},
		Expect:   e,
		Sources:  []Source{{File: "d.yaml.gen.jsonl", Line: line}},
		Models:   []string{"author:8b"},
		Lead:     "drafted by author model author:8b",
	}
}

// Compose merges what an author model wrote as Build merges conversations:
// an exact duplicate (once normalised) and a near duplicate with the same
// tool go into the first case; a similar question with another tool stays,
// noted; no_tool cases are written as such.
func TestComposeMergesDuplicatesOfWrittenCases(t *testing.T) {
	d := Compose([]*Case{
		written("Is there a vegan dish on the menu?", "search", `{"query":"vegan"}`, 1),
		written("is there a vegan dish on the menu", "search", `{"query":"vegan"}`, 1),
		written("Is there a vegan dish on the menus?", "search", `{"query":"vegan dish"}`, 2),
		written("Is there a vegan dish on the menu??", "get_document", `{"name":"menu.txt"}`, 3),
		written("What is the capital of France?", "", "", 4),
	}, &Options{Servers: "servers.json"})
	if len(d.Cases) != 3 || d.Summary() != "3 cases from 5 drafts (2 merged, 0 skipped)" {
		t.Fatalf("%s: %d cases", d.Summary(), len(d.Cases))
	}
	var b bytes.Buffer
	d.Header = []string{"written by a test"}
	if err := d.WriteYAML(&b, nil); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"# written by a test\n",
		"# drafted by author model author:8b: d.yaml.gen.jsonl:1, :1, :2\n",
		`also asked (1.00, 1 draft) as "is there a vegan dish on the menu"`,
		`with other arguments: search({"query":"vegan dish"})`,
		"which expects search({\"query\":\"vegan\"}): keep both only if they differ",
		"expect: {no_tool: true}",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("draft lacks %q:\n%s", want, out)
		}
	}
	s, err := suite.Parse([]byte(out), "d.yaml")
	if err != nil {
		t.Fatalf("the draft does not load: %v\n%s", err, out)
	}
	if s.AwaitingReview() != 3 {
		t.Errorf("%d await review", s.AwaitingReview())
	}
}
