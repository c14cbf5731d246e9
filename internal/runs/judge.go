package runs

import (
	"context"
	"errors"
	"fmt"

	"github.com/toolgrade/toolgrade/internal/cli"
	"github.com/toolgrade/toolgrade/internal/judge"
	"github.com/toolgrade/toolgrade/internal/llm"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/suite"
)

// NewJudge is the judge of s's rubrics on the Ollama ol, its model checked
// to be pulled there; nil when no case has a rubric. retries is the run's
// (--retries): a failed judgement is retried as a failed trial is; flag
// says the model came from --judge-model, not the suite.
func NewJudge(ctx context.Context, s *suite.Suite, ol *Conn, retries int, flag bool) (*judge.Judge, error) {
	if s.Rubrics() == 0 {
		return nil, nil
	}
	d := &s.Defaults.Judge
	m, err := ol.Models.Find(ctx, d.Model)
	if err != nil {
		var np *llm.NotPulledError
		if errors.As(err, &np) {
			where := "--judge-model"
			if !flag && d.Pos.Line > 0 {
				where = d.Pos.String() + ": defaults.judge.model"
			}
			return nil, cli.AsUsage(fmt.Errorf("%s: the judge model: %w", where, err))
		}
		return nil, AsInfra(fmt.Errorf("the judge model: %w", err))
	}
	return &judge.Judge{Chat: ol.Chat, Model: d.Model, Digest: m.Digest, Options: d.Options, Repeat: d.Repeat, Retries: max(retries, 0)}, nil
}

// RunJudge is what run.json records of j (a run's judge, a rescore's
// --rejudge); nil for no judge.
func RunJudge(j *judge.Judge) *record.RunJudge {
	if j == nil {
		return nil
	}
	return &record.RunJudge{Model: j.Model, Digest: j.Digest, Repeat: max(j.Repeat, 1), Options: j.Options}
}

// judgedTimes says how many times each answer is judged, when more than
// once.
func judgedTimes(k int) string {
	if k <= 1 {
		return ""
	}
	return fmt.Sprintf(", %d times each (the majority decides; a tie fails)", k)
}
