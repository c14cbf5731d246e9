package bfclfake

import (
	"bytes"
	"slices"
	"testing"

	"github.com/toolgrade/toolgrade/harness/bfcl"
	"github.com/toolgrade/toolgrade/harness/record"
	"github.com/toolgrade/toolgrade/harness/score"
	"github.com/toolgrade/toolgrade/harness/suite"
	"go.yaml.in/yaml/v3"
)

// BenchmarkJudge2000 loads an imported 2,000-case suite and scores the
// scripted ground truth of every case, as a run without execution scores
// its trials: the loader and the bfcl matchers at that size.
func BenchmarkJudge2000(b *testing.B) {
	qb, ab := bfcl.Synthetic(2000)
	qs, err := bfcl.ReadQuestions(bytes.NewReader(qb), "q.json")
	if err != nil {
		b.Fatal(err)
	}
	as, err := bfcl.ReadAnswers(bytes.NewReader(ab), "a.json")
	if err != nil {
		b.Fatal(err)
	}
	im := &bfcl.Import{Questions: qs, Answers: as}
	doc, _, err := im.Suite()
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range doc.Content[0].Content[1].Content {
		for i := 0; i < len(c.Content); i += 2 {
			if c.Content[i].Value == "tools" {
				c.Content = slices.Delete(c.Content, i, i+2)
				break
			}
		}
	}
	src, err := yaml.Marshal(doc)
	if err != nil {
		b.Fatal(err)
	}
	script, err := Script(im)
	if err != nil {
		b.Fatal(err)
	}
	trs := make([]*record.Transcript, len(qs))
	for i := range qs {
		trs[i] = transcript(b, script.Rules[2*i].Reply)
	}
	b.ReportAllocs()
	for b.Loop() {
		s, err := suite.Parse(src, "bfcl.yaml")
		if err != nil {
			b.Fatal(err)
		}
		opts := score.OptionsFor(&s.Defaults)
		for i := range s.Cases {
			if sc := score.Score(trs[i], &s.Cases[i].Expect, opts); sc.Outcome != record.OutcomePass {
				b.Fatalf("%s: %s %s", s.Cases[i].ID, sc.Outcome, sc.Detail)
			}
		}
	}
}
