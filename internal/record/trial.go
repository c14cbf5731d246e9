package record

import "time"

// Trial is one model × case × repeat: the line written to trials.jsonl as
// soon as the trial ends. Reports, comparisons and gates read nothing else.
type Trial struct {
	Model  string `json:"model"`
	CaseID string `json:"case"`
	// Variant names the tool-description variant the trial ran with; empty
	// for the servers' own descriptions.
	Variant string `json:"variant,omitempty"`
	// Repeat counts from 0; repeat i runs with seed Seed = base seed + i.
	Repeat int      `json:"repeat"`
	Seed   int64    `json:"seed"`
	Tags   []string `json:"tags,omitempty"`
	// Attempts is how many times the trial ran; more than 1 when
	// infrastructure failures were retried.
	Attempts int `json:"attempts"`
	// Host is the Ollama (its URL, redacted) that ran the trial when the
	// run spread trials over several; empty with one Ollama.
	Host string `json:"host,omitempty"`
	// NumCtx is the context length the trial ran with: the request's
	// num_ctx option when it set one, else the model's own (its num_ctx
	// parameter, or the context it was loaded with). 0: unknown, or a
	// trial written before toolgrade recorded it.
	NumCtx int       `json:"num_ctx,omitempty"`
	Start  time.Time `json:"start"`
	// Transcript is the final attempt's conversation.
	Transcript *Transcript `json:"transcript"`
	Score      Score       `json:"score"`
	// Judged is the judge model's verdict on the final answer, for a case
	// with a rubric (answer: {judge: ...}) whose trial ended with an answer;
	// nil otherwise, and in trials written before format 1.6.
	Judged *Judged `json:"judged,omitempty"`
	// CopyOf is set on a repeat that was not sent to the model: at
	// temperature 0 the first two repeats of its case (same model and
	// variant) gave the same calls, arguments and answer, so later repeats
	// are copies. It names the repeat copied (0), whose Score, Judged and
	// Transcript the copy carries, so that every reader of verdicts and
	// behaviour reads it as that repeat; readers of cost (latency, tokens,
	// speed) leave it out (IsCopy), and Attempts is 0. Nil on a trial that
	// ran, and in trials written before format 1.7.
	CopyOf *int `json:"copy_of,omitempty"`
}

// IsCopy reports whether the trial is a copy of an earlier repeat (CopyOf):
// it took no model time, and cost readers leave it out.
func (t *Trial) IsCopy() bool { return t.CopyOf != nil }

// Copy is the trial of repeat rep that copies src (see CopyOf): src's
// verdict and transcript under rep's key, seed and start time.
func (src *Trial) Copy(rep int, seed int64, start time.Time) *Trial {
	c := *src
	from := src.Repeat
	c.Repeat, c.Seed, c.Start, c.Attempts, c.CopyOf, c.Host = rep, seed, start, 0, &from, ""
	return &c
}

// Key identifies a trial within a run (for resuming and pairing).
func (t *Trial) Key() TrialKey {
	return TrialKey{Model: t.Model, CaseID: t.CaseID, Variant: t.Variant, Repeat: t.Repeat}
}

// TrialKey identifies a trial within a run.
type TrialKey struct {
	Model   string
	CaseID  string
	Variant string
	Repeat  int
}

// Score is the verdict on one trial.
type Score struct {
	// Outcome is exactly one of the Outcome* constants.
	Outcome string `json:"outcome"`
	// Detail says why, for a failure: the arguments that differ (one line
	// each, expected against received, in JSON), the validator's message,
	// the tool named, the answer that did not match. In a scenario of
	// several turns a turn's failure starts "turn N: ".
	Detail string `json:"detail,omitempty"`
	// Turn is the turn of a scenario the outcome is about, from 1; 0 for
	// the whole case (its expect over every turn, its state checks) and
	// for a case of one question.
	Turn int `json:"turn,omitempty"`
	// CallExpected is true for cases that expect a tool call, false for
	// no_tool cases (irrelevance).
	CallExpected bool `json:"call_expected"`
	// ToolCorrect: the first call named an expected tool (selection accuracy).
	ToolCorrect bool `json:"tool_correct"`
	// ArgsCorrect: every expected call that named the right tool had matching
	// arguments (argument accuracy, over trials with ToolCorrect).
	ArgsCorrect bool `json:"args_correct"`
	// CallsToKnownTools and ValidCalls count the calls that named a tool in
	// the catalog, and those whose arguments passed its schema (validity).
	CallsToKnownTools int `json:"calls_known"`
	ValidCalls        int `json:"calls_valid"`
	// ValidVisibleCalls counts the calls to known tools whose arguments
	// passed the schema the model was shown (the Ollama parameters): the
	// valid calls and those that failed only hidden constraints. 0 before
	// format 1.2; Judge reads it as at least ValidCalls.
	ValidVisibleCalls int `json:"calls_valid_visible,omitempty"`
	// ValidCoercedCalls counts the calls to known tools whose arguments
	// passed the schema as sent or once coerced as a lenient client would
	// ("5" → 5 for an integer; see toolschema.CoerceArgs): at least
	// ValidCalls. 0 when coercion makes no invalid call valid (and in
	// trials scored before toolgrade counted it): Judge then reads it as
	// ValidCalls.
	ValidCoercedCalls int `json:"calls_valid_coerced,omitempty"`
	// RepeatedCalls counts the calls that repeat an earlier call of the
	// trial: the same tool with arguments equal as JSON values.
	RepeatedCalls int `json:"calls_repeated,omitempty"`
	// FailedCalls counts the calls the model was given an error for
	// (Execution.Failed): the tool returned isError, the policy blocked the
	// call, the name was no tool or a decoy, the arguments failed the
	// schema. 0 in trials written before format 1.8, for which Judge counts
	// the failed executions of the transcript.
	FailedCalls int `json:"calls_failed,omitempty"`
	// Rounds is how many requests the conversation used.
	Rounds int `json:"rounds"`
	// Truncated: a prompt reached num_ctx, so Ollama cut it and the tools
	// may have been lost.
	Truncated bool `json:"truncated,omitempty"`
	// IrrelevanceOK is set for no-tool cases that were scored (nil for the
	// others): true when the model rightly called no tool, neither as a
	// call nor written in its answer; what it said is judged apart, in
	// Outcome. Nil too in trials written before format 1.1, for which
	// Judge derives it from Outcome.
	IrrelevanceOK *bool `json:"irrelevance_ok,omitempty"`
	// RoundLimit is set for every scored trial: true when the conversation
	// hit the round limit, whatever the outcome (a trial may pass and
	// still have been cut). Nil in trials written before format 1.1, for
	// which Judge derives it from Outcome and the transcript.
	RoundLimit *bool `json:"round_limit,omitempty"`
	// State is set for the trials of a scenario with state checks
	// (check:): true when every check passed. Nil for other cases, for
	// infrastructure errors, and in trials written before format 1.9.
	State *bool `json:"state,omitempty"`
	// BFCL is BFCL's own verdict, for a case imported from BFCL (one the
	// suite tags bfcl_category:CATEGORY): BFCL's rules alone, in BFCL's
	// order, beside toolgrade's finer Outcome. Nil for other cases, for
	// infrastructure errors, and in trials written before format 1.5, for
	// which Judge derives the verdict from Outcome.
	BFCL *BFCLVerdict `json:"bfcl,omitempty"`
}

// BFCLVerdict is the verdict BFCL's AST checker
// (bfcl_eval/eval_checker/ast_eval/ast_checker.py) gives a trial's calls.
type BFCLVerdict struct {
	// Valid is BFCL's verdict on the calls as the record holds them: each
	// integral number read as an int, as Ollama sent it.
	Valid bool `json:"valid"`
	// Error is BFCL's error_type for an invalid trial
	// (simple_function_checker:unexpected_param, type_error:simple,
	// value_error:string, ...), Detail says which call and parameter.
	Error  string `json:"error,omitempty"`
	Detail string `json:"detail,omitempty"`
	// RoundTrip is set when the verdict depends on whether integral numbers
	// in the arguments were sent as ints or as floats: Ollama decodes a
	// model's arguments and encodes them again, so 5.0 arrives as 5 and
	// which the model wrote cannot be known. Some reading of them as floats
	// then gives the other verdict.
	RoundTrip bool `json:"round_trip,omitempty"`
}

// Outcomes: every trial gets exactly one.
const (
	OutcomePass             = "pass"
	OutcomeWrongTool        = "wrong_tool"
	OutcomeHallucinatedTool = "hallucinated_tool"
	OutcomeNoCall           = "no_call"
	OutcomeCallInText       = "call_in_text"
	// OutcomeCallInThinking: no call was made, but the thinking writes one
	// to a listed tool (in the shapes call_in_text recognises); a call in
	// the answer as well is call_in_text.
	OutcomeCallInThinking = "call_in_thinking"
	OutcomeEmptyAnswer    = "empty_answer"
	OutcomeUnexpectedCall = "unexpected_call"
	OutcomeInvalidArgs    = "invalid_args"
	// OutcomeHiddenConstraint: the arguments fit the schema the model was
	// shown and broke only constraints it was not (Detail names them).
	OutcomeHiddenConstraint = "hidden_constraint"
	OutcomeWrongArgs        = "wrong_args"
	OutcomeMissingCall      = "missing_call"
	// OutcomeCallFailed: the calls were right, but an expected call failed
	// (its tool returned an error, or the policy blocked it) and no other
	// call that fits the expectation ran without error, so the answer
	// cannot rest on the tool's result. A case that tests error handling
	// allows it with expect: {call_may_fail: true}.
	OutcomeCallFailed  = "call_failed"
	OutcomeExtraCall   = "extra_call"
	OutcomeRoundLimit  = "round_limit"
	OutcomeWrongAnswer = "wrong_answer"
	// OutcomeWrongState: the conversation ran, but a state check after it
	// (check:) failed: the servers did not end in the state the case
	// expects.
	OutcomeWrongState = "wrong_state"
	OutcomeInfraError = "infra_error"
)

// Outcomes lists every outcome in report order.
var Outcomes = []string{
	OutcomePass, OutcomeWrongTool, OutcomeHallucinatedTool, OutcomeNoCall, OutcomeCallInText, OutcomeCallInThinking,
	OutcomeEmptyAnswer, OutcomeUnexpectedCall, OutcomeHiddenConstraint, OutcomeInvalidArgs, OutcomeWrongArgs,
	OutcomeMissingCall, OutcomeCallFailed, OutcomeExtraCall, OutcomeRoundLimit, OutcomeWrongAnswer, OutcomeWrongState,
	OutcomeInfraError,
}
