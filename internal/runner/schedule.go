package runner

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/record"
)

// schedule is one model's trials being run on the hosts that loaded it: one
// Ollama or several, run alike. The jobs are fed in run order to one queue
// that every host's workers take from. Each host has its own pause: a host
// of a pool whose attempts cannot reach it hands its trial back to the
// queue and is pinged with backoff while the others go on, and runs trials
// again once it answers; the one Ollama waits in place. Only once every
// host is down does Config.WaitOllama count: a host down for that long with
// no other host up is given up, and when every host is, the run stops with
// *OllamaDownError.
type schedule struct {
	r     *Runner
	cfg   Config
	info  *record.Model
	base  bridge.Request
	hosts []*hostRun
	q     *queue
	tally *tally

	ctx    context.Context
	cancel context.CancelFunc
	// pingCtx ends once every trial has ended: a host still down then is
	// pinged no longer.
	pingCtx context.Context

	mu       sync.Mutex
	firstErr error
	given    int // hosts given up
}

// runModel runs one model's trials on hosts.
func (r *Runner) runModel(ctx context.Context, cfg Config, info *record.Model, base bridge.Request, repeat int, hosts []*hostRun) error {
	variants, done, total, skipped := cfg.plan(info.Name, repeat)
	tl := &tally{prog: Progress{Model: info.Name, Total: total, Done: skipped}, on: r.OnProgress, judge: cfg.Judge}
	if skipped == total {
		tl.report()
		return nil
	}
	tl.now = r.now()
	tl.start = tl.now()
	tl.ev = newEvidence(cfg, info.Name)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := &schedule{r: r, cfg: cfg, info: info, base: base, hosts: hosts, tally: tl, ctx: ctx, cancel: cancel}
	workers := 0
	for _, h := range hosts {
		workers += h.parallel(cfg)
	}
	q, stop := newQueue(ctx, workers)
	defer stop()
	s.q = q
	pingCtx, pingCancel := context.WithCancel(ctx)
	defer pingCancel()
	s.pingCtx, q.drained = pingCtx, pingCancel
	s.extendPauses()
	var wg sync.WaitGroup
	for _, h := range hosts {
		for range h.parallel(cfg) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s.work(h)
			}()
		}
	}
	s.feed(variants, done, repeat)
	q.close()
	wg.Wait()
	if s.firstErr != nil {
		return s.firstErr
	}
	return ctx.Err()
}

// extendPauses keeps each host of a pool pinged past Config.WaitOllama for
// as long as another host of the model is up.
func (s *schedule) extendPauses() {
	for i, h := range s.hosts {
		if !h.pool {
			continue
		}
		h.p.extend = func() bool {
			for k, o := range s.hosts {
				if k != i && !o.p.busy() {
					return true
				}
			}
			return false
		}
	}
}

// feed puts the model's jobs on the queue. Repeat-major order, then variant
// by variant: an interrupted run has every case at least once before any
// case twice, and each repeat in every variant (paired data) before the
// next repeat.
func (s *schedule) feed(variants []Variant, done func(i, rep int, v *Variant) bool, repeat int) {
	cases := s.cfg.Suite.Cases
	for rep := range repeat {
		if s.tally.ev != nil {
			// The test is applied between repeats, once every trial of the
			// last one has ended, so which trials run does not depend on
			// which trial of a repeat ends first, nor on which host ran it.
			s.q.idle()
			s.tally.settle()
		}
		for vi := range variants {
			v := &variants[vi]
			for i := range cases {
				if done(i, rep, v) {
					continue
				}
				if s.tally.ev.stopped(v.Name, cases[i].ID) {
					s.tally.saved()
					continue
				}
				if !s.q.put(job{c: &cases[i], repeat: rep, variant: v}) {
					return
				}
			}
		}
	}
}

// work runs trials on h until none is left, the run stops or h is given up.
func (s *schedule) work(h *hostRun) {
	for {
		j, ok := s.q.get()
		if !ok {
			return
		}
		if h.p.busy() {
			// The host is down: leave the trial to the others, and start
			// no new one here until it answers.
			s.q.requeue(j)
			if err := h.p.hold(s.ctx); err != nil {
				if s.ctx.Err() == nil {
					s.giveUp(h, err)
				}
				return
			}
			continue
		}
		t, err := s.r.trial(s.ctx, s.cfg, h, s.info, s.base, j)
		if errors.Is(err, errMoved) {
			if !s.move(h, j) {
				return
			}
			continue
		}
		if g := s.r.Grader; g != nil && t != nil && err == nil && g.Grade(s.ctx, j.c, t) != nil {
			t = nil // ctx ended while it was judged: dropped, as a trial cut short
		}
		s.finish(t, err)
	}
}

// move hands back to the queue a trial that could not reach h, a host of a
// pool, and pings h until it answers; false when h is given up or every
// trial has ended.
func (s *schedule) move(h *hostRun, j job) bool {
	j.moves++
	s.q.requeue(j)
	if !h.p.busy() { // said once per outage, not once per worker
		s.r.host(fmt.Sprintf("Ollama at %s cannot be reached: its trials go to the other hosts while it is pinged", h.Name))
	}
	if err := h.p.await(s.pingCtx); err != nil {
		if s.pingCtx.Err() == nil {
			s.giveUp(h, err)
		}
		return false
	}
	return true
}

// finish writes and counts a trial that ended (nil: ctx ended mid-trial, it
// is dropped); err stops the run. The trial is counted before the queue
// hears it ended, so the evidence between repeats has every trial.
func (s *schedule) finish(t *record.Trial, err error) {
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
		s.tally.written(t)
	}
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

// giveUp gives up h for this model after its wait failed with err; once
// every host is given up, the run stops with err.
func (s *schedule) giveUp(h *hostRun, err error) {
	h.giveUp.Do(func() {
		if h.pool {
			s.r.host(fmt.Sprintf("Ollama at %s is given up for %s: %v", h.Name, s.info.Name, err))
		}
		s.mu.Lock()
		s.given++
		all := s.given == len(s.hosts)
		s.mu.Unlock()
		if all {
			s.fail(err)
		}
	})
}

// tally counts one model's trials as they end, for OnProgress and
// --stop-early; any worker may call it.
type tally struct {
	mu    sync.Mutex
	prog  Progress
	ev    *evidence // nil: the run does not stop early
	judge record.JudgeOptions
	on    func(Progress)
	now   func() time.Time
	start time.Time
}

// written counts a trial this run just wrote.
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
