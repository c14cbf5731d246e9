package rescore

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/toolgrade/toolgrade/internal/cli"
	grader "github.com/toolgrade/toolgrade/internal/judge"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/runs"
	"github.com/toolgrade/toolgrade/internal/suite"
	"github.com/toolgrade/toolgrade/internal/termtext"
)

// verdicts is what became of the judge's verdicts in a rescore, case by
// case, for what it says on stderr and records in run.json.
type verdicts struct {
	rejudged int
	stale    map[string]int // verdicts kept, their rubric changed
	unjudged map[string]int // answers of a case given a rubric, not judged
	dropped  map[string]int // verdicts dropped, their case's rubric gone
}

// rejudger connects the judge of s for --rejudge: s's judge model (or
// --judge-model) on the Ollama of --ollama (else OLLAMA_HOST).
func rejudger(ctx context.Context, spec *Spec, s *suite.Suite) (*grader.Judge, error) {
	if spec.JudgeModel != "" {
		s.Defaults.Judge.Model = spec.JudgeModel
	}
	if s.Rubrics() == 0 {
		return nil, cli.Usagef("rescore: --rejudge: %s has no case with a rubric (answer: {judge: ...}) to judge", s.Path)
	}
	if err := s.CheckJudge(); err != nil {
		return nil, cli.AsUsage(fmt.Errorf("%w\n  (or give rescore --judge-model MODEL)", err))
	}
	conn, err := runs.DialOllama(ctx, spec.Ollama, runs.Timeouts{})
	if err != nil {
		return nil, err
	}
	return runs.NewJudge(ctx, s, conn, 2, spec.JudgeModel != "")
}

// judged settles the verdicts of the trials rescored: judged again with
// jg (nil: offline), or kept, marked stale when the case's rubric changed,
// dropped when it has none. It fails only when ctx ends.
func (j *judge) judged(ctx context.Context, trials []*record.Trial, jg *grader.Judge) (*verdicts, error) {
	v := &verdicts{stale: map[string]int{}, unjudged: map[string]int{}, dropped: map[string]int{}}
	for _, t := range trials {
		if _, ok := j.copied[t.CaseID]; ok {
			continue
		}
		r := j.s.Case(t.CaseID).Expect.Judge
		switch {
		case jg != nil:
			t.Judged = nil
			if r != nil && grader.Answered(t) {
				t.Judged = jg.Judged(ctx, r.Text, t)
				v.rejudged++
			}
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
		case r == nil:
			if t.Judged != nil {
				v.dropped[t.CaseID]++
			}
			t.Judged = nil
		case t.Judged == nil:
			if grader.Answered(t) {
				v.unjudged[t.CaseID]++
			}
		default:
			t.Judged.Stale = t.Judged.Rubric != r.Text
			if t.Judged.Stale {
				v.stale[t.CaseID]++
			}
		}
	}
	return v, nil
}

// say writes what became of the verdicts.
func (v *verdicts) say(w io.Writer, jg *grader.Judge) {
	if jg != nil {
		fmt.Fprintf(w, "toolgrade: judged %s again with %s\n", termtext.Count(v.rejudged, "answer"), jg.Model)
	}
	for _, id := range slices.Sorted(maps.Keys(v.stale)) {
		fmt.Fprintf(w, "toolgrade: case %s: its rubric changed: %s judged against the old one %s stale, left out of the judged rate (rescore --rejudge judges them again)\n",
			id, termtext.Count(v.stale[id], "verdict"), termtext.Plural(v.stale[id], "is", "are"))
	}
	for _, id := range slices.Sorted(maps.Keys(v.unjudged)) {
		fmt.Fprintf(w, "toolgrade: case %s has a new rubric: %s no verdict (rescore --rejudge judges them)\n", id, termtext.Plural(v.unjudged[id], "its answer has", fmt.Sprintf("its %d answers have", v.unjudged[id])))
	}
	for _, id := range slices.Sorted(maps.Keys(v.dropped)) {
		fmt.Fprintf(w, "toolgrade: case %s no longer has a rubric: %s dropped\n", id, termtext.Count(v.dropped[id], "verdict"))
	}
}

// stale counts the stale verdicts.
func (v *verdicts) staleCount() int {
	n := 0
	for _, k := range v.stale {
		n += k
	}
	return n
}
