package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/toolgrade/toolgrade/internal/record"

	"github.com/toolgrade/toolgrade/internal/metric"
	"github.com/toolgrade/toolgrade/internal/summary"
	"github.com/toolgrade/toolgrade/internal/termtext"
)

// judged says what the judge model made of a row's answers: its judged
// rate, its self-agreement when answers were judged more than once, and
// the judge errors and stale verdicts no rate counts; "" when the row has
// no rubric's trial.
func judged(m summary.ModelSummary) string {
	if m.Judged.N == 0 && m.JudgeErrors == 0 && m.JudgeStale == 0 {
		return ""
	}
	parts := []string{fmt.Sprintf("judged by %s: no verdict", m.JudgeModel)}
	if m.Judged.N > 0 {
		parts[0] = fmt.Sprintf("judged by %s: %d of %s pass their rubric, %s (the outcome is the matcher's)",
			m.JudgeModel, m.Judged.K, termtext.Count(m.Judged.N, "answer"), m.Judged.Percent())
	}
	if a := m.JudgeAgreement; a.N > 0 {
		parts = append(parts, fmt.Sprintf("judge self-agreement %s: every verdict agreed on %d of %s judged more than once", a.Percent(), a.K, termtext.Count(a.N, "answer")))
	}
	if n := m.JudgeErrors; n > 0 {
		parts = append(parts, termtext.Count(n, "judge error")+" (the judge failed: left out of the judged rate, not the model's failure)")
	}
	if n := m.JudgeStale; n > 0 {
		parts = append(parts, termtext.Count(n, "stale verdict")+" (judged against a rubric since changed: rescore --rejudge)")
	}
	return strings.Join(parts, "; ")
}

// failureGroups are a row's failures by outcome, then the answers its
// judge failed and the passes with a failed call (no outcome's: their
// groups are named "judged: fail" and "pass with a failed call").
func failureGroups(m summary.ModelSummary) []summary.FailureGroup {
	if m.JudgeFailures == nil && m.FailedCallPasses == nil {
		return m.Failures
	}
	out := slices.Clone(m.Failures)
	for _, g := range []*summary.FailureGroup{m.JudgeFailures, m.FailedCallPasses} {
		if g != nil {
			out = append(out, *g)
		}
	}
	return out
}

// sparseRates drops from rates the sparse ones (metric.Sparse) no row of s
// counts a trial in: the judged column only shows for suites with rubrics.
func sparseRates(rates []metric.Metric, s *summary.Summary) []metric.Metric {
	out := rates[:0:0]
	for _, r := range rates {
		if r.Is(metric.Sparse) && !anyCounted(s, r.Name) {
			continue
		}
		out = append(out, r)
	}
	return out
}

func anyCounted(s *summary.Summary, n metric.Name) bool {
	for i := range s.Models {
		if s.Models[i].Rate(n).N > 0 {
			return true
		}
	}
	return false
}

// judged writes under a transcript's answer what the judge model said of
// it: the verdict (or the judge's error) against the rubric, and each
// judgement with its seed and reason.
func (p *TranscriptPrinter) judged(b *strings.Builder, jd *record.Judged) {
	if jd == nil {
		return
	}
	verdict := p.paint(sgrRed, jd.Verdict)
	switch {
	case jd.Error != "":
		verdict = p.paint(sgrYellow, "judge error (not the model's failure): "+termtext.Printable(jd.Error))
	case jd.Verdict == record.VerdictPass:
		verdict = p.paint(sgrGreen, jd.Verdict)
	}
	stale := ""
	if jd.Stale {
		stale = p.paint(sgrYellow, " (stale: the rubric has changed since)")
	}
	fmt.Fprintf(b, "%s %s%s\n", p.paint(sgrBold, "judged by "+termtext.Printable(jd.Model)+" against "+termtext.Printable(fmt.Sprintf("%q", jd.Rubric))+":"), verdict, stale)
	for i, v := range jd.Verdicts {
		line := cmpOr(v.Verdict, "no verdict")
		if v.Reason != "" {
			line += ": " + v.Reason
		}
		var notes []string
		if v.Read != "" {
			notes = append(notes, "read from a "+v.Read)
		}
		if v.Cached {
			notes = append(notes, "cached")
		}
		if v.Error != "" && jd.Error != v.Error {
			notes = append(notes, v.Error)
		}
		if len(notes) > 0 {
			line += " (" + strings.Join(notes, "; ") + ")"
		}
		fmt.Fprintf(b, "  %s %s\n", p.paint(sgrDim, fmt.Sprintf("#%d seed %d", i+1, v.Seed)), termtext.Printable(line))
	}
}

func cmpOr(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}
