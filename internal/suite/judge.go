package suite

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// MaxJudgeRepeat is the largest defaults.judge.repeat (and --judge-repeat):
// more judgements of one answer than this measure the judge, not the model,
// at the cost of a run.
const MaxJudgeRepeat = 25

// Rubric is a case's answer: {judge: TEXT}: what a judge model checks the
// final answer against, with the question and the tool results the model
// saw.
type Rubric struct {
	Text string
	// Pos is where the rubric is written.
	Pos Pos
}

// JudgeDefaults is defaults.judge: the judge model of the suite's rubrics.
// Zero values are unset (run's --judge-model and --judge-repeat may set
// them).
type JudgeDefaults struct {
	// Model is the judge model; "" when unset.
	Model string
	// Pos is where defaults.judge is written; zero when it is not.
	Pos Pos
	// Options are the judge requests' Ollama options, read as
	// defaults.options are; temperature is 0 unless they say otherwise,
	// and seed is the base seed of the judgements.
	Options map[string]any
	// Repeat is how many times each answer is judged (distinct seeds, the
	// verdict their majority); 0 when unset: once.
	Repeat int
}

// Rubrics counts the cases with a rubric.
func (s *Suite) Rubrics() int {
	n := 0
	for i := range s.Cases {
		if s.Cases[i].Expect.Judge != nil {
			n++
		}
	}
	return n
}

// CheckJudge refuses a suite whose cases have rubrics but no judge model
// (neither defaults.judge.model nor --judge-model set one), naming where
// each rubric is written and what to do.
func (s *Suite) CheckJudge() error {
	if s.Defaults.Judge.Model != "" {
		return nil
	}
	var errs Errors
	for i := range s.Cases {
		c := &s.Cases[i]
		if c.Expect.Judge == nil {
			continue
		}
		errs = append(errs, &Error{Pos: c.Expect.Judge.Pos, Field: fmt.Sprintf("cases[%d].expect.answer.judge", i),
			Msg: "a rubric needs a judge model: set defaults.judge.model in the suite, or give run --judge-model MODEL"})
	}
	if len(errs) == 0 {
		return nil
	}
	return errs
}

// judgeDefaults reads defaults.judge.
func (p *parser) judgeDefaults(n *yaml.Node, path string, d *JudgeDefaults) {
	d.Pos = p.pos(n)
	fs, ok := p.mapping(n, path, "a mapping {model: M, options: {...}, repeat: k}")
	if !ok {
		return
	}
	for _, f := range fs {
		fp, v := join(path, f.key.Value), f.val
		switch f.key.Value {
		case "model":
			d.Model, _ = p.nonEmpty(v, fp)
		case "options":
			d.Options = p.options(v, fp)
		case "repeat":
			if k, ok := p.integer(v, fp); ok {
				if k < 1 || k > MaxJudgeRepeat {
					p.errorf(v, fp, "must be between 1 and %d, not %d (an odd number avoids ties, which fail)", MaxJudgeRepeat, k)
					continue
				}
				d.Repeat = int(k)
			}
		default:
			p.unknownKey(f.key, path, judgeKeys, "")
		}
	}
}
