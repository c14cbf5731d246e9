package compare

import (
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/store"
)

// ModelTrials is every trial of one run kept as Models keeps them (slim,
// per model, never a transcript), for a caller that compares several pairs
// of its models and reads the run for more besides: a choice reads it once
// for its table and for each model paired with the reference. The caller
// reads the run (store.Reader.SlimTrials) and gives its reset and each
// trial to Reset and Add.
type ModelTrials struct {
	run   *store.Reader
	judge record.JudgeOptions
	sides map[string]*side
}

// NewModelTrials keeps r's trials judged as Models judges them with opts
// (nil: the run's own judging).
func NewModelTrials(r *store.Reader, opts *Options) *ModelTrials {
	return &ModelTrials{run: r, judge: opts.judge(r.Run), sides: map[string]*side{}}
}

// Reset forgets every trial given: the read started over.
func (m *ModelTrials) Reset() { clear(m.sides) }

// Add keeps t, a trial key's last line, slim.
func (m *ModelTrials) Add(t *record.Trial) { m.AddJudged(t, record.JudgeWith(t, m.judge)) }

// Judge is the options the trials are judged with.
func (m *ModelTrials) Judge() record.JudgeOptions { return m.judge }

// AddJudged is Add for a caller that judged t already, with Judge's
// options: a trial read for a choice's table too is judged once.
func (m *ModelTrials) AddJudged(t *record.Trial, j record.Judgements) {
	s := m.sides[t.Model]
	if s == nil {
		s = newSide()
		m.sides[t.Model] = s
	}
	s.keep(modelPairKey(t), s.slimJudged(t, j))
}

// Models is Models(run, a, b, opts) from the trials kept, judged as
// NewModelTrials was told (opts' KeepTruncated is not looked at again).
func (m *ModelTrials) Models(a, b string, opts *Options) (*Comparison, error) {
	sides := [2]*side{m.kept(a), m.kept(b)}
	return modelsCompared(m.run, a, b, sides, opts)
}

// kept is model's side; an empty one when it has no trials.
func (m *ModelTrials) kept(model string) *side {
	if s := m.sides[model]; s != nil {
		return s
	}
	return newSide()
}
