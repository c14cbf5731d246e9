package bfclfake

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/internal/bfcl"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/score"
	"github.com/toolgrade/toolgrade/internal/suite"
	"go.yaml.in/yaml/v3"
)

// fixtures imports internal/bfcl's fixtures and loads the suite.
func fixtures(t *testing.T) (*bfcl.Import, *suite.Suite) {
	t.Helper()
	qs, _ := filepath.Glob("../testdata/BFCL_v3_*.json")
	as, _ := filepath.Glob("../testdata/possible_answer/BFCL_v3_*.json")
	im, err := bfcl.Load(qs, as)
	if err != nil {
		t.Fatal(err)
	}
	doc, _, err := im.Suite()
	if err != nil {
		t.Fatal(err)
	}
	src, err := yaml.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	s, err := suite.Parse(src, "bfcl.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return im, s
}

// transcript is the first response of a trial run with execute: false, the
// reply's arguments passed through JSON as Ollama passes them (decoded into
// Go values, encoded again: 10.0 arrives as 10).
func transcript(t testing.TB, r fakeollama.Reply) *record.Transcript {
	t.Helper()
	resp := record.Response{Content: r.Content}
	for i, c := range r.ToolCalls {
		m := map[string]any{}
		for _, a := range c.Arguments {
			m[a.Key] = a.Value
		}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		var wire map[string]any
		if err := json.Unmarshal(b, &wire); err != nil {
			t.Fatal(err)
		}
		b, _ = json.Marshal(wire)
		resp.ToolCalls = append(resp.ToolCalls, record.ToolCall{ID: fmt.Sprintf("call_%d", i), Index: i, Name: c.Name, Arguments: b})
	}
	return &record.Transcript{Model: "m", MaxRounds: 1, NotExecuted: true, Answer: r.Content,
		Rounds: []record.Round{{Index: 1, Response: resp}}}
}

// TestGroundTruthPassesPerturbedFails scores every fixture's scripted
// answers as a run would: the ground truth passes every case, and BFCL
// calls it valid; each perturbed answer fails with the outcome and the
// BFCL verdict written down for its kind of category.
func TestGroundTruthPassesPerturbedFails(t *testing.T) {
	im, s := fixtures(t)
	script, err := Script(im)
	if err != nil {
		t.Fatal(err)
	}
	if len(script.Rules) != 2*len(s.Cases) {
		t.Fatalf("%d rules for %d cases", len(script.Rules), len(s.Cases))
	}
	opts := score.OptionsFor(&s.Defaults)
	for i, q := range im.Questions {
		c := s.Case(q.ID)
		kind := bfcl.KindOf(bfcl.CategoryOf(q.ID))
		for _, model := range []string{Good, Perturbed} {
			rule := script.Rules[2*i]
			if model == Perturbed {
				rule = script.Rules[2*i+1]
			}
			if rule.Model != model || rule.User.Equals != q.Messages[len(q.Messages)-1].Content {
				t.Fatalf("%s: rule %+v", q.ID, rule)
			}
			sc := score.Score(transcript(t, rule.Reply), &c.Expect, opts)
			j := record.Judge(&record.Trial{Tags: c.Tags, Score: sc})
			want, valid := record.OutcomePass, true
			if model == Perturbed {
				valid = false
				switch kind {
				case bfcl.Irrelevance:
					want = record.OutcomeUnexpectedCall
				case bfcl.Relevance:
					want = record.OutcomeNoCall
				default:
					want = record.OutcomeWrongArgs // BFCL: value_error
				}
			}
			if sc.Outcome != want || j.BFCL == nil || j.BFCL.OK != valid {
				t.Errorf("%s (%s): %s (%s), BFCL %v; want %s, valid %v", q.ID, model, sc.Outcome, sc.Detail, j.BFCL, want, valid)
			}
		}
	}
}
