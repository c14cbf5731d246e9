package record

import (
	"strings"
	"testing"
)

func TestJudge(t *testing.T) {
	y, n, u := Judgement{true, true}, Judgement{true, false}, Judgement{}
	yes, no := true, false
	tests := []struct {
		name string
		tr   Trial
		want Judgements
	}{
		{"infra", Trial{Score: Score{Outcome: OutcomeInfraError, CallExpected: true}}, Judgements{Infra: true}},
		{"pass with calls", Trial{Score: Score{Outcome: OutcomePass, CallExpected: true, ToolCorrect: true, ArgsCorrect: true, CallsToKnownTools: 2, ValidCalls: 2}},
			Judgements{Pass: y, Selection: y, ArgAccuracy: y, ArgValidity: y, ArgValidityShown: y, ArgValidityCoerced: y, KnownCalls: 2, ValidCalls: 2, ValidVisibleCalls: 2, ValidCoercedCalls: 2, RoundLimit: n, FailedCall: n}},
		{"wrong tool", Trial{Score: Score{Outcome: OutcomeWrongTool, CallExpected: true, CallsToKnownTools: 1, ValidCalls: 1}},
			Judgements{Pass: n, Selection: n, ArgAccuracy: u, ArgValidity: y, ArgValidityShown: y, ArgValidityCoerced: y, KnownCalls: 1, ValidCalls: 1, ValidVisibleCalls: 1, ValidCoercedCalls: 1, RoundLimit: n, FailedCall: n}},
		{"one invalid call of two", Trial{Score: Score{Outcome: OutcomeInvalidArgs, CallExpected: true, ToolCorrect: true, CallsToKnownTools: 2, ValidCalls: 1}},
			Judgements{Pass: n, Selection: y, ArgAccuracy: n, ArgValidity: n, ArgValidityShown: n, ArgValidityCoerced: n, KnownCalls: 2, ValidCalls: 1, ValidVisibleCalls: 1, ValidCoercedCalls: 1, RoundLimit: n, FailedCall: n}},
		{"hidden constraint", Trial{Score: Score{Outcome: OutcomeHiddenConstraint, CallExpected: true, ToolCorrect: true, CallsToKnownTools: 2, ValidCalls: 1, ValidVisibleCalls: 2}},
			Judgements{Pass: n, Selection: y, ArgAccuracy: n, ArgValidity: n, ArgValidityShown: y, ArgValidityCoerced: n, KnownCalls: 2, ValidCalls: 1, ValidVisibleCalls: 2, ValidCoercedCalls: 1, RoundLimit: n, FailedCall: n}},
		// Before format 1.2 calls_valid_visible is absent: validity as
		// shown is validity.
		{"1.1 trial without visible count", Trial{Score: Score{Outcome: OutcomeInvalidArgs, CallExpected: true, ToolCorrect: true, CallsToKnownTools: 2, ValidCalls: 1}},
			Judgements{Pass: n, Selection: y, ArgAccuracy: n, ArgValidity: n, ArgValidityShown: n, ArgValidityCoerced: n, KnownCalls: 2, ValidCalls: 1, ValidVisibleCalls: 1, ValidCoercedCalls: 1, RoundLimit: n, FailedCall: n}},
		{"no tool, wrong answer", Trial{Score: Score{Outcome: OutcomeWrongAnswer}},
			Judgements{Pass: n, Irrelevance: y, RoundLimit: n, FailedCall: n}},
		{"no tool, empty answer", Trial{Score: Score{Outcome: OutcomeEmptyAnswer}},
			Judgements{Pass: n, Irrelevance: y, RoundLimit: n, FailedCall: n}},
		{"no tool, unexpected call", Trial{Score: Score{Outcome: OutcomeUnexpectedCall, CallsToKnownTools: 1, ValidCalls: 1}},
			Judgements{Pass: n, Irrelevance: n, ArgValidity: y, ArgValidityShown: y, ArgValidityCoerced: y, KnownCalls: 1, ValidCalls: 1, ValidVisibleCalls: 1, ValidCoercedCalls: 1, RoundLimit: n, FailedCall: n}},
		{"round limit outcome", Trial{Score: Score{Outcome: OutcomeRoundLimit, CallExpected: true, ToolCorrect: true, ArgsCorrect: true}},
			Judgements{Pass: n, Selection: y, ArgAccuracy: y, RoundLimit: y, FailedCall: n}},
		{"round limit hit, passed", Trial{Score: Score{Outcome: OutcomePass}, Transcript: &Transcript{RoundLimitHit: true}},
			Judgements{Pass: y, Irrelevance: y, RoundLimit: y, FailedCall: n}},
		// A prompt that reached num_ctx keeps the trial out of every rate.
		{"truncated", Trial{Score: Score{Outcome: OutcomeNoCall, CallExpected: true, Truncated: true}},
			Judgements{Truncated: true, Excluded: true}},
		{"truncated infra error", Trial{Score: Score{Outcome: OutcomeInfraError, Truncated: true}},
			Judgements{Infra: true}},
		{"valid if coerced", Trial{Score: Score{Outcome: OutcomeInvalidArgs, CallExpected: true, ToolCorrect: true, CallsToKnownTools: 2, ValidCalls: 1, ValidCoercedCalls: 2, RepeatedCalls: 1}},
			Judgements{Pass: n, Selection: y, ArgAccuracy: n, ArgValidity: n, ArgValidityShown: n, ArgValidityCoerced: y, KnownCalls: 2, ValidCalls: 1, ValidVisibleCalls: 1, ValidCoercedCalls: 2, RepeatedCalls: 1, RoundLimit: n, FailedCall: n}},
		// Format 1.1 trials carry the scorer's judgements, which Judge
		// reads instead of deriving them: here they differ from what the
		// outcome alone would say.
		{"scored irrelevance", Trial{Score: Score{Outcome: OutcomeWrongAnswer, IrrelevanceOK: &no, RoundLimit: &no}},
			Judgements{Pass: n, Irrelevance: n, RoundLimit: n, FailedCall: n}},
		{"scored round limit", Trial{Score: Score{Outcome: OutcomePass, CallExpected: true, ToolCorrect: true, ArgsCorrect: true, RoundLimit: &yes}},
			Judgements{Pass: y, Selection: y, ArgAccuracy: y, RoundLimit: y, FailedCall: n}},
		// Format 1.7 counts the calls the model was given an error for;
		// for an older trial Judge counts them in the transcript, but not
		// in a trial that did not execute.
		{"failed call, passed", Trial{Score: Score{Outcome: OutcomePass, RoundLimit: &no, IrrelevanceOK: &yes, FailedCalls: 1}},
			Judgements{Pass: y, Irrelevance: y, RoundLimit: n, FailedCall: y}},
		{"1.6 trial with a tool error", Trial{Score: Score{Outcome: OutcomePass, RoundLimit: &no, IrrelevanceOK: &yes}, Transcript: failedExec(false)},
			Judgements{Pass: y, Irrelevance: y, RoundLimit: n, FailedCall: y}},
		{"1.6 trial with a server failure", Trial{Score: Score{Outcome: OutcomePass, RoundLimit: &no, IrrelevanceOK: &yes}, Transcript: &Transcript{Rounds: []Round{{Executions: []Execution{{IsError: true, ErrorKind: ExecTimeout}}}}}},
			Judgements{Pass: y, Irrelevance: y, RoundLimit: n, FailedCall: n}},
		{"not executed", Trial{Score: Score{Outcome: OutcomePass, RoundLimit: &no, IrrelevanceOK: &yes}, Transcript: failedExec(true)},
			Judgements{Pass: y, Irrelevance: y, RoundLimit: n, FailedCall: n}},
		{"scored no round limit despite the transcript", Trial{Score: Score{Outcome: OutcomePass, IrrelevanceOK: &yes, RoundLimit: &no}, Transcript: &Transcript{RoundLimitHit: true}},
			Judgements{Pass: y, Irrelevance: y, RoundLimit: n, FailedCall: n}},
	}
	for _, tt := range tests {
		if got := Judge(&tt.tr); got != tt.want {
			t.Errorf("%s:\n got %+v\nwant %+v", tt.name, got, tt.want)
		}
	}
}

// TestJudgeKeepTruncated: with KeepTruncated a trial whose prompt reached
// num_ctx is judged like any other, and still says it was truncated.
func TestJudgeKeepTruncated(t *testing.T) {
	tr := Trial{Score: Score{Outcome: OutcomePass, CallExpected: true, ToolCorrect: true, ArgsCorrect: true, Truncated: true}}
	if j := Judge(&tr); !j.Excluded || j.Counted() || j.Pass.Defined {
		t.Errorf("Judge = %+v, want it excluded and nothing defined", j)
	}
	j := JudgeWith(&tr, JudgeOptions{KeepTruncated: true})
	if j.Excluded || !j.Counted() || !j.Truncated || j.Pass != (Judgement{true, true}) {
		t.Errorf("JudgeWith(KeepTruncated) = %+v, want a counted pass, marked truncated", j)
	}
	if got := JudgeOptionsOf(&Run{KeepTruncated: true}); !got.KeepTruncated {
		t.Errorf("JudgeOptionsOf a run that keeps them = %+v", got)
	}
	if got := JudgeOptionsOf(nil); got.KeepTruncated {
		t.Errorf("JudgeOptionsOf(nil) = %+v, want the zero options", got)
	}
	// Two runs compared are judged alike: kept only when both kept.
	if got := JudgeOptionsOf(&Run{KeepTruncated: true}, &Run{}); got.KeepTruncated {
		t.Errorf("JudgeOptionsOf a run that keeps and one that does not = %+v, want the zero options", got)
	}
	if got := JudgeOptionsOf(&Run{KeepTruncated: true}, &Run{KeepTruncated: true}); !got.KeepTruncated {
		t.Errorf("JudgeOptionsOf two runs that keep them = %+v", got)
	}
}

// TestJudgeReadsFormat11Lines reads a trial line written by format 1.1
// (no calls_valid_visible, no hidden_only) with an invalid call: it reads
// without warnings, and validity as shown is validity.
func TestJudgeReadsFormat11Lines(t *testing.T) {
	line := `{"format":"1.1","model":"m","case":"c","repeat":0,"seed":1,"attempts":1,"start":"2026-12-01T08:36:12Z",` +
		`"transcript":{"model":"m","rounds":[{"index":1,"response":{"tool_calls":[{"name":"search","arguments":{"q":1}}]},` +
		`"executions":[{"name":"search","server":"docs","tool":"search","arguments":{"q":1},"result":"error","is_error":true,"error_kind":"invalid_args","error":"missing query","duration_ns":1}]}]},` +
		`"score":{"outcome":"invalid_args","call_expected":true,"tool_correct":true,"args_correct":false,"calls_known":1,"calls_valid":0,"rounds":1,"round_limit":false}}` + "\n"
	r := NewReader(strings.NewReader(line), "trials.jsonl")
	if !r.Scan() {
		t.Fatalf("no trial: %v %v", r.Err(), r.Warnings)
	}
	tr := r.Trial()
	if len(r.Warnings) > 0 || tr.Transcript.Executions()[0].HiddenOnly {
		t.Fatalf("warnings %v, execution %+v", r.Warnings, tr.Transcript.Executions()[0])
	}
	j := Judge(tr)
	if j.ArgValidity != (Judgement{true, false}) || j.ArgValidityShown != j.ArgValidity || j.ValidVisibleCalls != 0 {
		t.Errorf("judged %+v", j)
	}
}

// failedExec is a transcript whose one call the tool refused.
func failedExec(notExecuted bool) *Transcript {
	return &Transcript{NotExecuted: notExecuted, Rounds: []Round{{Executions: []Execution{{Name: "read_text_file", IsError: true, ErrorKind: ExecToolError}}}}}
}
