package record

import "testing"

func TestJudgeBFCL(t *testing.T) {
	for _, tt := range []struct {
		cat, outcome string
		want         *Judgement
	}{
		{"", OutcomePass, nil},
		{"simple", OutcomePass, &Judgement{true, true}},
		{"simple", OutcomeInvalidArgs, &Judgement{true, false}},
		{"parallel", OutcomeExtraCall, &Judgement{true, false}},
		{"multiple", OutcomeCallInText, &Judgement{true, false}},
		{"irrelevance", OutcomePass, &Judgement{true, true}},
		{"irrelevance", OutcomeCallInText, &Judgement{true, true}}, // BFCL decodes no call from text
		{"live_irrelevance", OutcomeWrongAnswer, &Judgement{true, true}},
		{"live_irrelevance", OutcomeUnexpectedCall, &Judgement{true, false}},
		{"live_relevance", OutcomePass, &Judgement{true, true}},
		{"live_relevance", OutcomeHallucinatedTool, &Judgement{true, true}},
		{"live_relevance", OutcomeNoCall, &Judgement{true, false}},
		{"live_relevance", OutcomeCallInText, &Judgement{true, false}},
	} {
		tr := &Trial{Score: Score{Outcome: tt.outcome, CallExpected: true}}
		if tt.cat != "" {
			tr.Tags = []string{"bfcl", BFCLCategoryTag + tt.cat}
		}
		got := Judge(tr).BFCL
		if (got == nil) != (tt.want == nil) || (got != nil && *got != *tt.want) {
			t.Errorf("%s %s: %v, want %v", tt.cat, tt.outcome, got, tt.want)
		}
	}
	if j := Judge(&Trial{Tags: []string{BFCLCategoryTag + "simple"}, Score: Score{Outcome: OutcomeInfraError}}); j.BFCL != nil {
		t.Errorf("an infra error has a BFCL verdict: %v", j.BFCL)
	}
}
