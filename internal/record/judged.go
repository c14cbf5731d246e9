package record

// Judged is what a judge model said of a trial's final answer against its
// case's rubric (answer: {judge: ...}): one verdict per repeat of the
// judgement (--judge-repeat), and the majority. It never changes the
// trial's outcome: the judged answer is a rate of its own (metric judged).
type Judged struct {
	// Rubric is the rubric the answer was judged against, as the suite
	// wrote it: rescore compares it with the edited suite's.
	Rubric string `json:"rubric"`
	// Model and Digest are the judge model as asked and as Ollama listed it.
	Model  string `json:"model"`
	Digest string `json:"digest,omitempty"`
	// Options are the options every judge request sent (temperature 0 and
	// the suite's defaults.judge.options); each verdict has its own seed.
	Options map[string]any `json:"options,omitempty"`
	// Verdicts are the judgements in order, one per repeat.
	Verdicts []Verdict `json:"verdicts"`
	// Verdict is the majority of Verdicts, VerdictPass or VerdictFail (a
	// tie is VerdictFail: a pass needs more than half); "" when a
	// judgement failed (Error).
	Verdict string `json:"verdict,omitempty"`
	// Error is set when a judgement still failed after its retries (the
	// judge unreachable, an HTTP error, a reply with no clear verdict): an
	// infrastructure error of the judge, never the model's failure. The
	// trial is then left out of the judged rate.
	Error string `json:"error,omitempty"`
	// Stale is set by rescore when the edited suite's rubric differs from
	// Rubric and the verdicts were kept (no --rejudge): the trial is left
	// out of the judged rate until it is judged again.
	Stale bool `json:"stale,omitempty"`
}

// Judge verdicts.
const (
	VerdictPass = "pass"
	VerdictFail = "fail"
)

// Verdict is one judgement of an answer.
type Verdict struct {
	// Verdict is VerdictPass or VerdictFail; "" when Error is set.
	Verdict string `json:"verdict,omitempty"`
	// Reason is the judge's reason, as it wrote it.
	Reason string `json:"reason,omitempty"`
	// Seed is the seed the request sent.
	Seed int64 `json:"seed"`
	// Raw is the judge's reply, exactly as it came.
	Raw string `json:"raw"`
	// Read says how Raw was read when it was not the JSON object asked for
	// ("code fence", "embedded JSON", "verdict word"); "" for JSON.
	Read string `json:"read,omitempty"`
	// Attempts is how many requests it took (more than 1 after retries).
	Attempts int `json:"attempts"`
	// Cached is set when an identical request earlier in the run answered
	// it: no request was sent.
	Cached bool `json:"cached,omitempty"`
	// Error is why the judgement failed after its retries.
	Error string `json:"error,omitempty"`
}

// Agree reports whether j's verdicts all agree; false with fewer than two
// verdicts or a failed judgement, where agreement says nothing.
func (j *Judged) Agree() (agree, defined bool) {
	if j.Error != "" || len(j.Verdicts) < 2 {
		return false, false
	}
	for _, v := range j.Verdicts[1:] {
		if v.Verdict != j.Verdicts[0].Verdict {
			return false, true
		}
	}
	return true, true
}

// Majority is the verdict of vs: VerdictPass when more than half pass,
// else VerdictFail (a tie fails).
func Majority(vs []Verdict) string {
	pass := 0
	for _, v := range vs {
		if v.Verdict == VerdictPass {
			pass++
		}
	}
	if 2*pass > len(vs) {
		return VerdictPass
	}
	return VerdictFail
}
