package record

// Judgement is one metric's verdict on one trial: whether the metric applies
// to it at all, and if so whether the trial met it.
type Judgement struct {
	Defined bool `json:"defined"`
	OK      bool `json:"ok"`
}

// Judgements is every per-trial judgement toolgrade's rates are made of,
// decided once here so that reports, comparisons and gates count alike.
type Judgements struct {
	// Infra: the trial hit an infrastructure error; no other judgement is
	// defined, since no rate counts it.
	Infra bool `json:"infra"`
	// Pass is defined for every scored trial.
	Pass Judgement `json:"pass"`
	// Selection is defined when a call was expected; ok when the first call
	// named an expected tool.
	Selection Judgement `json:"tool_selection"`
	// ArgAccuracy is defined when the tool was right; ok when the
	// arguments matched.
	ArgAccuracy Judgement `json:"arg_accuracy"`
	// ArgValidity is the trial-level form of argument validity: defined
	// when the trial made a call to a known tool; ok when every such call
	// passed the tool's schema. Reports count validity per call
	// (ValidCalls of KnownCalls); comparisons pair trials, so they use this.
	ArgValidity Judgement `json:"arg_validity"`
	// ArgValidityShown is ArgValidity against the schema the model was
	// shown: ok when every call to a known tool passed it, even if some
	// broke constraints it was not shown (hidden_constraint).
	ArgValidityShown Judgement `json:"arg_validity_shown"`
	// ArgValidityCoerced is ArgValidity once the arguments are coerced as
	// a lenient client would ("5" → 5): ok when every call to a known tool
	// was valid as sent or valid if coerced.
	ArgValidityCoerced Judgement `json:"arg_validity_coerced"`
	// KnownCalls and ValidCalls are the call-level counts behind validity,
	// ValidVisibleCalls the count behind validity as shown,
	// ValidCoercedCalls the count behind validity if coerced.
	KnownCalls        int `json:"calls_known"`
	ValidCalls        int `json:"calls_valid"`
	ValidVisibleCalls int `json:"calls_valid_visible"`
	ValidCoercedCalls int `json:"calls_valid_coerced"`
	// RepeatedCalls counts the calls that repeated an earlier call of the
	// trial with the same arguments.
	RepeatedCalls int `json:"calls_repeated"`
	// Irrelevance is defined for no-tool cases; ok when the model called
	// no tool (pass, wrong_answer or empty_answer: what it said is judged
	// apart).
	Irrelevance Judgement `json:"irrelevance"`
	// RoundLimit is defined for every scored trial; ok (lower is better)
	// when the conversation hit the round limit.
	RoundLimit Judgement `json:"round_limit"`
	// FailedCall is defined for every scored trial; ok (lower is better)
	// when the model was given an error for at least one of its calls
	// (Execution.Failed): a pass beside it rests on something other than
	// the tool's result, and reports list such passes.
	FailedCall Judgement `json:"failed_call"`
	// State is defined for the trials of a scenario with state checks;
	// ok when every check passed (see Score.State).
	State Judgement `json:"state"`
	// Judged is defined when the judge model gave the trial's answer a
	// verdict (a case with a rubric, an answer, no judge error, a verdict
	// not stale); ok when the verdict is pass. The outcome is not changed
	// by it.
	Judged Judgement `json:"judged"`
	// JudgeAgreement is defined when the answer was judged more than once
	// (--judge-repeat) without error; ok when every verdict agreed.
	JudgeAgreement Judgement `json:"judge_agreement"`
	// JudgeError: the judge failed on this trial's answer (see
	// Judged.Error); JudgeStale: its verdict was judged against a rubric
	// the suite has since changed. Reports count both; no rate does.
	JudgeError bool `json:"judge_error,omitempty"`
	JudgeStale bool `json:"judge_stale,omitempty"`
	// Truncated: a prompt reached num_ctx.
	Truncated bool `json:"truncated,omitempty"`
	// BFCL is BFCL's valid/invalid verdict for a trial of a case tagged
	// bfcl_category:CATEGORY (see judgeBFCL); nil for other cases.
	BFCL *Judgement `json:"bfcl,omitempty"`
	// BFCLRoundTrip: the BFCL verdict depends on whether integral numbers
	// were sent as ints or floats, which Ollama's round trip hides
	// (BFCLVerdict.RoundTrip).
	BFCLRoundTrip bool `json:"bfcl_round_trip,omitempty"`
	// Excluded: the trial is Truncated and the options did not keep such
	// trials, so no rate counts it and no other judgement is defined: the
	// model may never have seen its tools. Reports count it apart, as they
	// count infrastructure errors.
	Excluded bool `json:"excluded,omitempty"`
}

// JudgeOptionsOf returns the options the reports of runs judge with, as
// run.json recorded them: every reader of a run (report, compare, show,
// gates) takes its options from here. Trials of several runs are judged
// alike, so truncated trials are kept only when every run kept them; no run
// (or a nil one) gives the zero value.
func JudgeOptionsOf(runs ...*Run) JudgeOptions {
	keep := len(runs) > 0
	for _, r := range runs {
		keep = keep && r != nil && r.KeepTruncated
	}
	return JudgeOptions{KeepTruncated: keep}
}

// Counted reports whether the trial counts in the rates: it is neither an
// infrastructure error nor excluded as truncated.
func (j Judgements) Counted() bool { return !j.Infra && !j.Excluded }

// JudgeOptions say which trials the rates count. The zero value is what
// every report does by default.
type JudgeOptions struct {
	// KeepTruncated counts the trials whose prompt reached num_ctx in the
	// rates like any other (--keep-truncated); false excludes them.
	KeepTruncated bool
}

// Judge judges one trial from its Score: the scorer made every judgement
// (internal/score), and Judge only says which rates each one counts in, so
// reports, comparisons and gates count alike. Trials written before format
// 1.1 lack Score.IrrelevanceOK and Score.RoundLimit; for them Judge derives
// both as toolgrade did then, from the outcome and the transcript.
//
// A trial whose prompt reached num_ctx is excluded from every rate
// (Judgements.Excluded); JudgeWith with KeepTruncated counts it.
func Judge(t *Trial) Judgements { return JudgeWith(t, JudgeOptions{}) }

// JudgeWith is Judge with the options a command was given.
func JudgeWith(t *Trial, opts JudgeOptions) Judgements {
	sc := t.Score
	if sc.Outcome == OutcomeInfraError {
		return Judgements{Infra: true}
	}
	if sc.Truncated && !opts.KeepTruncated {
		return Judgements{Truncated: true, Excluded: true}
	}
	m := Judgements{
		Pass:       Judgement{true, sc.Outcome == OutcomePass},
		KnownCalls: sc.CallsToKnownTools,
		ValidCalls: sc.ValidCalls,
		// A call valid against the full schema is valid against the
		// visible one, which only drops constraints; before format 1.2
		// the count is absent and this makes it ValidCalls.
		ValidVisibleCalls: max(sc.ValidVisibleCalls, sc.ValidCalls),
		// A call valid as sent is valid if coerced; a trial scored before
		// the count existed has none, and this makes it ValidCalls.
		ValidCoercedCalls: max(sc.ValidCoercedCalls, sc.ValidCalls),
		RepeatedCalls:     sc.RepeatedCalls,
		Truncated:         sc.Truncated,
	}
	if sc.CallExpected {
		m.Selection = Judgement{true, sc.ToolCorrect}
		if sc.ToolCorrect {
			m.ArgAccuracy = Judgement{true, sc.ArgsCorrect}
		}
	} else if sc.IrrelevanceOK != nil || sc.State == nil {
		// A scenario judged by its end state alone expected no call and
		// no silence either: irrelevance does not apply to it.
		m.Irrelevance = Judgement{true, irrelevanceOK(t)}
	}
	if sc.State != nil {
		m.State = Judgement{true, *sc.State}
	}
	if sc.CallsToKnownTools > 0 {
		m.ArgValidity = Judgement{true, sc.ValidCalls == sc.CallsToKnownTools}
		m.ArgValidityShown = Judgement{true, m.ValidVisibleCalls == sc.CallsToKnownTools}
		m.ArgValidityCoerced = Judgement{true, m.ValidCoercedCalls == sc.CallsToKnownTools}
	}
	judged(t.Judged, &m)
	m.RoundLimit = Judgement{true, roundLimit(t)}
	m.FailedCall = Judgement{true, failedCalls(t) > 0}
	m.BFCL, m.BFCLRoundTrip = judgeBFCL(t)
	return m
}

// judged fills m's judgements of the judge's verdicts jd (nil: the trial
// was not judged).
func judged(jd *Judged, m *Judgements) {
	switch {
	case jd == nil:
	case jd.Error != "":
		m.JudgeError = true
	case jd.Stale:
		m.JudgeStale = true
	case jd.Verdict != "":
		m.Judged = Judgement{true, jd.Verdict == VerdictPass}
		if agree, ok := jd.Agree(); ok {
			m.JudgeAgreement = Judgement{true, agree}
		}
	}
}

// irrelevanceOK is Score.IrrelevanceOK, or for an older trial the judgement
// from its outcome: the outcomes of a no-tool case in which no tool was
// called (what was said is judged apart).
func irrelevanceOK(t *Trial) bool {
	if ok := t.Score.IrrelevanceOK; ok != nil {
		return *ok
	}
	o := t.Score.Outcome
	return o == OutcomePass || o == OutcomeWrongAnswer || o == OutcomeEmptyAnswer
}

// roundLimit is Score.RoundLimit, or for an older trial the judgement from
// its outcome and transcript.
func roundLimit(t *Trial) bool {
	if hit := t.Score.RoundLimit; hit != nil {
		return *hit
	}
	return t.Score.Outcome == OutcomeRoundLimit || (t.Transcript != nil && t.Transcript.RoundLimitHit)
}

// failedCalls is Score.FailedCalls, or for a trial scored before format 1.8
// the count of the transcript's failed executions (a trial that did not
// execute ran none, so the model was told of no failure).
func failedCalls(t *Trial) int {
	if n := t.Score.FailedCalls; n > 0 {
		return n
	}
	n := 0
	if tr := t.Transcript; tr != nil && !tr.NotExecuted {
		for _, r := range tr.Rounds {
			for _, x := range r.Executions {
				if x.Failed() {
					n++
				}
			}
		}
	}
	return n
}
