package report

import (
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/summary"
)

// TestShownValidity: trials with a call that broke only hidden constraints
// show validity as the model saw it beside validity, in the terminal and
// Markdown reports, and count hidden_constraint apart from invalid_args.
func TestShownValidity(t *testing.T) {
	sum := summary.NewSummarizer("s", nil)
	add := func(c, outcome string, valid, visible int) {
		sum.Add(&record.Trial{Model: "m", CaseID: c, Transcript: &record.Transcript{},
			Score: record.Score{Outcome: outcome, CallExpected: true, ToolCorrect: true, CallsToKnownTools: 1, ValidCalls: valid, ValidVisibleCalls: visible}})
	}
	add("a", record.OutcomeHiddenConstraint, 0, 1)
	add("b", record.OutcomeInvalidArgs, 0, 0)
	add("c", record.OutcomePass, 1, 1)
	s := sum.Summary()
	m := s.Models[0]
	if m.ArgValidity.K != 1 || m.ArgValidityShown.K != 2 || m.ArgValidityShown.N != 3 ||
		m.Outcomes[record.OutcomeHiddenConstraint] != 1 || m.Outcomes[record.OutcomeInvalidArgs] != 1 {
		t.Fatalf("summary %+v", m)
	}
	const want = "m: arg validity (as shown) 67%"
	var term, md strings.Builder
	if err := WriteTerminal(&term, s); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdown(&md, s, nil); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"terminal": term.String(), "markdown": md.String()} {
		if !strings.Contains(out, want) || !strings.Contains(out, "1 call broke only constraints the model was not shown") {
			t.Errorf("%s report lacks validity as shown:\n%s", name, out)
		}
	}
}
