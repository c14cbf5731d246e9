package runner

import (
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/stats"
)

// evidence is what --stop-early knows of one model's cases: passes and
// scored trials per (variant, case), and which cases are settled. Its
// methods are called under the runner's lock; a nil evidence stops nothing.
//
// The test is per case, on that case's repeats alone: a case is the unit of
// evidence, and its repeats are independent given the case however much
// cases differ, so the test's error rates hold under clustering
// (stats.TestSPRTPerCaseUnderClustering).
type evidence struct {
	model   string
	test    stats.SPRT
	judge   record.JudgeOptions
	tally   map[caseKey]*passes
	settled map[caseKey]bool
}

type caseKey struct{ variant, caseID string }

type passes struct{ k, n int }

// newEvidence starts the evidence of model's cases from the outcomes of its
// trials recorded before (resume); nil when cfg does not stop early.
func newEvidence(cfg Config, model string) *evidence {
	if cfg.StopEarly == nil {
		return nil
	}
	ev := &evidence{model: model, test: cfg.StopEarly.Filled(), judge: cfg.Judge, tally: map[caseKey]*passes{}, settled: map[caseKey]bool{}}
	for k, outcome := range cfg.Outcomes {
		if k.Model == model {
			ev.count(caseKey{k.Variant, k.CaseID}, outcome)
		}
	}
	return ev
}

// add counts a trial just written.
func (ev *evidence) add(t *record.Trial) {
	if ev != nil {
		ev.count(caseKey{t.Variant, t.CaseID}, Evidence(t, ev.judge))
	}
}

// Evidence is what --stop-early counts of a trial: its outcome, or "" for
// a trial no rate counts (record.JudgeWith): an infrastructure error (Ollama
// down or a server crash says nothing about the model) or a truncated trial
// kept out, whose model may never have seen its tools.
func Evidence(t *record.Trial, opts record.JudgeOptions) string {
	if !record.JudgeWith(t, opts).Counted() {
		return ""
	}
	return t.Score.Outcome
}

func (ev *evidence) count(k caseKey, outcome string) {
	if outcome == "" || outcome == record.OutcomeInfraError {
		return
	}
	p := ev.tally[k]
	if p == nil {
		p = &passes{}
		ev.tally[k] = p
	}
	p.n++
	if outcome == record.OutcomePass {
		p.k++
	}
}

// settle marks the cases whose evidence now settles the test.
func (ev *evidence) settle() {
	for k, p := range ev.tally {
		if ev.test.Decide(p.k, p.n) != stats.Undecided {
			ev.settled[k] = true
		}
	}
}

// stopped reports whether the case is settled and repeats no more.
func (ev *evidence) stopped(variant, caseID string) bool {
	return ev != nil && ev.settled[caseKey{variant, caseID}]
}
