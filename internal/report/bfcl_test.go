package report

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/summary"
)

// bfclTrials are hand-counted trials of every BFCL category.
func bfclTrials() []*record.Trial {
	var out []*record.Trial
	add := func(cat string, outcomes ...string) {
		for i, o := range outcomes {
			out = append(out, &record.Trial{Model: "m", CaseID: cat + "_0", Repeat: i,
				Tags: []string{"bfcl", record.BFCLCategoryTag + cat}, Score: record.Score{Outcome: o, CallExpected: !strings.Contains(cat, "irrelevance")}})
		}
	}
	p := record.OutcomePass
	add("simple", p, p, p, record.OutcomeWrongArgs, record.OutcomeInfraError)     // 3/4, the infra error left out
	add("java", p, record.OutcomeInvalidArgs)                                     // 1/2
	add("javascript", p)                                                          // 1/1: simple = (.75+.5+1)/3 = .75
	add("multiple", p, record.OutcomeWrongTool)                                   // 1/2
	add("parallel", p, p)                                                         // 2/2
	add("parallel_multiple", record.OutcomeMissingCall)                           // 0/1: non-live AST = (.75+.5+1+0)/4
	add("live_simple", p, p, p, record.OutcomeExtraCall)                          // 3/4
	add("live_multiple", p)                                                       // 1/1
	add("live_parallel", record.OutcomeWrongArgs)                                 // 0/1
	add("live_parallel_multiple", p, record.OutcomeNoCall)                        // 1/2: live = 5/8
	add("irrelevance", p, record.OutcomeCallInText, record.OutcomeUnexpectedCall) // 2/3
	add("live_irrelevance", record.OutcomeWrongAnswer)                            // 1/1: irrelevance = (2/3+1)/2
	add("live_relevance", p, record.OutcomeNoCall)                                // 1/2
	return out
}

func TestBFCLSummary(t *testing.T) {
	s := summary.NewSummarizer("bfcl", nil)
	for _, tr := range bfclTrials() {
		s.Add(tr)
	}
	sum := s.Summary()
	b := sum.Models[0].BFCL
	if b == nil || len(b.Categories) != 13 {
		t.Fatalf("BFCL = %+v", b)
	}
	simple := b.Categories[sliceIndex(b.Categories, "simple")]
	if simple.Accuracy.K != 3 || simple.Accuracy.N != 4 || simple.Infra != 1 || simple.Cases != 1 || simple.Outcomes[record.OutcomeWrongArgs] != 1 {
		t.Errorf("simple = %+v", simple)
	}
	for name, tt := range map[string]struct {
		got  *float64
		want float64
	}{
		"non-live AST": {b.NonLiveAST, (0.75 + 0.5 + 1 + 0) / 4},
		"live":         {b.Live, 5.0 / 8},
		"irrelevance":  {b.Irrelevance, (2.0/3 + 1) / 2},
		"relevance":    {b.Relevance, 0.5},
	} {
		if tt.got == nil || math.Abs(*tt.got-tt.want) > 1e-12 {
			t.Errorf("%s = %v, want %v", name, tt.got, tt.want)
		}
	}
	var term, md bytes.Buffer
	defer func() {
		if !strings.Contains(term.String(), "│ 75% [30–96]   │ -          │ 75% [30–96]   │ pass 3, wrong_args 1, infra_error 1 ") {
			t.Errorf("terminal row of simple:\n%s", term.String())
		}
		if !strings.Contains(md.String(), "| m | irrelevance | 1 | 67% [20–94] | - | 33% [6–80] | pass 1, call\\_in\\_text 1, unexpected\\_call 1 |") {
			t.Errorf("markdown row of irrelevance:\n%s", md.String())
		}
	}()
	if err := WriteTerminal(&term, sum); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdown(&md, sum, nil); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{term.String(), md.String()} {
		for _, want := range []string{"BFCL categories", "Live 62.5%, Irrelevance Detection 83.3%, Relevance Detection 50.0%",
			"wrong", "75% [30–96]", "67% [20–94]"} {
			if !strings.Contains(out, want) {
				t.Errorf("report lacks %q:\n%s", want, out)
			}
		}
	}
}

// TestBFCLSummaryNA: a summary column whose categories were not all run is
// N/A, as on the leaderboard; a run without BFCL cases has no section.
func TestBFCLSummaryNA(t *testing.T) {
	s := summary.NewSummarizer("bfcl", nil)
	for _, tr := range bfclTrials()[:5] { // simple only
		s.Add(tr)
	}
	var term bytes.Buffer
	if err := WriteTerminal(&term, s.Summary()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(term.String(), "m: Non-Live AST N/A, Live N/A, Irrelevance Detection N/A, Relevance Detection N/A") {
		t.Errorf("report:\n%s", term.String())
	}
	plain := summary.NewSummarizer("plain", nil)
	plain.Add(&record.Trial{Model: "m", CaseID: "a", Tags: []string{"x"}, Score: record.Score{Outcome: record.OutcomePass}})
	term.Reset()
	if err := WriteTerminal(&term, plain.Summary()); err != nil || strings.Contains(term.String(), "BFCL") || plain.Summary().Models[0].BFCL != nil {
		t.Errorf("a run without BFCL cases shows BFCL:\n%s", term.String())
	}
}

func sliceIndex(cs []summary.BFCLCategory, name string) int {
	for i, c := range cs {
		if c.Category == name {
			return i
		}
	}
	return -1
}

// TestBFCLRoundTripAndDifferences: trials whose BFCL verdict the round trip
// leaves open widen the category's accuracy into a range, and the reports
// count the trials where BFCL's verdict and toolgrade's pass disagree.
func TestBFCLRoundTripAndDifferences(t *testing.T) {
	s := summary.NewSummarizer("bfcl", nil)
	for i, tt := range []struct {
		outcome          string
		valid, roundTrip bool
	}{
		{record.OutcomePass, true, false},
		{record.OutcomePass, true, true},         // open: low counts it invalid
		{record.OutcomeWrongArgs, false, true},   // open: high counts it valid
		{record.OutcomeInvalidArgs, true, false}, // BFCL never checks the enum
		{record.OutcomePass, false, false},       // greedy pairing fails it
		{record.OutcomeWrongArgs, false, false},
	} {
		s.Add(&record.Trial{Model: "m", CaseID: "simple_python_0", Repeat: i, Tags: []string{"bfcl", record.BFCLCategoryTag + "simple_python"},
			Score: record.Score{Outcome: tt.outcome, CallExpected: true, BFCL: &record.BFCLVerdict{Valid: tt.valid, RoundTrip: tt.roundTrip}}})
	}
	sum := s.Summary()
	c := sum.Models[0].BFCL.Categories[0]
	if c.Accuracy.K != 3 || c.Accuracy.N != 6 || c.RoundTrip != 2 || c.Low == nil || *c.Low != 2.0/6 || *c.High != 4.0/6 || c.ValidNotPass != 1 || c.PassNotValid != 1 {
		t.Fatalf("category %+v", c)
	}
	if rt := sum.Models[0].BFCL.RoundTrip; rt == nil || rt.Trials != 2 {
		t.Fatalf("round trip %+v", rt)
	}
	var term, md bytes.Buffer
	if err := WriteTerminal(&term, sum); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdown(&md, sum, nil); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{term.String(), md.String()} {
		for _, want := range []string{"33.3–66.7% (2 open)", "2 trials open", "1 trial BFCL calls valid that toolgrade does not pass", "1 trial toolgrade passes that BFCL calls invalid"} {
			if !strings.Contains(out, want) {
				t.Errorf("report lacks %q:\n%s", want, out)
			}
		}
	}
}
