package runs

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/runner"
	"github.com/toolgrade/toolgrade/internal/stats"
	"github.com/toolgrade/toolgrade/internal/store"
	"github.com/toolgrade/toolgrade/internal/termtext"
)

// create writes run.json: a fresh run's whole, or what this session of a
// resumed run changes; then it says what is about to run.
func (r *session) create(ctx context.Context) error {
	sp := r.spec
	meta := &Meta{
		Suite: r.s, Servers: r.cat, Harness: r.o.Harness,
		Ollama: record.RunOllama{URL: r.ol.url(), Version: r.ol.first.Version},
		Repeat: r.repeat, Parallel: r.parallel, Models: r.ol.models,
		Catalogs: r.vs.Catalogs, Overrides: r.overrides, Shard: r.shard,
		NoExecute: deref(sp.NoExecute, false), KeepTruncated: sp.KeepTruncated,
		JUnit: sp.JUnit, Judge: RunJudge(r.judge), AllRepeats: sp.AllRepeats,
	}
	if deref(sp.StopEarly, false) {
		rule := stats.SPRT{Threshold: sp.threshold()}.Filled()
		meta.StopEarly = &rule
	}
	if r.w == nil {
		meta.Commit = SuiteCommit(ctx, r.s.Path, os.Getenv)
		w, err := store.Create(r.dir, meta.New())
		if err != nil {
			return DirError(r.dir, err)
		}
		r.w = w
	} else if err := r.w.Update(meta.Session); err != nil {
		return err
	}
	shape := termtext.Count(len(r.s.Cases), "case") + " × " + termtext.Count(len(r.models), "model")
	if n := len(r.vs.Variants); n > 1 {
		shape += " × " + termtext.Count(n, "variant")
	}
	if !r.shard.Whole() {
		shape = fmt.Sprintf("shard %s (%s) of %s", r.shard, termtext.Count(len(r.only), "trial"), shape)
	}
	r.announce(shape)
	return nil
}

// announce says what the session is about to run: a fresh run's shape, or
// how much of a resumed run ran before and what remains.
func (r *session) announce(shape string) {
	if r.old == nil {
		fmt.Fprintf(r.stderr, "toolgrade: running %s × %s into %s\n", shape, termtext.Count(r.repeat, "repeat"), r.dir)
		return
	}
	keys := matrix(r.s, r.ol.models, r.vs.Variants, r.repeat).Keys()
	total, before := 0, 0
	for _, k := range keys {
		if r.only == nil || r.only[k] {
			total++
			if r.done[k] {
				before++
			}
		}
	}
	if before == total {
		fmt.Fprintf(r.stderr, "toolgrade: %s: all %s of %s × %s already ran; nothing to run (its reports are written again)\n", r.dir, termtext.Count(total, "trial"), shape, termtext.Count(r.repeat, "repeat"))
		return
	}
	fmt.Fprintf(r.stderr, "toolgrade: resuming %s: %d of the %s of %s × %s ran before; %d to run\n", r.dir, before, termtext.Count(total, "trial"), shape, termtext.Count(r.repeat, "repeat"), total-before)
}

// warn tunes the collector for the run and says what in the suite deserves
// a look before it runs.
func (r *session) warn() {
	runner.TuneGC()
	for _, g := range r.policy.Unmatched(toolInfos(r.cat)) {
		fmt.Fprintf(r.stderr, "toolgrade: warning: %s: tool pattern %q matches no tool\n", r.s.Path, g)
	}
	if j := r.judge; j != nil {
		fmt.Fprintf(r.stderr, "toolgrade: the answers of %s with a rubric are judged by %s%s\n", termtext.Count(r.s.Rubrics(), "case"), j.Model, judgedTimes(j.Repeat))
	}
	if n := r.s.AwaitingReview(); n > 0 {
		fmt.Fprintf(r.stderr, "toolgrade: warning: %s: %d of %s await review (review: true): their expectations are drafts no one has confirmed\n", r.s.Path, n, termtext.Count(len(r.s.Cases), "case"))
	}
}

// config is the runner's Config for this session: with the stopping rule,
// the evidence of the earlier sessions counts, so a resume stops the cases
// they settled.
func (r *session) config() (runner.Config, error) {
	run := r.w.Run()
	judge := record.JudgeOptions{KeepTruncated: run.KeepTruncated}
	cfg := runner.Config{
		Suite: r.s, Models: r.ol.models, Repeat: r.repeat, Parallel: r.parallel, Retries: r.spec.Retries,
		Done: r.done, WaitOllama: r.spec.WaitOllama, NoExecute: run.NoExecute, Variants: r.vs.Variants,
		Only: r.only, Judge: judge, SkippedServers: map[string]string{},
		AllRepeats: run.AllRepeats, KeepTrialDirs: r.spec.KeepTrialDirs, Users: r.users,
	}
	for _, sk := range run.SkippedServers {
		cfg.SkippedServers[sk.Name] = sk.Error
	}
	if cfg.Retries == 0 {
		cfg.Retries = -1 // the runner's zero would mean its default
	}
	if r.spec.FinalInfra || cfg.WaitOllama <= 0 {
		cfg.WaitOllama = -1 // the runner's zero would mean its default
	}
	se := run.StopEarly
	if se != nil {
		cfg.StopEarly = &stats.SPRT{Threshold: se.Threshold, Delta: se.Delta, Alpha: se.Alpha, Beta: se.Beta}
		cfg.Outcomes = map[record.TrialKey]string{}
	}
	copies := !cfg.AllRepeats && r.repeat > 2
	if copies {
		cfg.Firsts = map[record.TrialKey]*record.Trial{}
	}
	if len(r.done) == 0 || (se == nil && !copies) {
		return cfg, nil
	}
	// What earlier sessions recorded: the evidence --stop-early counts, and
	// the first two repeats of each case, which settle its copies.
	_, err := store.ReadTrials(r.dir, func(t *record.Trial) {
		if se != nil {
			cfg.Outcomes[t.Key()] = runner.Evidence(t, judge)
		}
		if copies && t.Repeat < 2 && r.done[t.Key()] {
			cfg.Firsts[t.Key()] = t
		}
	})
	return cfg, err
}

// execute runs the trials of cfg, with progress on stderr, and says how the
// session ended.
func (r *session) execute(ctx context.Context, cfg runner.Config) *Ending {
	var prog Progress = noProgress{}
	if r.o.Progress != nil {
		prog = r.o.Progress
	}
	run := r.ol.runner
	run.Tools, run.Catalog, run.Out = r.policy, r.cat, r.w.Trials()
	// A scenario's setup and checks are the author's calls, not the
	// model's: they run on the servers without the policy.
	run.State, run.Trials = r.cat, r.cat
	kept := &keptDirs{}
	run.OnKeptDir = kept.add
	defer kept.say(r.stderr)
	if r.judge != nil {
		run.Grader = r.judge
	}
	saved := map[string]int{} // per model, this session
	last := map[string]runner.Progress{}
	run.OnProgress = func(p runner.Progress) {
		saved[p.Model] = p.Saved
		last[p.Model] = p
		prog.Update(p)
	}
	run.OnSchedule = func(schedule, why string) { r.scheduled(schedule, why) }
	run.OnWait = func(left time.Duration) {
		fmt.Fprintf(r.stderr, "toolgrade: Ollama at %s unreachable; waiting (%s left)...\n", r.ol.first.Base, termtext.Duration(left.Round(time.Second)))
	}
	run.OnModel = func(m record.Model) {
		if err := r.w.AddModels(m); err != nil {
			fmt.Fprintf(r.stderr, "toolgrade: warning: updating %s: %v\n", record.RunFile, err)
		}
	}
	if !cfg.AllRepeats && cfg.Repeat > 2 {
		if ok, why := runner.CopiesApply(r.s, nil, nil); !ok {
			fmt.Fprintf(r.stderr, "toolgrade: every repeat is sent to the model: %s\n", why)
		}
	}
	ran, err := run.Run(ctx, cfg)
	prog.Finish()
	e := &Ending{Err: err, End: time.Now(), Models: ran, Restarts: r.cat.Restarts()}
	for _, n := range saved {
		e.Saved += n
	}
	copies, recorded := 0, 0
	for _, p := range last {
		copies, recorded = copies+p.Copies, recorded+p.RunThisTime
	}
	if copies > 0 {
		fmt.Fprintf(r.stderr, "toolgrade: skipped %d of %d trials: their cases' first two repeats agreed at temperature 0 (copies); --all-repeats runs them\n", copies, recorded)
	}
	return e
}

// scheduled records in run.json how the models' trials are ordered, and
// says so. A resume that orders them otherwise keeps the weaker of the two
// (blocks, then abba, then interleaved): the latency of the whole run rests
// on it.
func (r *session) scheduled(schedule, why string) {
	if schedule == "" {
		return
	}
	say := map[string]string{
		record.ScheduleInterleaved: "the models' trials are interleaved case by case",
		record.ScheduleABBA:        "the models run in counterbalanced blocks (A B B A over halves of the cases)",
		record.ScheduleBlocks:      "the models run one after another: their latency may differ with the machine's load, not theirs",
	}[schedule]
	fmt.Fprintf(r.stderr, "toolgrade: %s: %s\n", say, why)
	weak := map[string]int{record.ScheduleInterleaved: 1, record.ScheduleABBA: 2, record.ScheduleBlocks: 3}
	err := r.w.Update(func(run *record.Run) {
		if run.Schedule == "" || weak[schedule] > weak[run.Schedule] {
			run.Schedule = schedule
		}
	})
	if err != nil {
		fmt.Fprintf(r.stderr, "toolgrade: warning: updating %s: %v\n", record.RunFile, err)
	}
}
