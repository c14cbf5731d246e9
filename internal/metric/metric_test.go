package metric

import (
	"fmt"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/record"
)

// TestTableIsOneSpelling: every name and alias is taken once, every entry
// says what it counts, and a rate judges trials while a latency does not.
func TestTableIsOneSpelling(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range All() {
		for _, n := range append([]string{string(m.Name)}, m.Aliases...) {
			if seen[n] {
				t.Errorf("%q is spelt twice in the table", n)
			}
			seen[n] = true
		}
		if m.Short == "" || m.Label == "" || !strings.HasSuffix(m.Doc, ".") {
			t.Errorf("%s: short %q, label %q, doc %q: want all three", m.Name, m.Short, m.Label, m.Doc)
		}
		if (m.Kind == Rate) != (m.judge != nil) {
			t.Errorf("%s: kind %d, judges trials %v", m.Name, m.Kind, m.judge != nil)
		}
	}
	if m, ok := Lookup("selection"); !ok || m.Name != ToolSelection {
		t.Errorf("Lookup(selection) = %v, %v; want tool_selection", m.Name, ok)
	}
	if _, ok := Lookup("selction"); ok {
		t.Error("Lookup found a misspelt name")
	}
	if m := Get("nope"); m.Name != "nope" || m.Judgement(&record.Judgements{Pass: record.Judgement{Defined: true}}).Defined {
		t.Errorf("Get(nope) = %+v, want a metric that judges nothing", m)
	}
}

// TestCount: a trial-level rate counts one trial, the validity rates count
// its calls, a latency nothing.
func TestCount(t *testing.T) {
	j := record.Judgements{
		Pass:        record.Judgement{Defined: true, OK: false},
		Selection:   record.Judgement{Defined: true, OK: true},
		ArgValidity: record.Judgement{Defined: true},
		KnownCalls:  3, ValidCalls: 1, ValidVisibleCalls: 2, ValidCoercedCalls: 3,
		Judged:         record.Judgement{Defined: true, OK: true},
		JudgeAgreement: record.Judgement{Defined: true, OK: false},
	}
	var got []string
	for _, m := range All() {
		k, n := m.Count(&j)
		got = append(got, fmt.Sprintf("%s %d/%d", m.Name, k, n))
	}
	want := "pass 0/1, tool_selection 1/1, arg_validity 1/3, arg_validity_shown 2/3, arg_validity_coerced 3/3, arg_accuracy 0/0, irrelevance 0/0, round_limit 0/0, failed_call 0/0, state 0/0, judged 1/1, judge_agreement 0/1, p50 0/0, p95 0/0"
	if s := strings.Join(got, ", "); s != want {
		t.Errorf("counts:\n got %s\nwant %s", s, want)
	}
}

func ExampleNames() {
	fmt.Println(strings.Join(Names(Gated), " "))
	for _, m := range Select(Rate, Paired) {
		fmt.Print(m.Short, " ")
	}
	fmt.Println()
	// Output:
	// pass tool_selection selection arg_validity arg_validity_coerced arg_accuracy irrelevance round_limit failed_call state judged judge_agreement p50 p95
	// pass selection arg_validity arg_validity_coerced arg_accuracy irrelevance round_limit failed_call state judged
}
