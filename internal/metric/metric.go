// Package metric is toolgrade's one table of metrics: each rate and latency
// defined once, with the one name summary.json, compare's JSON and gate
// expressions spell it by, its labels, which way is better, and how a
// trial's record.Judgements count in it. The summary, comparisons, gates,
// curves and every report read this table instead of keeping a list of
// their own.
package metric

import (
	"slices"

	"github.com/toolgrade/toolgrade/internal/record"
)

// Name is a metric's one spelling, summary.json's (tool_selection, never
// selection).
type Name string

// The metrics, in the table's order.
const (
	Pass               Name = "pass"
	ToolSelection      Name = "tool_selection"
	ArgValidity        Name = "arg_validity"
	ArgValidityShown   Name = "arg_validity_shown"
	ArgValidityCoerced Name = "arg_validity_coerced"
	ArgAccuracy        Name = "arg_accuracy"
	Irrelevance        Name = "irrelevance"
	RoundLimit         Name = "round_limit"
	FailedCall         Name = "failed_call"
	State              Name = "state"
	Judged             Name = "judged"
	JudgeAgreement     Name = "judge_agreement"
	P50                Name = "p50"
	P95                Name = "p95"
)

// Kind says what a metric measures.
type Kind int

const (
	// Rate is a share, k of n (trials, or calls for the validity rates),
	// reported with its 95% Wilson interval. The zero value.
	Rate Kind = iota
	// Latency is a quantile of a scored trial's wall time, in seconds.
	Latency
)

// Use is where a metric appears besides summary.json, which holds every
// metric of the table.
type Use uint8

const (
	// Column: a column of the model tables (terminal, Markdown).
	Column Use = 1 << iota
	// Paired: a row of compare's paired tests, in its JSON and tables.
	Paired
	// Gated: a metric a gate expression may name.
	Gated
	// Sparse: a Column the model tables show only when some row counts
	// trials in it (judged: only suites with rubrics have any).
	Sparse
)

// Metric is one entry of the table.
type Metric struct {
	Name Name
	// Aliases are older spellings still read: a gate expression written
	// with one parses as Name.
	Aliases []string
	// Short is the name as compare's tables show it, where columns are
	// narrow (selection).
	Short string
	// Label is the metric's column header in the model tables (Arg valid).
	Label string
	// Doc says in one sentence what the metric counts.
	Doc  string
	Kind Kind
	// LowerIsBetter is true when a rise is a regression (round_limit).
	LowerIsBetter bool
	Uses          Use

	// judge is the trial-level judgement, nil for a latency; count what
	// one trial adds to the rate, k of n, when that is not judge's 0 or 1
	// of 1 (the validity rates count calls).
	judge func(*record.Judgements) record.Judgement
	count func(*record.Judgements) (k, n int)
}

// Is reports whether m has use u.
func (m *Metric) Is(u Use) bool { return m.Uses&u == u }

// Judgement is the rate's verdict on one trial as a whole: whether it
// applies, and if so whether the trial met it. Comparisons pair trials by
// it and curves count it; the zero Judgement for a latency.
func (m *Metric) Judgement(j *record.Judgements) record.Judgement {
	if m.judge == nil {
		return record.Judgement{}
	}
	return m.judge(j)
}

// Count is what one trial adds to the summary's rate: k of n, each 0 or 1
// for a trial-level rate, and calls for the validity rates, which the
// summary counts call by call. 0 of 0 for a latency and for a trial no
// rate counts (an infrastructure error, an excluded truncated trial).
func (m *Metric) Count(j *record.Judgements) (k, n int) {
	switch {
	case m.count != nil:
		return m.count(j)
	case m.judge != nil:
		return trialCount(m.judge(j))
	}
	return 0, 0
}

// All is the table, in report order: the rates, then the latencies.
func All() []Metric { return table() }

// Select is the metrics of kind with use u, in table order; u 0 selects
// every metric of kind.
func Select(kind Kind, u Use) []Metric {
	return slices.DeleteFunc(table(), func(m Metric) bool { return m.Kind != kind || !m.Is(u) })
}

// Lookup finds a metric by its name or an alias of it.
func Lookup(name string) (Metric, bool) {
	for _, m := range table() {
		if string(m.Name) == name || slices.Contains(m.Aliases, name) {
			return m, true
		}
	}
	return Metric{}, false
}

// Get is the table's entry of n; for a name the table lacks, a Metric with
// that name alone, which judges and counts nothing.
func Get(n Name) Metric {
	m, ok := Lookup(string(n))
	if !ok || m.Name != n {
		return Metric{Name: n, Short: string(n), Label: string(n)}
	}
	return m
}

// Names lists the names with use u and then their aliases, each name's
// right after it, in table order: what messages offer.
func Names(u Use) []string {
	var out []string
	for _, m := range table() {
		if m.Is(u) {
			out = append(out, string(m.Name))
			out = append(out, m.Aliases...)
		}
	}
	return out
}

// Kind is the kind of the metric n names; Rate for a name the table lacks.
func (n Name) Kind() Kind { return Get(n).Kind }
