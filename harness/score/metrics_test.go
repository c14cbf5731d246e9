package score

import (
	"testing"

	"github.com/toolgrade/toolgrade/harness/record"
)

func TestMetrics(t *testing.T) {
	y, n, u := Judgement{true, true}, Judgement{true, false}, Judgement{}
	tests := []struct {
		name string
		tr   record.Trial
		want TrialMetrics
	}{
		{"infra", record.Trial{Score: record.Score{Outcome: record.OutcomeInfraError, CallExpected: true}}, TrialMetrics{Infra: true}},
		{"pass with calls", record.Trial{Score: record.Score{Outcome: record.OutcomePass, CallExpected: true, ToolCorrect: true, ArgsCorrect: true, CallsToKnownTools: 2, ValidCalls: 2}},
			TrialMetrics{Pass: y, Selection: y, ArgAccuracy: y, ArgValidity: y, KnownCalls: 2, ValidCalls: 2, RoundLimit: n}},
		{"wrong tool", record.Trial{Score: record.Score{Outcome: record.OutcomeWrongTool, CallExpected: true, CallsToKnownTools: 1, ValidCalls: 1}},
			TrialMetrics{Pass: n, Selection: n, ArgAccuracy: u, ArgValidity: y, KnownCalls: 1, ValidCalls: 1, RoundLimit: n}},
		{"one invalid call of two", record.Trial{Score: record.Score{Outcome: record.OutcomeInvalidArgs, CallExpected: true, ToolCorrect: true, CallsToKnownTools: 2, ValidCalls: 1}},
			TrialMetrics{Pass: n, Selection: y, ArgAccuracy: n, ArgValidity: n, KnownCalls: 2, ValidCalls: 1, RoundLimit: n}},
		{"no tool, wrong answer", record.Trial{Score: record.Score{Outcome: record.OutcomeWrongAnswer}},
			TrialMetrics{Pass: n, Irrelevance: y, RoundLimit: n}},
		{"no tool, empty answer", record.Trial{Score: record.Score{Outcome: record.OutcomeEmptyAnswer}},
			TrialMetrics{Pass: n, Irrelevance: y, RoundLimit: n}},
		{"no tool, unexpected call", record.Trial{Score: record.Score{Outcome: record.OutcomeUnexpectedCall, CallsToKnownTools: 1, ValidCalls: 1}},
			TrialMetrics{Pass: n, Irrelevance: n, ArgValidity: y, KnownCalls: 1, ValidCalls: 1, RoundLimit: n}},
		{"round limit outcome", record.Trial{Score: record.Score{Outcome: record.OutcomeRoundLimit, CallExpected: true, ToolCorrect: true, ArgsCorrect: true}},
			TrialMetrics{Pass: n, Selection: y, ArgAccuracy: y, RoundLimit: y}},
		{"round limit hit, passed", record.Trial{Score: record.Score{Outcome: record.OutcomePass, Truncated: true}, Transcript: &record.Transcript{RoundLimitHit: true}},
			TrialMetrics{Pass: y, Irrelevance: y, RoundLimit: y, Truncated: true}},
	}
	for _, tt := range tests {
		if got := Metrics(&tt.tr); got != tt.want {
			t.Errorf("%s:\n got %+v\nwant %+v", tt.name, got, tt.want)
		}
	}
}
