package runner

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"sync"

	"github.com/ollama/ollama/api"
	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/suite"
)

// The order of the models' trials. A model's latency is what the machine
// gave it while its trials ran; run as one block after another, whatever
// else the machine did then (another job, a warm cache, a hot CPU) is
// charged to one model. So when one Ollama keeps every model loaded at
// once, their trials are interleaved case by case (record.ScheduleInterleaved),
// the model going first turning with each case. When it cannot (loading
// one unloads another), or the trials are spread over a pool of Ollamas,
// each model runs in two blocks: the first half of the cases in model
// order, the second half in reverse (A B B A: record.ScheduleABBA), so
// that every model has as much early time as late.

// Run runs every trial of cfg that is not already done, and returns the
// models with their warm-up load times and what they occupied. It stops
// when ctx ends; the trials in flight are then dropped, not written.
func (r *Runner) Run(ctx context.Context, cfg Config) ([]record.Model, error) {
	if err := cfg.checkScenarios(); err != nil {
		return nil, err
	}
	repeat := max(cfg.Repeat, 1)
	infos := append([]record.Model(nil), cfg.Models...)
	think, err := bridge.ParseThink(cfg.Suite.Defaults.Think)
	if err != nil {
		return nil, err
	}
	o := &order{r: r, cfg: cfg, repeat: repeat, ka: keepAlive(cfg.Suite), loaded: map[*lane]bool{}}
	for i := range infos {
		if !cfg.hasTrials(infos[i].Name) {
			// Another shard runs this model: loading it here would only
			// cost the time --shard-by model saves.
			continue
		}
		base := bridge.Request{Model: infos[i].Name, Think: think, KeepAlive: o.ka}
		o.lanes = append(o.lanes, r.newLane(&o.cfg, &infos[i], base, repeat, &o.progress))
	}
	return infos, o.run(ctx)
}

// order runs the lanes of one Run in blocks or interleaved.
type order struct {
	r      *Runner
	cfg    Config
	repeat int
	ka     *api.Duration
	lanes  []*lane
	loaded map[*lane]bool // lanes loaded once already (OnModel told)
	// progress is held by the lanes' tallies while they report.
	progress sync.Mutex
}

func (o *order) run(ctx context.Context) error {
	var busy []*lane
	for _, l := range o.lanes {
		if !l.idle {
			busy = append(busy, l)
			continue
		}
		// Every trial ran before: loaded only to measure it again.
		if err := o.load(ctx, l); err != nil {
			return err
		}
		o.unload(ctx, l)
	}
	all := make([]int, len(o.cfg.Suite.Cases))
	for i := range all {
		all[i] = i
	}
	switch {
	case len(busy) < 2:
		o.told("", "")
		return o.blocks(ctx, busy, all)
	case o.cfg.Schedule == record.ScheduleBlocks:
		o.told(record.ScheduleBlocks, "asked for")
		return o.blocks(ctx, busy, all)
	case o.cfg.Schedule == record.ScheduleABBA:
		return o.abba(ctx, busy, all, "asked for")
	case len(o.r.Hosts) > 0:
		return o.abba(ctx, busy, all, "the trials are spread over several Ollama hosts")
	}
	together, why, err := o.together(ctx, busy)
	if err != nil {
		return err
	}
	if !together {
		return o.abba(ctx, busy, all, why)
	}
	o.told(record.ScheduleInterleaved, fmt.Sprintf("%s stay loaded together on one Ollama", names(busy)))
	return o.r.runLanes(ctx, o.cfg, busy, all, o.repeat)
}

// together loads every lane on the one Ollama and reports whether /api/ps
// still lists them all (by name, or by digest for the same weights under
// another name); why says what kept them apart.
func (o *order) together(ctx context.Context, lanes []*lane) (bool, string, error) {
	for _, l := range lanes {
		if err := o.load(ctx, l); err != nil {
			return false, "", err
		}
	}
	helpers, err := o.loadHelpers(ctx, lanes)
	if err != nil {
		return false, "", err
	}
	lr, ok := o.r.Models.(LoadedReporter)
	if !ok {
		return false, "this Ollama cannot say which models it keeps loaded", nil
	}
	var all []held
	for _, l := range lanes {
		all = append(all, held{l.info.Name, l.info.Digest, l.info.Name})
	}
	all = append(all, helpers...)
	var gone []string
	for _, h := range all {
		got, err := lr.Loaded(ctx, h.name, h.digest)
		if err != nil {
			return false, fmt.Sprintf("asking which models stay loaded failed: %v", err), nil
		}
		if got == nil {
			gone = append(gone, h.label)
		}
	}
	if len(gone) > 0 {
		why := fmt.Sprintf("Ollama unloaded %s to load the others (it holds fewer at once: OLLAMA_MAX_LOADED_MODELS, or memory)", strings.Join(gone, ", "))
		for _, h := range helpers {
			why += fmt.Sprintf("; %s answers on the same Ollama and counts among them", h.label)
		}
		return false, why, nil
	}
	return true, "", nil
}

// held is a model the check of together must find loaded: its name and
// digest, and how the reason names it.
type held struct{ name, digest, label string }

// loadHelpers loads, beside the lanes' models, the models that answer on
// the same Ollama while they run and are none of them: the grader's (the
// judge model) and the simulated users' (a case's user.model), so they
// must fit there with them. Nil when there is none.
func (o *order) loadHelpers(ctx context.Context, lanes []*lane) ([]held, error) {
	run := map[string]bool{}
	for _, l := range lanes {
		run[l.info.Name] = true
	}
	var out []held
	add := func(name, digest, role string, options map[string]any) error {
		if name == "" || run[name] {
			return nil // none, or one of the models run: loaded already
		}
		run[name] = true
		if _, err := o.r.Models.Warmup(ctx, name, o.ka, options); err != nil {
			return fmt.Errorf("loading %s %s: %w", role, name, err)
		}
		out = append(out, held{name, digest, role + " " + name})
		return nil
	}
	if mg, ok := o.r.Grader.(ModelGrader); ok {
		name, digest, options := mg.GraderModel()
		if err := add(name, digest, "the judge model", options); err != nil {
			return nil, err
		}
	}
	if o.cfg.Users != nil {
		for i := range o.cfg.Suite.Cases {
			if u := o.cfg.Suite.Cases[i].User; u != nil {
				if err := add(u.Model, "", "the user model", loadOptions(o.cfg.Suite)); err != nil {
					return nil, err
				}
			}
		}
	}
	return out, nil
}

// blocks runs each lane over cases, one after another.
func (o *order) blocks(ctx context.Context, lanes []*lane, cases []int) error {
	return o.sequence(ctx, lanes, cases, nil)
}

// abba runs the lanes in counterbalanced blocks: the first half of the
// cases (the larger, with an odd count) in lane order, then the second
// half in reverse, so the lane that runs first also runs last and every
// lane's mean position is the same. One case cannot be halved: plain
// blocks.
func (o *order) abba(ctx context.Context, lanes []*lane, cases []int, why string) error {
	half := (len(cases) + 1) / 2
	if half == len(cases) {
		o.told(record.ScheduleBlocks, "one case cannot be split into counterbalanced halves")
		return o.blocks(ctx, lanes, cases)
	}
	o.told(record.ScheduleABBA, why)
	back := make([]*lane, len(lanes))
	for i, l := range lanes {
		back[len(lanes)-1-i] = l
	}
	return o.sequence(ctx, lanes, cases[:half], &block{lanes: back, cases: cases[half:]})
}

// block is a list of lanes run one after another over the same cases.
type block struct {
	lanes []*lane
	cases []int
}

// sequence runs each lane over cases in turn, then the blocks of then; a
// lane is loaded when its turn comes, unless it is the one just run, and
// unloaded when another follows.
func (o *order) sequence(ctx context.Context, lanes []*lane, cases []int, then *block) error {
	type turn struct {
		l     *lane
		cases []int
	}
	var turns []turn
	for _, l := range lanes {
		turns = append(turns, turn{l, cases})
	}
	if then != nil {
		for _, l := range then.lanes {
			turns = append(turns, turn{l, then.cases})
		}
	}
	for i, t := range turns {
		if i == 0 || turns[i-1].l != t.l {
			if err := o.load(ctx, t.l); err != nil {
				return err
			}
		}
		if err := o.r.runLanes(ctx, o.cfg, []*lane{t.l}, t.cases, o.repeat); err != nil {
			return err
		}
		if i+1 < len(turns) && turns[i+1].l != t.l {
			o.unload(ctx, t.l)
		}
	}
	return nil
}

// load warms l's model up on its hosts (see Runner.load) and, the first
// time, tells OnModel.
func (o *order) load(ctx context.Context, l *lane) error {
	hosts, err := o.r.load(ctx, o.cfg, l.info, o.ka)
	if err != nil {
		return err
	}
	l.hosts = hosts
	if !o.loaded[l] {
		o.loaded[l] = true
		if o.r.OnModel != nil {
			o.r.OnModel(*l.info)
		}
	}
	return nil
}

// unload frees l's model on its hosts. Best effort: a model left loaded
// only costs memory until its keep_alive expires.
func (o *order) unload(ctx context.Context, l *lane) {
	for _, h := range l.hosts {
		_ = h.Models.Unload(ctx, l.info.Name)
	}
}

func (o *order) told(schedule, why string) {
	if o.r.OnSchedule != nil {
		o.r.OnSchedule(schedule, why)
	}
}

func names(lanes []*lane) string {
	s := make([]string, len(lanes))
	for i, l := range lanes {
		s[i] = l.info.Name
	}
	if len(s) == 2 {
		return s[0] + " and " + s[1]
	}
	return strings.Join(s, ", ")
}

// loadOptions are the options a model is warmed up with: the suite's
// (num_ctx among them, which decides what the loaded model occupies),
// without the seed, which each trial sets.
func loadOptions(s *suite.Suite) map[string]any {
	opts := maps.Clone(s.VariantOptions(nil))
	delete(opts, "seed")
	return opts
}
