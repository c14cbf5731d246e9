package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ollama/ollama/api"
	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/mcpclient"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/score"
	"github.com/toolgrade/toolgrade/internal/suite"
)

// UserModel writes a simulated user's messages (a case's user:). convo is
// the conversation so far as the user saw it: the user's and the
// assistant's messages, without the system prompt, the tool calls and the
// tool results; empty for the first message. done ends the conversation
// (the goal is met, or the user gives up): msg is then not sent. An error
// fails the trial as infrastructure, never the model's fault.
type UserModel interface {
	Next(ctx context.Context, convo []api.Message) (msg string, done bool, err error)
}

// UserCoster is a UserModel that also says what its requests took so far;
// the runner records it in the trial's transcript (record.UserModelCost).
type UserCoster interface {
	Cost() record.UserModelCost
}

// TrialServers starts a trial's own instances of the per-trial servers
// (serversfile.Server.PerTrial); *mcpclient.Catalog is the real one.
type TrialServers interface {
	// PerTrial reports whether there is any per-trial server.
	PerTrial() bool
	// StartTrial starts them in a new directory named after name.
	StartTrial(ctx context.Context, name string) (*mcpclient.Trial, error)
}

// errNoUserModel is the error of a run whose suite has a simulated user
// and whose Config.Users is nil.
var errNoUserModel = errors.New("no user model")

// checkScenarios refuses, before anything loads, a run that cannot run
// its scenarios: a simulated user without Config.Users, a scenario under
// NoExecute (its turns and checks rest on its tools running).
func (cfg *Config) checkScenarios() error {
	for i := range cfg.Suite.Cases {
		c := &cfg.Suite.Cases[i]
		if c.User != nil && cfg.Users == nil {
			return fmt.Errorf("%s: cases[%d].user: %w: this toolgrade cannot run a simulated user here", c.User.Pos, i, errNoUserModel)
		}
		if cfg.NoExecute && (len(c.Turns) > 0 || c.User != nil || len(c.Checks) > 0) {
			return fmt.Errorf("%s: case %s is a scenario: its turns and checks rest on its tools running, so it cannot run with --no-execute", c.Pos, c.ID)
		}
	}
	return nil
}

// attempt runs one attempt of trial j: the trial's own per-trial servers
// when there are any (returned, for the caller to close once the trial is
// scored), then the conversation, or for a scenario its setup, turns and
// checks.
func (r *Runner) attempt(ctx context.Context, cfg *Config, loop *bridge.Loop, req bridge.Request, j job, t *record.Trial) (*record.Transcript, *mcpclient.Trial, error) {
	var env *mcpclient.Trial
	// A trial that runs no tool needs no servers of its own.
	if r.Trials != nil && r.Trials.PerTrial() && !req.NoExecute {
		var err error
		env, err = r.Trials.StartTrial(ctx, fmt.Sprintf("%s-%s-%s-r%d", t.Model, t.Variant, t.CaseID, t.Repeat))
		if err != nil {
			f := &record.Failure{Kind: record.FailureSetup, Message: "the per-trial servers: " + err.Error()}
			return &record.Transcript{Model: req.Model, Failure: f}, nil, err
		}
		ctx = mcpclient.WithTrial(ctx, env)
	}
	if !j.c.IsScenario() {
		tr, err := loop.Run(ctx, req)
		return tr, env, err
	}
	var um UserModel
	if j.c.User != nil {
		um = cfg.Users(j.c, t)
	}
	tr, err := r.scenario(ctx, loop, req, j.c, um)
	return tr, env, err
}

// scenario runs scenario c: its setup calls, then each user turn through
// the loop with the whole conversation so far (the next message from the
// case's turns or from um), then its state checks. Rounds are numbered
// over the whole conversation; the error is non-nil exactly when the
// transcript's Failure is set.
func (r *Runner) scenario(ctx context.Context, loop *bridge.Loop, req bridge.Request, c *suite.Case, um UserModel) (*record.Transcript, error) {
	now := r.now()
	start := now()
	tr := &record.Transcript{Model: req.Model, MaxRounds: req.MaxRounds}
	defer func() { tr.Wall = now().Sub(start) }()
	if tr.MaxRounds <= 0 {
		tr.MaxRounds = bridge.DefaultMaxRounds
	}
	state := r.stateTools(loop)
	for i := range c.Setup {
		sc := &c.Setup[i]
		ex := state.Call(ctx, stateName(sc), sc.Args, "")
		tr.Setup = append(tr.Setup, ex)
		if ex.IsError {
			return tr, fail(tr, record.FailureSetup, fmt.Sprintf("setup call %d (%s) failed: %s", i+1, sc.Tool, ex.Result))
		}
	}
	msgs := req.Messages
	user, from, err := firstUser(ctx, c, um, &msgs)
	if err != nil {
		userCost(tr, um)
		return tr, fail(tr, record.FailureUserModel, "the user model: "+err.Error())
	}
	for k := 0; user != ""; k++ {
		treq := req
		treq.Messages = msgs
		ttr, next, err := loop.RunTurn(ctx, treq)
		addTurn(tr, ttr, user, from)
		if err != nil {
			tr.Failure = ttr.Failure
			return tr, err
		}
		msgs = next
		if user, from, err = nextUser(ctx, c, um, k+1, msgs); err != nil {
			userCost(tr, um)
			return tr, fail(tr, record.FailureUserModel, "the user model: "+err.Error())
		}
		if user != "" {
			msgs = append(msgs, api.Message{Role: "user", Content: user})
		}
	}
	userCost(tr, um)
	return tr, r.checks(ctx, state, c, tr)
}

// userCost records in tr what um took, when it says.
func userCost(tr *record.Transcript, um UserModel) {
	if uc, ok := um.(UserCoster); ok {
		c := uc.Cost()
		tr.UserModel = &c
	}
}

// checks runs c's state checks into tr; a check whose call the server
// could not run (a crash, a timeout) fails the trial as infrastructure.
func (r *Runner) checks(ctx context.Context, state bridge.Toolbox, c *suite.Case, tr *record.Transcript) error {
	for i := range c.Checks {
		sc := &c.Checks[i]
		ex := state.Call(ctx, stateName(sc), sc.Args, "")
		tr.Checks = append(tr.Checks, score.Check(ex, sc))
		if ex.InfraError() {
			return fail(tr, record.FailureCheck, fmt.Sprintf("state check %d (%s) could not run: %s", i+1, sc.Tool, ex.Result))
		}
	}
	return nil
}

// firstUser is the first turn's user message, already at the end of msgs
// when the case fixes it, else written by um and appended to msgs.
func firstUser(ctx context.Context, c *suite.Case, um UserModel, msgs *[]api.Message) (string, string, error) {
	if len(c.Turns) > 0 {
		return c.Turns[0].Ask, record.FromCase, nil
	}
	if c.User == nil || c.User.First != "" {
		return lastUser(*msgs), record.FromCase, nil
	}
	msg, done, err := um.Next(ctx, nil)
	if err != nil || done || strings.TrimSpace(msg) == "" {
		return "", "", cmpErr(err, "it wrote no first message")
	}
	*msgs = append(*msgs, api.Message{Role: "user", Content: msg})
	return msg, record.FromUserModel, nil
}

// nextUser is the user message of turn k (from 0), "" when the
// conversation ends: after the case's last turn, when the simulated user
// says it is done, or at its turn limit.
func nextUser(ctx context.Context, c *suite.Case, um UserModel, k int, msgs []api.Message) (string, string, error) {
	if c.User == nil {
		if k < len(c.Turns) {
			return c.Turns[k].Ask, record.FromCase, nil
		}
		return "", "", nil
	}
	if k >= c.User.MaxTurns {
		return "", "", nil
	}
	msg, done, err := um.Next(ctx, userView(msgs))
	if err != nil || done {
		return "", "", err
	}
	if strings.TrimSpace(msg) == "" {
		return "", "", errors.New("it wrote an empty message")
	}
	return msg, record.FromUserModel, nil
}

// userView is the conversation as the simulated user sees it: the user's
// messages and the assistant's answers in words; no system prompt, no tool
// calls, no tool results.
func userView(msgs []api.Message) []api.Message {
	var out []api.Message
	for _, m := range msgs {
		switch {
		case m.Role == "user":
			out = append(out, api.Message{Role: "user", Content: m.Content})
		case m.Role == "assistant" && len(m.ToolCalls) == 0 && m.Content != "":
			out = append(out, api.Message{Role: "assistant", Content: m.Content})
		}
	}
	return out
}

// addTurn appends turn ttr (the user's message user, written by from) to
// the scenario's transcript tr: its rounds numbered on from tr's, its
// answer the scenario's answer so far.
func addTurn(tr, ttr *record.Transcript, user, from string) {
	if len(tr.Turns) == 0 {
		tr.Messages = ttr.Messages
	}
	first := len(tr.Rounds)
	for _, rd := range ttr.Rounds {
		rd.Index = len(tr.Rounds) + 1
		tr.Rounds = append(tr.Rounds, rd)
	}
	tr.Turns = append(tr.Turns, record.Turn{User: user, From: from, FirstRound: first,
		Answer: ttr.Answer, RoundLimitHit: ttr.RoundLimitHit, Wall: ttr.Wall})
	tr.Answer = ttr.Answer
	tr.RoundLimitHit = tr.RoundLimitHit || ttr.RoundLimitHit
	tr.NotExecuted = ttr.NotExecuted
}

// stateTools is where setup and check calls run: Runner.State, else the
// loop's toolbox.
func (r *Runner) stateTools(loop *bridge.Loop) bridge.Toolbox {
	if r.State != nil {
		return r.State
	}
	return loop.Tools
}

// stateName is the name a setup or check call is made under: the exposed
// name Suite.Check resolved, else the name as written.
func stateName(sc *suite.StateCall) string {
	if sc.Exposed != "" {
		return sc.Exposed
	}
	return sc.Tool
}

func lastUser(msgs []api.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" {
			return msgs[i].Content
		}
	}
	return ""
}

// fail sets tr's failure and returns it as an error.
func fail(tr *record.Transcript, kind, msg string) error {
	tr.Failure = &record.Failure{Kind: kind, Message: msg}
	return errors.New(msg)
}

func cmpErr(err error, otherwise string) error {
	if err != nil {
		return err
	}
	return errors.New(otherwise)
}

// closeTrial ends trial t's per-trial servers once it is scored, keeping
// their directory when cfg asks to keep those of trials that did not pass
// (and telling OnKeptDir where it is).
func (r *Runner) closeTrial(cfg *Config, env *mcpclient.Trial, t *record.Trial) {
	keep := cfg.KeepTrialDirs && t.Score.Outcome != record.OutcomePass
	kept, _ := env.Close(keep)
	if kept != "" && r.OnKeptDir != nil {
		r.OnKeptDir(t.Key(), kept)
	}
}

// scoreTrial scores a trial's transcript (see score.Case).
func scoreTrial(tr *record.Transcript, c *suite.Case, opts score.Options) record.Score {
	return score.Case(tr, c, opts)
}
