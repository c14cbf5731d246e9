package reports

import (
	"fmt"
	"strings"

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
