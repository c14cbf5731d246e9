package runner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/suite"
)

// lane is one model as the schedule runs it: the hosts that loaded it, what
// each of its requests sends, its tally and what it knows of copies. A
// model keeps one lane for the whole run, over every block it runs in.
type lane struct {
	info     *record.Model
	base     bridge.Request
	hosts    []*hostRun
	tally    *tally
	copies   *copies
	variants []Variant
	done     func(i, rep int, v *Variant) bool
	// idle: every trial of the model is done already (resume).
	idle bool
}

// newLane is info's lane before it is loaded: its plan and tally, reported
// at once when every trial is already done.
// mu is held while any lane of the run reports, so that OnProgress is called
// from one goroutine at a time.
func (r *Runner) newLane(cfg *Config, info *record.Model, base bridge.Request, repeat int, mu *sync.Mutex) *lane {
	variants, done, total, skipped := cfg.plan(info.Name, repeat)
	tl := &tally{mu: mu, prog: Progress{Model: info.Name, Total: total, Done: skipped}, on: r.OnProgress, judge: cfg.Judge, now: r.now()}
	l := &lane{info: info, base: base, tally: tl, variants: variants, done: done, idle: skipped == total}
	if l.idle {
		tl.report()
		return l
	}
	tl.ev = newEvidence(*cfg, info.Name)
	l.copies = newCopies(cfg, info.Name, repeat, r.now())
	return l
}

// schedule is the trials of one or more models (lanes) being run on the
// hosts that loaded them: one Ollama or several, run alike. The jobs are
// fed in run order to one queue that every host's workers take from; with
// several lanes (interleaved models, on one Ollama) a worker runs a job on
// its lane's host. Each host has its own pause: a host of a pool whose
// attempts cannot reach it hands its trial back to the queue and is
// pinged with backoff while the others go on, and runs trials again once
// it answers; the one Ollama waits in place. Only once every host is down
// does Config.WaitOllama count: a host down for that long with no other
// host up is given up, and when every host is, the run stops with
// *OllamaDownError.
type schedule struct {
	r      *Runner
	cfg    Config
	lanes  []*lane
	cases  []int // indexes of the suite's cases this schedule runs
	repeat int
	q      *queue

	ctx    context.Context
	cancel context.CancelFunc
	// pingCtx ends once every trial has ended: a host still down then is
	// pinged no longer.
	pingCtx context.Context

	mu       sync.Mutex
	firstErr error
	given    int // hosts given up
}

// runLanes runs the trials of lanes over the cases listed (indexes into
// the suite's). Every lane has the same number of hosts: one lane, or
// several on the one Ollama.
func (r *Runner) runLanes(ctx context.Context, cfg Config, lanes []*lane, cases []int, repeat int) error {
	var busy []*lane
	for _, l := range lanes {
		// A host given up in an earlier block of the lane stays given up.
		l.hosts = slices.DeleteFunc(l.hosts, func(h *hostRun) bool { return h.p.failed() })
		if !l.idle && len(l.hosts) > 0 {
			busy = append(busy, l)
			if l.tally.start.IsZero() {
				l.tally.start = l.tally.now()
			}
		}
	}
	if len(busy) == 0 || len(cases) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := &schedule{r: r, cfg: cfg, lanes: busy, cases: cases, repeat: repeat, ctx: ctx, cancel: cancel}
	hosts := busy[0].hosts
	workers := 0
	for _, h := range hosts {
		workers += h.parallel(cfg)
	}
	q, stop := newQueue(ctx, workers)
	defer stop()
	q.held = func(j job) bool { return j.lane.copies.held(j) }
	s.q = q
	pingCtx, pingCancel := context.WithCancel(ctx)
	defer pingCancel()
	s.pingCtx, q.drained = pingCtx, pingCancel
	for _, l := range busy {
		extendPauses(l.hosts)
	}
	var wg sync.WaitGroup
	for k, h := range hosts {
		for range h.parallel(cfg) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s.work(k)
			}()
		}
	}
	s.feed()
	q.close()
	wg.Wait()
	if s.firstErr != nil {
		return s.firstErr
	}
	return ctx.Err()
}

// extendPauses keeps each host of a pool pinged past Config.WaitOllama for
// as long as another host of the model is up.
func extendPauses(hosts []*hostRun) {
	for i, h := range hosts {
		if !h.pool {
			continue
		}
		h.p.extend = func() bool {
			for k, o := range hosts {
				if k != i && !o.p.busy() {
					return true
				}
			}
			return false
		}
	}
}

// feed puts the jobs on the queue. Repeat-major order, then variant by
// variant: an interrupted run has every case at least once before any case
// twice, and each repeat in every variant (paired data) before the next
// repeat. With several lanes, each case's trials of every model follow one
// another, the model going first turning with each case, so that no model
// has the machine's early or late time to itself.
func (s *schedule) feed() {
	cases := s.cfg.Suite.Cases
	turn := 0
	for rep := range s.repeat {
		if s.stopsEarly() {
			// The test is applied between repeats, once every trial of the
			// last one has ended, so which trials run does not depend on
			// which trial of a repeat ends first, nor on which host ran it.
			s.q.idle()
			for _, l := range s.lanes {
				l.tally.settle()
			}
		}
		for vi := range s.lanes[0].variants {
			for _, i := range s.cases {
				for k := range s.lanes {
					l := s.lanes[(k+turn)%len(s.lanes)]
					if !s.feedOne(l, &cases[i], i, rep, &l.variants[vi]) {
						return
					}
				}
				turn++
			}
		}
	}
}

func (s *schedule) stopsEarly() bool {
	for _, l := range s.lanes {
		if l.tally.ev != nil {
			return true
		}
	}
	return false
}

// feedOne puts one job of l on the queue, unless it is done, settled by
// --stop-early or written as a copy; false when the run stopped.
func (s *schedule) feedOne(l *lane, c *suite.Case, i, rep int, v *Variant) bool {
	if l.done(i, rep, v) {
		return true
	}
	if l.tally.ev.stopped(v.Name, c.ID) {
		l.tally.saved()
		return true
	}
	j := job{lane: l, c: c, repeat: rep, variant: v}
	if t := l.copies.copyOf(j); t != nil {
		return s.writeCopy(l, t)
	}
	return s.q.put(j)
}

// work runs trials on the k-th host of each lane until none is left, the
// run stops or the host is given up.
func (s *schedule) work(k int) {
	for {
		j, ok := s.q.get()
		if !ok {
			return
		}
		l := j.lane
		if t := l.copies.copyOf(j); t != nil {
			// Held until its case's first two repeats ended, which agreed.
			s.finish(j, t, nil)
			continue
		}
		h := l.hosts[k]
		if h.p.busy() {
			// The host is down: leave the trial to the others, and start
			// no new one here until it answers.
			s.q.requeue(j)
			if err := h.p.hold(s.ctx); err != nil {
				if s.ctx.Err() == nil {
					s.giveUp(l, h, err)
				}
				return
			}
			continue
		}
		t, err := s.r.trial(s.ctx, s.cfg, h, l.info, l.base, j)
		if errors.Is(err, errMoved) {
			if !s.move(l, h, j) {
				return
			}
			continue
		}
		if g := s.r.Grader; g != nil && t != nil && err == nil && g.Grade(s.ctx, j.c, t) != nil {
			t = nil // ctx ended while it was judged: dropped, as a trial cut short
		}
		s.finish(j, t, err)
	}
}

// move hands back to the queue a trial that could not reach h, a host of a
// pool, and pings h until it answers; false when h is given up or every
// trial has ended.
func (s *schedule) move(l *lane, h *hostRun, j job) bool {
	j.moves++
	s.q.requeue(j)
	if !h.p.busy() { // said once per outage, not once per worker
		s.r.host(fmt.Sprintf("Ollama at %s cannot be reached: its trials go to the other hosts while it is pinged", h.Name))
	}
	if err := h.p.await(s.pingCtx); err != nil {
		if s.pingCtx.Err() == nil {
			s.giveUp(l, h, err)
		}
		return false
	}
	return true
}

// finish writes and counts a trial that ended (nil: ctx ended mid-trial, it
// is dropped), and the copies it settles; err stops the run. The trial is
// counted before the queue hears it ended, so the evidence between repeats
// has every trial.
func (s *schedule) finish(j job, t *record.Trial, err error) {
	defer s.q.finish()
	switch {
	case err != nil:
		s.fail(err)
	case t == nil:
	default:
		if err := s.r.Out.Write(t); err != nil {
			s.fail(fmt.Errorf("writing trials: %w", err))
			return
		}
		j.lane.copies.ended(j, t)
		j.lane.tally.written(t)
	}
}

// writeCopy writes and counts a copy the feeder made; false when writing
// failed (the run then stops).
func (s *schedule) writeCopy(l *lane, t *record.Trial) bool {
	if err := s.r.Out.Write(t); err != nil {
		s.fail(fmt.Errorf("writing trials: %w", err))
		return false
	}
	l.tally.written(t)
	return true
}

// fail stops the run with err, unless an earlier error stopped it.
func (s *schedule) fail(err error) {
	s.mu.Lock()
	if s.firstErr == nil {
		s.firstErr = err
	}
	s.mu.Unlock()
	s.cancel()
}

// giveUp gives up h, a host of l, after its wait failed with err; once
// every host is given up, the run stops with err.
func (s *schedule) giveUp(l *lane, h *hostRun, err error) {
	h.giveUp.Do(func() {
		if h.pool {
			s.r.host(fmt.Sprintf("Ollama at %s is given up for %s: %v", h.Name, l.info.Name, err))
		}
		s.mu.Lock()
		s.given++
		all := s.given >= len(l.hosts)
		s.mu.Unlock()
		if all {
			s.fail(err)
		}
	})
}

// tally counts one model's trials as they end, for OnProgress and
// --stop-early; any worker may call it.
type tally struct {
	mu    *sync.Mutex // shared by every lane of a run
	prog  Progress
	ev    *evidence // nil: the run does not stop early
	judge record.JudgeOptions
	on    func(Progress)
	now   func() time.Time
	start time.Time
}

// written counts a trial this run just wrote (or a copy it recorded).
func (tl *tally) written(t *record.Trial) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	tl.ev.add(t)
	tl.prog.add(t, tl.judge, tl.now().Sub(tl.start))
	tl.report()
}

// saved counts a trial not run because its case is settled.
func (tl *tally) saved() {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	tl.prog.Saved++
	tl.prog.Total--
	tl.report()
}

// settle applies the --stop-early test to the evidence so far.
func (tl *tally) settle() {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	tl.ev.settle()
}

// report tells OnProgress; tl.mu held, or no worker started.
func (tl *tally) report() {
	if tl.on != nil {
		tl.on(tl.prog)
	}
}
