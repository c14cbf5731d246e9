package runner

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"sync"
	"time"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/suite"
)

// The repeats a run does not send to the model. At temperature 0 a model
// answers every repeat of a case alike (the seed, which differs, is then
// ignored), so once the first two repeats of a case agree (the same calls in
// the same order with the same arguments, the same answer and verdict) the
// later ones would be copies: they are recorded as copies of repeat 0
// (record.Trial.CopyOf) instead of being run. With a temperature unset or
// above 0, two equal answers prove nothing and every repeat runs.

// copyState is where a case stands on copies.
type copyState int

const (
	// copyUnknown: the case has not been looked at yet.
	copyUnknown copyState = iota
	// copyPending: its first two repeats are to run here; the later ones
	// wait for them.
	copyPending
	// copyDone: they agreed; the later repeats are written as copies.
	copyDone
	// copyRun: every repeat runs (they differed, one failed, the options
	// prove nothing, or this shard does not hold both).
	copyRun
)

// copies is what one model's schedule knows of its cases' first two
// repeats; any worker may call it. A nil *copies skips nothing.
type copies struct {
	cfg   *Config
	model string
	// repeat is the run's repeats per case.
	repeat int
	now    func() time.Time

	mu    sync.Mutex
	cases map[caseKey]*firstTwo
}

// firstTwo is one case's first two repeats as they end, kept until the
// case is settled.
type firstTwo struct {
	state copyState
	t     [2]*record.Trial
	// src is repeat 0 of a case settled as copies.
	src *record.Trial
}

// newCopies is model's copy tracker; nil when no repeat can be a copy
// (fewer than three repeats, or Config.AllRepeats).
func newCopies(cfg *Config, model string, repeat int, now func() time.Time) *copies {
	if repeat < 3 || cfg.AllRepeats {
		return nil
	}
	return &copies{cfg: cfg, model: model, repeat: repeat, now: now, cases: map[caseKey]*firstTwo{}}
}

// CopiesApply reports whether the trials of variant v (nil: the base) of
// case c can be copies: the request sets temperature 0 and, for a case with
// a rubric, so does the judge (defaults.judge.options, 0 unless set). When
// not, why says what to set, for the run to say once.
func CopiesApply(s *suite.Suite, c *suite.Case, v *suite.Variant) (ok bool, why string) {
	t, set := s.VariantOptions(v)["temperature"]
	if !set {
		return false, "the suite sets no temperature (Ollama's default samples); set defaults.options.temperature: 0 to skip repeats that copy the first two"
	}
	if !zero(t) {
		return false, "the temperature is not 0, so repeats may differ"
	}
	if c != nil && c.Expect.Judge != nil {
		if jt, set := s.Defaults.Judge.Options["temperature"]; set && !zero(jt) {
			return false, "the judge's temperature is not 0 (defaults.judge.options)"
		}
	}
	return true, ""
}

func zero(v any) bool {
	switch n := v.(type) {
	case int:
		return n == 0
	case int64:
		return n == 0
	case float64:
		return n == 0
	}
	return false
}

// lookup is the case's entry, made on first use; cp.mu held.
func (cp *copies) lookup(c *suite.Case, v *Variant) *firstTwo {
	k := caseKey{v.Name, c.ID}
	if f := cp.cases[k]; f != nil {
		return f
	}
	f := &firstTwo{state: copyRun}
	cp.cases[k] = f
	if ok, _ := CopiesApply(cp.cfg.Suite, c, v.Suite); !ok {
		return f
	}
	for rep := range 2 {
		key := record.TrialKey{Model: cp.model, CaseID: c.ID, Variant: v.Name, Repeat: rep}
		switch {
		case cp.cfg.Done[key]:
			if f.t[rep] = cp.cfg.Firsts[key]; f.t[rep] == nil {
				return f // ran before, but its answer is not known here
			}
		case !cp.cfg.inShard(key):
			return f // another shard runs it
		}
	}
	f.state = copyPending
	return f
}

// held reports whether j must wait for the first two repeats of its case.
func (cp *copies) held(j job) bool {
	if cp == nil || j.repeat < 2 {
		return false
	}
	cp.mu.Lock()
	defer cp.mu.Unlock()
	return cp.settled(j).state == copyPending
}

// settled is j's case, settled when both its first repeats are known
// (Config.Firsts give them at once); cp.mu held.
func (cp *copies) settled(j job) *firstTwo {
	f := cp.lookup(j.c, j.variant)
	if f.state == copyPending && f.t[0] != nil && f.t[1] != nil {
		cp.settle(f)
	}
	return f
}

// copyOf is the trial of j recorded as a copy of its case's repeat 0, when
// its case's first two repeats agreed; nil when j must run.
func (cp *copies) copyOf(j job) *record.Trial {
	if cp == nil || j.repeat < 2 {
		return nil
	}
	cp.mu.Lock()
	defer cp.mu.Unlock()
	f := cp.settled(j)
	if f.state != copyDone {
		return nil
	}
	seed0, _ := cp.cfg.Suite.Defaults.Seed()
	return f.src.Copy(j.repeat, seed0+int64(j.repeat), cp.now())
}

// ended takes the trial of j just written, and settles its case once its
// first two repeats have ended.
func (cp *copies) ended(j job, t *record.Trial) {
	if cp == nil || j.repeat >= 2 {
		return
	}
	cp.mu.Lock()
	defer cp.mu.Unlock()
	f := cp.lookup(j.c, j.variant)
	if f.state != copyPending {
		return
	}
	f.t[j.repeat] = t
	if f.t[0] != nil && f.t[1] != nil {
		cp.settle(f)
	}
}

// settle decides a pending case whose first two repeats are known: copies
// keep repeat 0, the source of every copy, until the run ends (one trial a
// case that copies); cp.mu held.
func (cp *copies) settle(f *firstTwo) {
	src, other := f.t[0], f.t[1]
	f.t = [2]*record.Trial{}
	if !sameAnswer(src, other) {
		f.state = copyRun
		return
	}
	f.state, f.src = copyDone, src
}

// sameAnswer reports whether two trials answered alike: neither an
// infrastructure error, the same outcome and judged verdict, the same tool
// calls in order with arguments equal as JSON values, the same answer.
func sameAnswer(a, b *record.Trial) bool {
	if a.Score.Outcome == record.OutcomeInfraError || b.Score.Outcome == record.OutcomeInfraError {
		return false
	}
	return bytes.Equal(fingerprint(a), fingerprint(b))
}

// fingerprint is a hash of what a trial answered (see sameAnswer).
func fingerprint(t *record.Trial) []byte {
	h := sha256.New()
	enc := json.NewEncoder(h)
	verdict := ""
	if t.Judged != nil {
		verdict = t.Judged.Verdict
	}
	enc.Encode([]string{t.Score.Outcome, verdict})
	if tr := t.Transcript; tr != nil {
		for _, c := range tr.ToolCalls() {
			var args any
			if json.Unmarshal(c.Arguments, &args) != nil {
				args = string(c.Arguments)
			}
			// Encoding sorts map keys: arguments equal as values hash alike.
			enc.Encode([]any{c.Name, args})
		}
		enc.Encode(tr.Answer)
	}
	return h.Sum(nil)
}
