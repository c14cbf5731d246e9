// Package runner runs a suite's cases through the bridge loop against a list
// of models and variants, scores each trial and appends it to the trials
// file as soon as it ends. The models' trials are interleaved when one
// Ollama holds them all, else run in counterbalanced blocks (order.go); the
// repeats of a case that would copy its first two at temperature 0 are
// recorded as copies, not sent (copies.go).
package runner

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/toolgrade/toolgrade/internal/backoff"
	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/llm"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/score"
	"github.com/toolgrade/toolgrade/internal/stats"
	"github.com/toolgrade/toolgrade/internal/suite"
	"github.com/toolgrade/toolgrade/internal/toolbox"
)

// Models checks and loads models; *Ollama is the real one.
type Models interface {
	// Check confirms the model can run tools and says what it is.
	Check(ctx context.Context, model string) (*record.Model, error)
	// Warmup loads the model so its load time is not charged to a trial, and
	// returns the load time Ollama reported.
	// options are the suite's model options (num_ctx among them), so that
	// the model is loaded as its trials will run it and not loaded again
	// by the first trial, and what it occupies is measured at them.
	Warmup(ctx context.Context, model string, keepAlive *api.Duration, options map[string]any) (time.Duration, error)
	// Unload frees the model's memory once its trials are done, so the next
	// model does not load beside it.
	Unload(ctx context.Context, model string) error
	// Ping reports whether Ollama answers at all; the runner pings while it
	// waits for an unreachable Ollama to come back.
	Ping(ctx context.Context) error
}

// ContextLoader is a Models that can say the context length a loaded model
// runs with (*llm.Ollama reads /api/ps). The runner asks it after the
// warm-up when the model's details name no num_ctx.
type ContextLoader interface {
	LoadedContext(ctx context.Context, model string) (int, error)
}

// LoadedReporter is a Models that can say what a loaded model occupies
// (*llm.Ollama reads /api/ps). The runner asks it after the warm-up, for
// the model's cost in run.json, and once every model is warmed up, whether
// they stay loaded together (see Config.Schedule); nil with nil error: not
// listed. Ollama lists weights loaded under another name (the same digest)
// once, under the name that loaded them: digest, when known, finds them.
type LoadedReporter interface {
	Loaded(ctx context.Context, model, digest string) (*record.Loaded, error)
}

// Config is one run: which cases, models, repeats and how many at once.
type Config struct {
	Suite *suite.Suite
	// Models are the models to run, in order, as CheckModels returned them.
	Models []record.Model
	// Repeat is how many times each case runs per model; zero: 1.
	Repeat int
	// Parallel is how many trials of one model run at once; zero: 1. Ollama
	// must allow it (OLLAMA_NUM_PARALLEL), or requests queue there. Models
	// run interleaved share it: Parallel trials of them all at once.
	Parallel int
	// Retries is how many times a trial that hit an infrastructure failure
	// runs again; zero: 2; negative: none.
	Retries int
	// Backoff is the wait before the first retry, doubled for each next one;
	// zero: 500ms.
	Backoff time.Duration
	// Done lists trials already in the trials file (resume): they are skipped.
	Done map[record.TrialKey]bool
	// NoExecute runs every case as if it said execute: false (--no-execute):
	// trials stop at the first response and no tool runs. False leaves it to
	// each case.
	NoExecute bool
	// WaitOllama is how long the run pauses for an Ollama that cannot be
	// reached (every attempt of a trial or warm-up failed to connect) before
	// it stops with *OllamaDownError; the trial that failed so runs again once
	// Ollama answers. Zero: DefaultWaitOllama; negative: no pause, the trial
	// is written as infra_error.
	WaitOllama time.Duration
	// Variants are the versions of the catalog every case runs with, in
	// order; nil: the base alone, with Runner.Tools and Runner.Catalog. Each
	// (model, variant, case, repeat) runs once, with the same seed in every
	// variant.
	Variants []Variant
	// StopEarly, when set, stops repeating a (variant, case) of a model once
	// Wald's test settles its pass rate against the threshold (see
	// stats.SPRT): the test is applied after each repeat, to the trials that
	// were not infra errors, and a settled case is skipped in every later
	// repeat. Nil: every case runs every repeat.
	StopEarly *stats.SPRT
	// Outcomes are the outcomes of the trials in Done (resume), as Evidence
	// gives them, so that StopEarly counts the evidence of an earlier
	// session; nil: none known.
	Outcomes map[record.TrialKey]string
	// Judge says which trials StopEarly counts, as the reports count them:
	// the zero value leaves out truncated trials (see record.JudgeWith).
	Judge record.JudgeOptions
	// Only, when not nil, is the shard this run holds (see package shard):
	// trials not in it are neither run nor counted, and a model with none
	// in it is not loaded. Nil: every trial.
	Only map[record.TrialKey]bool
	// AllRepeats sends every repeat to the model (run --all-repeats). False
	// records the later repeats of a case as copies of repeat 0 (see
	// record.Trial.CopyOf) once its first two repeats agree at temperature
	// 0 (see CopiesApply); a case's later repeats then start only once its
	// first two have ended.
	AllRepeats bool
	// Firsts are the trials of repeats 0 and 1 in Done (resume), so that a
	// case whose first two repeats ran in an earlier session is settled as
	// if they ran in this one; nil: a case with either in Done runs every
	// repeat.
	Firsts map[record.TrialKey]*record.Trial
	// Schedule is how the models' trials are ordered against each other:
	// "" chooses (record.ScheduleInterleaved when one Ollama keeps every
	// model loaded at once, else record.ScheduleABBA); ScheduleBlocks or
	// ScheduleABBA asks for that order. See order.go.
	Schedule string
	// SkippedServers maps the servers that failed to connect to why. The
	// trials of a case that expects a tool only they may have offered
	// (suite.ExpectedCall.Skipped) are not run but recorded as
	// infrastructure errors that say so (record.FailureServerSkipped).
	SkippedServers map[string]string
	// Users gives the simulated user of trial t of a case with user: (see
	// UserModel): t carries the model, repeat and seed, so a trial run again
	// asks the same questions and repeats may differ; nil: such a case is
	// an error when the run starts ("no user model").
	Users func(c *suite.Case, t *record.Trial) UserModel
	// KeepTrialDirs keeps the per-trial directory of each trial that did
	// not pass (run --keep-trial-dirs), telling Runner.OnKeptDir; false
	// removes every one as its trial ends.
	KeepTrialDirs bool
}

// plan is what a model's job feed needs, whatever its hosts: the
// variants to run (the base alone when cfg has none), whether a trial is
// already done or belongs to another shard (either way it is not fed), and
// how many trials the model has in the shard and how many are done. Jobs are
// made as they are fed, never listed, so memory does not grow with the
// number of trials.
func (cfg *Config) plan(model string, repeat int) (variants []Variant, done func(i, rep int, v *Variant) bool, total, skipped int) {
	s := cfg.Suite
	variants = cfg.Variants
	if len(variants) == 0 {
		variants = []Variant{{}}
	}
	key := func(i, rep int, v *Variant) record.TrialKey {
		return record.TrialKey{Model: model, CaseID: s.Cases[i].ID, Variant: v.Name, Repeat: rep}
	}
	done = func(i, rep int, v *Variant) bool {
		k := key(i, rep, v)
		return cfg.Done[k] || !cfg.inShard(k)
	}
	for rep := range repeat {
		for vi := range variants {
			for i := range s.Cases {
				k := key(i, rep, &variants[vi])
				if !cfg.inShard(k) {
					continue
				}
				total++
				if cfg.Done[k] {
					skipped++
				}
			}
		}
	}
	return variants, done, total, skipped
}

// inShard reports whether cfg's shard holds the trial k.
func (cfg *Config) inShard(k record.TrialKey) bool {
	return cfg.Only == nil || cfg.Only[k]
}

// hasTrials reports whether any trial of model is in cfg's shard.
func (cfg *Config) hasTrials(model string) bool {
	if cfg.Only == nil {
		return true
	}
	for k := range cfg.Only {
		if k.Model == model {
			return true
		}
	}
	return false
}

// Variant is one version of the tools (and system prompt) that every case of
// a run is sent with: a suite variant, or the base (see toolbox.Variant,
// where variants are made).
type Variant = toolbox.Variant

// CaseTools are the tools one case of a variant runs with, in place of the
// variant's: the case's own catalog with the variant's transformations.
type CaseTools = toolbox.Offer

// Progress is what the runner reports after each trial.
type Progress struct {
	Model       string
	Done, Total int // trials of this model, including those resumed
	Pass        int // passes so far among the trials this run ran
	Scored      int // trials this run ran that the rates count (see Config.Judge)
	Infra       int
	Elapsed     time.Duration // since this model's trials began
	RunThisTime int           // trials this run ran for this model
	// Saved counts the trials of this model that --stop-early skipped
	// because their case was settled; Total no longer counts them.
	Saved int
	// Copies counts the trials of RunThisTime recorded as copies of their
	// case's repeat 0 instead of being sent to the model (see
	// Config.AllRepeats).
	Copies int
}

// add counts a trial this run just wrote, as the rates count it: an
// infrastructure error apart, a truncated trial that judge keeps out in
// neither Scored nor Pass.
func (p *Progress) add(t *record.Trial, judge record.JudgeOptions, elapsed time.Duration) {
	p.Done++
	p.RunThisTime++
	p.Elapsed = elapsed
	if t.IsCopy() {
		p.Copies++
	}
	j := record.JudgeWith(t, judge)
	switch {
	case j.Infra:
		p.Infra++
	case j.Counted():
		p.Scored++
		if j.Pass.OK {
			p.Pass++
		}
	}
}

// Runner runs trials. Chat, Tools, Models and Out are required.
type Runner struct {
	Chat   bridge.Chatter
	Tools  bridge.Toolbox
	Models Models
	Out    *record.Writer
	// OnProgress, when set, is called after each trial (from one goroutine at
	// a time).
	OnProgress func(Progress)
	// OnModel, when set, is called once a model is checked and warmed up.
	OnModel func(record.Model)
	// Now is the clock; nil: time.Now.
	Now func() time.Time
	// Sleep waits between retries and pings; nil: a timer that honours ctx.
	Sleep func(ctx context.Context, d time.Duration) error
	// Catalog checks the calls of trials run without execution (see
	// score.Options.Tools); nil: Tools, when it is one.
	Catalog suite.Catalog
	// OnWait, when set, is called while the run waits for an unreachable
	// Ollama, before each pause between pings, with the time left.
	OnWait func(left time.Duration)
	// Hosts, when set, are several Ollamas to spread trials over (see
	// schedule.go); Chat and Models are then unused. Nil: the one Ollama
	// of Chat and Models, run as a pool of one host.
	Hosts []Host
	// OnHost, when set, is told what the pool does with a host: a model
	// missing there, a host paused or given up.
	OnHost func(msg string)
	// OnSchedule, when set, is told how the models' trials are ordered
	// (a record.Schedule* value, "" with one model) and why, once chosen.
	OnSchedule func(schedule, why string)
	// Grader, when set, grades each trial once it is scored, before it is
	// written (the judge of answers with a rubric: see package judge).
	Grader Grader
	// State is the toolbox a scenario's setup and check calls run on: the
	// servers' catalog without the tool policy, since the suite's author
	// wrote those calls. Nil: the trial's own toolbox (Tools), policy and
	// all.
	State bridge.Toolbox
	// Trials, when set and holding per-trial servers, starts each trial's
	// own instances of them, which its conversation, setup and checks
	// reach (see mcpclient.WithTrial); they end with the trial. Nil: every
	// trial shares the servers of Tools.
	Trials TrialServers
	// OnKeptDir, when set, is told of each per-trial directory kept
	// (Config.KeepTrialDirs) and the trial it belongs to; it may be called
	// from several goroutines at once.
	OnKeptDir func(key record.TrialKey, dir string)
}

// Grader adds to a scored trial what a grader beyond the scorer says of it
// (*judge.Judge: the judge model's verdict on the answer). It fails only
// when ctx ends, and the trial is then dropped, as one cut short is.
type Grader interface {
	Grade(ctx context.Context, c *suite.Case, t *record.Trial) error
}

// ModelGrader is a Grader that asks a model of the run's one Ollama
// (*judge.Judge: the judge model). That model takes memory on the host
// beside the models run, so whether they stay loaded together is asked
// with it loaded too.
type ModelGrader interface {
	Grader
	// GraderModel is the model graded with, its digest ("" when unknown)
	// and the options it is asked with.
	GraderModel() (name, digest string, options map[string]any)
}

// job is one trial to run.
type job struct {
	lane    *lane
	c       *suite.Case
	repeat  int
	variant *Variant
	moves   int // times a pool moved it off an unreachable host
}

// CheckModels confirms that every model can run tools, before any is
// loaded: a typo in the last model name must not surface after an hour of
// inference on the first.
func (r *Runner) CheckModels(ctx context.Context, names []string) ([]record.Model, error) {
	var models []record.Model
	for _, name := range names {
		m, err := r.Models.Check(ctx, name)
		if err != nil {
			return nil, err
		}
		models = append(models, *m)
	}
	return models, nil
}

// load warms info's model up on the hosts that serve it and returns those
// that loaded it, with info's load time and what it occupies set (see
// measureLoaded) and, when its details name no num_ctx, the context it was
// loaded with.
func (r *Runner) load(ctx context.Context, cfg Config, info *record.Model, ka *api.Duration) ([]*hostRun, error) {
	hosts, load, err := r.warmupHosts(ctx, cfg, info, r.hostRuns(cfg, info), ka)
	if err != nil {
		var down *OllamaDownError
		if errors.As(err, &down) {
			return nil, err
		}
		return nil, fmt.Errorf("loading %s: %w", info.Name, err)
	}
	info.Load = load
	measureLoaded(info, hosts)
	if l := info.Cost; info.NumCtx == 0 && l != nil && l.Loaded != nil && l.Loaded.ContextLength > 0 {
		info.NumCtx = l.Loaded.ContextLength
	}
	if info.NumCtx == 0 {
		// The model sets no num_ctx: the context it was loaded with is
		// what a prompt is cut at. Best effort; 0 leaves truncation
		// undetected, as before.
		if lc, ok := hosts[0].Models.(ContextLoader); ok {
			if n, err := lc.LoadedContext(ctx, info.Name); err == nil {
				info.NumCtx = n
			}
		}
	}
	return hosts, nil
}

// trial runs one trial on h, retrying infrastructure failures and waiting
// for an unreachable Ollama; nil when ctx ended, and an error (the trial
// dropped) when the wait failed.
//
// On a host of a pool (h.pool) an unreachable host does not wait here: the
// trial comes back with errMoved, for another host to run.
func (r *Runner) trial(ctx context.Context, cfg Config, h *hostRun, info *record.Model, base bridge.Request, j job) (*record.Trial, error) {
	s, p := cfg.Suite, h.p
	v := j.variant
	req, seed := request(base, s, j.c, j.repeat, v.Suite)
	req.NoExecute = cfg.NoExecute || j.c.NoExecute
	t := &record.Trial{
		Model: info.Name, CaseID: j.c.ID, Variant: v.Name, Repeat: j.repeat, Seed: seed, Tags: j.c.Tags,
		Start: r.now()(),
	}
	tools, catalog := r.Tools, r.Catalog
	if v.Tools != nil {
		tools, catalog = v.Tools, nil
	}
	if v.Catalog != nil {
		catalog = v.Catalog
	}
	if ct, ok := v.Cases[j.c.ID]; ok {
		tools, catalog = ct.Tools, ct.Catalog
	}
	t.Host = h.Name
	loop := &bridge.Loop{Chat: h.Chat, Tools: tools, Now: r.Now}
	opts := score.OptionsFor(&s.Defaults)
	opts.Tools = catalog
	if c, ok := tools.(suite.Catalog); ok && opts.Tools == nil {
		opts.Tools = c
	}
	// The request's own options decide, so whatever set num_ctx (the
	// suite, -o, a variant) is what a prompt is judged against.
	t.NumCtx = llm.NumCtx(req.Options, info.NumCtx)
	opts.NumCtx = t.NumCtx
	if f := skippedFailure(&j.c.Expect, cfg.SkippedServers); f != nil {
		t.Transcript = &record.Transcript{Model: info.Name, Failure: f}
		t.Score = scoreTrial(t.Transcript, j.c, opts)
		return t, nil
	}
	retries, first := retryPolicy(cfg)
	tries, waits := 0, 0
	for attempt := 1; ; attempt++ {
		// A scenario starts again from its setup, in fresh servers.
		tr, env, err := r.attempt(ctx, &cfg, loop, req, j, t)
		if ctx.Err() != nil {
			env.Close(false)
			return nil, nil
		}
		tries++
		t.Attempts = attempt
		t.Transcript = tr
		t.Score = scoreTrial(tr, j.c, opts)
		if t.Score.Outcome != record.OutcomeInfraError {
			r.closeTrial(&cfg, env, t)
			return t, nil
		}
		env.Close(false)
		if tries > retries {
			// Every attempt failed. When Ollama could not even be reached,
			// that says nothing about the model: wait for it, then run the
			// trial again rather than record noise.
			if h.pool && p.enabled() && Unreachable(err) && j.moves < maxWaits {
				return t, errMoved
			}
			if !p.enabled() || !Unreachable(err) || waits >= maxWaits {
				return t, nil
			}
			waits++
			if err := p.await(ctx); err != nil {
				if ctx.Err() != nil {
					return nil, nil
				}
				return nil, err
			}
			tries = 0
			continue
		}
		if err := r.sleep(ctx, backoff.Before(tries, first)); err != nil {
			return nil, nil
		}
	}
}

// request completes base into one trial's request: the case's messages (with
// the variant's system prompt, when v has one) and round limit, the suite's
// options with the variant's over them (see suite.VariantOptions) and seed =
// base seed + repeat, the same in every variant, and the variant's think
// when it sets one.
func request(base bridge.Request, s *suite.Suite, c *suite.Case, repeat int, v *suite.Variant) (bridge.Request, int64) {
	opts := s.VariantOptions(v)
	if opts == nil {
		opts = map[string]any{}
	}
	seed0, _ := s.Defaults.Seed()
	seed := seed0 + int64(repeat)
	opts["seed"] = seed
	if v != nil && v.Think != "" {
		// The suite parser checked the value.
		if think, err := bridge.ParseThink(v.Think); err == nil {
			base.Think = think
		}
	}
	conv := s.VariantConversation(c, v)
	msgs := make([]api.Message, len(conv))
	for i, m := range conv {
		msgs[i] = api.Message{Role: m.Role, Content: m.Content}
	}
	base.Messages, base.Options, base.MaxRounds = msgs, opts, c.MaxRounds
	return base, seed
}

func keepAlive(s *suite.Suite) *api.Duration {
	if d := s.Defaults.KeepAlive; d != nil {
		return &api.Duration{Duration: *d}
	}
	return nil
}

func (r *Runner) now() func() time.Time {
	if r.Now != nil {
		return r.Now
	}
	return time.Now
}

func (r *Runner) sleep(ctx context.Context, d time.Duration) error {
	if r.Sleep != nil {
		return r.Sleep(ctx, d)
	}
	return backoff.Sleep(ctx, d)
}
