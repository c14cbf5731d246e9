package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/compare"
	"github.com/toolgrade/toolgrade/internal/metric"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/stats"
	"github.com/toolgrade/toolgrade/internal/summary"
)

// judgedTrials are four trials of one model: a pass, a truncated no_call, a
// truncated pass, and an invalid_args trial whose two calls were valid if
// coerced and one of which repeated the other.
func judgedTrials() []*record.Trial {
	tr := func(caseID, outcome string, sc record.Score) *record.Trial {
		sc.Outcome, sc.CallExpected = outcome, true
		return &record.Trial{Model: "m", CaseID: caseID, Score: sc, Transcript: &record.Transcript{}}
	}
	return []*record.Trial{
		tr("a", record.OutcomePass, record.Score{ToolCorrect: true, ArgsCorrect: true, CallsToKnownTools: 1, ValidCalls: 1}),
		tr("b", record.OutcomeNoCall, record.Score{Truncated: true}),
		tr("c", record.OutcomePass, record.Score{ToolCorrect: true, ArgsCorrect: true, Truncated: true}),
		tr("d", record.OutcomeInvalidArgs, record.Score{ToolCorrect: true, CallsToKnownTools: 2, ValidCalls: 0, ValidCoercedCalls: 2, RepeatedCalls: 1}),
	}
}

func TestSummaryExcludesTruncated(t *testing.T) {
	sum := summary.NewSummarizer("s", nil)
	for _, tr := range judgedTrials() {
		sum.Add(tr)
	}
	m := sum.Summary().Models[0]
	if m.Trials != 4 || m.Scored != 2 || m.Excluded != 2 || m.Truncated != 2 {
		t.Errorf("trials %d, scored %d, excluded %d, truncated %d; want 4, 2, 2, 2", m.Trials, m.Scored, m.Excluded, m.Truncated)
	}
	if m.Pass.K != 1 || m.Pass.N != 2 {
		t.Errorf("pass %d/%d, want 1/2: the truncated pass is not counted", m.Pass.K, m.Pass.N)
	}
	if m.Outcomes[record.OutcomeNoCall] != 0 {
		t.Errorf("outcomes %v count the excluded no_call", m.Outcomes)
	}
	for _, c := range m.Cases {
		if want := map[string]int{"b": 1, "c": 1}[c.ID]; c.Truncated != want {
			t.Errorf("case %s: truncated %d, want %d", c.ID, c.Truncated, want)
		}
	}
	if m.ArgValidity.K != 1 || m.ArgValidityCoerced.K != 3 || m.ArgValidityCoerced.N != 3 || m.RepeatedCalls != 1 {
		t.Errorf("validity %v, if coerced %v, repeated %d; want 1/3, 3/3, 1", m.ArgValidity, m.ArgValidityCoerced, m.RepeatedCalls)
	}

	var b bytes.Buffer
	if err := WriteTerminal(&b, sum.Summary()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		// Six calls in two trials of two cases: the calls of a case are one
		// cluster.
		"m: arg validity 33% [4–86], valid if coerced 100% [31–100]: 2 calls were valid once coerced",
		"m: 1 call repeated an earlier call of the same trial",
		"m: 2 trials kept out of every rate: a prompt reached num_ctx",
		"they are kept out of every rate (--keep-truncated counts them)",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("terminal report lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	if err := WriteMarkdown(&b, sum.Summary(), nil); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"valid if coerced 100%", "| b | 0/0 (1 truncated) |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("markdown report lacks %q:\n%s", want, b.String())
		}
	}
}

func TestSummaryKeepTruncated(t *testing.T) {
	sum := summary.NewSummarizer("s", nil)
	sum.Judge = record.JudgeOptions{KeepTruncated: true}
	for _, tr := range judgedTrials() {
		sum.Add(tr)
	}
	m := sum.Summary().Models[0]
	if m.Scored != 4 || m.Excluded != 0 || m.Truncated != 2 || m.Pass.K != 2 {
		t.Errorf("scored %d, excluded %d, truncated %d, passes %d; want 4, 0, 2, 2", m.Scored, m.Excluded, m.Truncated, m.Pass.K)
	}
	var b bytes.Buffer
	if err := WriteTerminal(&b, sum.Summary()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "they are counted in the rates (--keep-truncated)") {
		t.Errorf("terminal report does not say the truncated trials were counted:\n%s", b.String())
	}
}

func TestJUnitTruncated(t *testing.T) {
	run := &record.Run{Suite: record.RunSuite{Name: "s"}, Models: []record.Model{{Name: "m"}}}
	j := NewJUnit(run, nil)
	for _, tr := range judgedTrials() {
		j.Add(tr)
	}
	var b bytes.Buffer
	if err := j.Write(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "1 trial not judged: a prompt reached num_ctx") {
		t.Errorf("JUnit does not say the truncated trials were not judged:\n%s", out)
	}
	if strings.Count(out, "<failure") != 1 {
		t.Errorf("want one failure (case d), not the truncated no_call:\n%s", out)
	}
}

func TestTranscriptNamesTheNumCtx(t *testing.T) {
	var b bytes.Buffer
	p := NewTranscriptPrinter(&b, nil)
	p.Add(&record.Trial{Model: "m", CaseID: "c", NumCtx: 64, Score: record.Score{Outcome: record.OutcomeNoCall, Truncated: true}, Transcript: &record.Transcript{}})
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "warning: a prompt reached num_ctx (64)") {
		t.Errorf("the transcript does not name the num_ctx the trial ran with:\n%s", b.String())
	}
}

// TestCompareShowsCoercedValidityWhenItDiffers: the coerced row is left out
// of the terminal comparison while it repeats arg_validity, and shown once
// coercion changed a call on either side.
func TestCompareShowsCoercedValidityWhenItDiffers(t *testing.T) {
	row := func(name metric.Name, bk, ck int) compare.RateRow {
		return compare.RateRow{Metric: name, Rate: compare.SidePair[stats.Rate]{Base: stats.Rate{K: bk, N: 4}, Current: stats.Rate{K: ck, N: 4}}, P: 1, Verdict: compare.Same, TooFew: true}
	}
	c := &compare.Comparison{Mode: compare.ModeRuns, Base: "a", Current: "b", Dirs: []string{"a", "b"},
		Groups: []compare.Group{{Model: "m", Pairs: 4, Scored: 4, Rates: []compare.RateRow{
			row(metric.ArgValidity, 2, 3), row(metric.ArgValidityCoerced, 2, 3)}}}}
	var b bytes.Buffer
	if err := WriteCompareTerminal(&b, c); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "arg_validity_coerced") {
		t.Errorf("the coerced row repeats arg_validity and is shown:\n%s", b.String())
	}
	c.Groups[0].Rates[1] = row(metric.ArgValidityCoerced, 4, 3)
	b.Reset()
	if err := WriteCompareTerminal(&b, c); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "arg_validity_coerced") {
		t.Errorf("the coerced row differs and is not shown:\n%s", b.String())
	}
}
