package runs

import (
	"context"
	"errors"
	"fmt"

	"github.com/toolgrade/toolgrade/internal/cli"
	"github.com/toolgrade/toolgrade/internal/llm"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/runner"
	"github.com/toolgrade/toolgrade/internal/simuser"
	"github.com/toolgrade/toolgrade/internal/suite"
)

// UserModels gives the simulated users of s's scenarios (a case's user:)
// on the Ollama ol, each user model checked to be pulled there first; nil
// when no case has a simulated user. A trial's user asks its model with
// the suite's temperature and num_ctx and a seed of its own
// (simuser.TrialSeed), so a trial run again asks the same questions.
func UserModels(ctx context.Context, s *suite.Suite, ol *Conn) (func(*suite.Case, *record.Trial) runner.UserModel, error) {
	checked := map[string]bool{}
	for i := range s.Cases {
		u := s.Cases[i].User
		if u == nil || checked[u.Model] {
			continue
		}
		if _, err := ol.Models.Find(ctx, u.Model); err != nil {
			var np *llm.NotPulledError
			if errors.As(err, &np) {
				return nil, cli.AsUsage(fmt.Errorf("%s: the user model of case %s: %w", u.Pos, s.Cases[i].ID, err))
			}
			return nil, AsInfra(fmt.Errorf("the user model %s: %w", u.Model, err))
		}
		checked[u.Model] = true
	}
	if len(checked) == 0 {
		return nil, nil
	}
	seed0, _ := s.Defaults.Seed()
	return func(c *suite.Case, t *record.Trial) runner.UserModel {
		opts := map[string]any{"seed": simuser.TrialSeed(seed0, c.ID, t.Repeat)}
		for _, k := range []string{"temperature", "num_ctx"} {
			if v, ok := s.Defaults.Options[k]; ok {
				opts[k] = v
			}
		}
		u := c.User
		su := &simulatedUser{cost: record.UserModelCost{Model: u.Model}}
		su.User = simuser.User{Chat: ol.Chat, Model: u.Model, Goal: u.Goal, Persona: u.Persona, First: u.First, Options: opts, OnTurn: su.add}
		return su
	}, nil
}

// simulatedUser is one trial's simulated user, counting what its model
// took (runner.UserCoster). A trial's turns run one after another, so it
// needs no lock.
type simulatedUser struct {
	simuser.User
	cost record.UserModelCost
}

func (s *simulatedUser) add(t simuser.Turn) {
	s.cost.Requests++
	s.cost.PromptTokens += t.PromptTokens
	s.cost.EvalTokens += t.EvalTokens
	s.cost.Wall += t.Latency
}

// Cost is what the user model took so far.
func (s *simulatedUser) Cost() record.UserModelCost { return s.cost }
