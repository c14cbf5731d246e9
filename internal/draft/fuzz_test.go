package draft

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/toolgrade/toolgrade/internal/suite"
)

// FuzzDraftParses: whatever question and arguments a conversation holds, a
// draft made of it is a suite that suite.Parse reads, with the question and
// the arguments (as JSON values) unchanged.
func FuzzDraftParses(f *testing.F) {
	f.Add("Can I bring my dog?", `{"query":"dog","top_k":5}`)
	f.Add("yes", `{"a":{"contains":"x"},"b":[{"regex":1}]}`)
	f.Add("- x\n# y", `{"n":1e3,"m":-0.0,"s":"true","":1}`)
	f.Add("key: value", `{"z":null,"y":"multi\nline  ","x":"\u2028"}`)
	f.Fuzz(func(t *testing.T, question, args string) {
		if !json.Valid([]byte(args)) {
			return
		}
		d := Build([]Conversation{conv(1, "m", question, call("search", args))}, nil)
		if len(d.Cases) == 0 {
			return // skipped, with its reason
		}
		var b bytes.Buffer
		if err := d.WriteYAML(&b, []string{"rec"}); err != nil {
			t.Fatal(err)
		}
		s, err := suite.Parse(b.Bytes(), "draft.yaml")
		if err != nil {
			t.Fatalf("%v\n%s", err, b.String())
		}
		if got := s.Cases[0].Messages[0].Content; got != question {
			t.Fatalf("question %q reads back as %q", question, got)
		}
		var want map[string]any
		json.Unmarshal([]byte(args), &want)
		for _, m := range s.Cases[0].Expect.Calls[0].Args {
			if m.Kind != suite.MatchEquals {
				t.Fatalf("%s reads as a %s matcher:\n%s", m.Key, m.Kind, b.String())
			}
			x, _ := json.Marshal(m.Value)
			y, _ := json.Marshal(want[m.Key])
			var xv, yv any
			json.Unmarshal(x, &xv)
			json.Unmarshal(y, &yv)
			xs, _ := json.Marshal(xv)
			ys, _ := json.Marshal(yv)
			if string(xs) != string(ys) {
				t.Fatalf("%s = %s, want %s:\n%s", m.Key, xs, ys, b.String())
			}
		}
	})
}
