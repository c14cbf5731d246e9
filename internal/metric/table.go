package metric

import "github.com/toolgrade/toolgrade/internal/record"

// table is every metric, in report order. It is built afresh on each call
// so no caller can change another's.
func table() []Metric {
	every := Column | Paired | Gated
	return []Metric{
		{Name: Pass, Short: "pass", Label: "Pass", Uses: every,
			Doc:   "Scored trials whose outcome is pass.",
			judge: func(j *record.Judgements) record.Judgement { return j.Pass }},
		{Name: ToolSelection, Aliases: []string{"selection"}, Short: "selection", Label: "Selection", Uses: every,
			Doc:   "Trials that expected a call whose first call named an expected tool.",
			judge: func(j *record.Judgements) record.Judgement { return j.Selection }},
		{Name: ArgValidity, Short: "arg_validity", Label: "Arg valid", Uses: every,
			Doc:   "Calls to known tools whose arguments passed the tool's schema (paired comparisons judge a trial: valid when all its calls were).",
			judge: func(j *record.Judgements) record.Judgement { return j.ArgValidity },
			count: func(j *record.Judgements) (int, int) { return j.ValidCalls, j.KnownCalls }},
		{Name: ArgValidityShown, Short: "arg_validity_shown", Label: "Arg valid (as shown)",
			Doc:   "Argument validity against the schema the model was shown: calls that broke only constraints it was not shown count as valid.",
			judge: func(j *record.Judgements) record.Judgement { return j.ArgValidityShown },
			count: func(j *record.Judgements) (int, int) { return j.ValidVisibleCalls, j.KnownCalls }},
		{Name: ArgValidityCoerced, Short: "arg_validity_coerced", Label: "Arg valid (if coerced)", Uses: Paired | Gated,
			Doc:   "Argument validity once arguments are coerced as a lenient client would (\"5\" → 5, \"true\" → true).",
			judge: func(j *record.Judgements) record.Judgement { return j.ArgValidityCoerced },
			count: func(j *record.Judgements) (int, int) { return j.ValidCoercedCalls, j.KnownCalls }},
		{Name: ArgAccuracy, Short: "arg_accuracy", Label: "Arg acc", Uses: every,
			Doc:   "Trials that called the right tool whose arguments matched the expected ones.",
			judge: func(j *record.Judgements) record.Judgement { return j.ArgAccuracy }},
		{Name: Irrelevance, Short: "irrelevance", Label: "Irrelevance", Uses: every,
			Doc:   "Trials of no-tool cases in which the model called no tool (what it said is judged apart).",
			judge: func(j *record.Judgements) record.Judgement { return j.Irrelevance }},
		{Name: RoundLimit, Short: "round_limit", Label: "Round limit", LowerIsBetter: true, Uses: every,
			Doc:   "Scored trials whose conversation hit the round limit; lower is better.",
			judge: func(j *record.Judgements) record.Judgement { return j.RoundLimit }},
		{Name: FailedCall, Short: "failed_call", Label: "Failed call", LowerIsBetter: true, Uses: every,
			Doc:   "Scored trials in which the model was given an error for a call (the tool's error, a blocked call, no such tool, arguments the schema refused); lower is better. Reports list the passes among them.",
			judge: func(j *record.Judgements) record.Judgement { return j.FailedCall }},
		{Name: State, Short: "state", Label: "End state", Uses: every | Sparse,
			Doc:   "Trials of scenarios with state checks (check:) whose checks all passed after the conversation: the servers ended in the state the case expects.",
			judge: func(j *record.Judgements) record.Judgement { return j.State }},
		{Name: Judged, Short: "judged", Label: "Judged", Uses: every | Sparse,
			Doc:   "Answers the judge model passed against their case's rubric (answer: {judge: ...}), among the trials whose answer it gave a verdict; judge errors and stale verdicts are left out, and the outcome is not changed by it.",
			judge: func(j *record.Judgements) record.Judgement { return j.Judged }},
		{Name: JudgeAgreement, Short: "judge_agreement", Label: "Judge agreement", Uses: Gated,
			Doc:   "The judge's self-agreement: answers judged more than once (--judge-repeat) whose verdicts all agreed.",
			judge: func(j *record.Judgements) record.Judgement { return j.JudgeAgreement }},
		{Name: P50, Short: "p50", Label: "p50", Kind: Latency, LowerIsBetter: true, Uses: Column | Gated,
			Doc: "Median wall time of a scored trial."},
		{Name: P95, Short: "p95", Label: "p95", Kind: Latency, LowerIsBetter: true, Uses: Column | Gated,
			Doc: "95th percentile of a scored trial's wall time."},
	}
}

// trialCount counts a trial-level judgement: 1 of 1 when met, 0 of 1 when
// not, 0 of 0 when it does not apply.
func trialCount(j record.Judgement) (k, n int) {
	if !j.Defined {
		return 0, 0
	}
	if j.OK {
		return 1, 1
	}
	return 0, 1
}
