package runner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/record"
)

// Host is one Ollama of a pool (--ollama given several times): trials of a
// model are spread over the hosts that have it pulled.
type Host struct {
	// Name is the host's URL, redacted; recorded in Trial.Host and
	// Model.Hosts.
	Name   string
	Chat   bridge.Chatter
	Models Models
	// Version is the host's Ollama version, recorded in Model.Hosts.
	Version string
	// Parallel is how many trials run at once on this host; zero:
	// Config.Parallel.
	Parallel int
}

func (h *Host) parallel(cfg Config) int {
	if h.Parallel > 0 {
		return h.Parallel
	}
	return max(cfg.Parallel, 1)
}

// errMoved is a trial handed back by an unreachable host of a pool, for
// another host to run.
var errMoved = errors.New("host unreachable: trial moved to another host")

// CheckHosts checks every model on every host of r.Hosts, with the checks
// CheckModels makes on one: a model runs on the hosts that have it pulled and
// able to call tools (recorded in Model.Hosts); a host without it is told to
// OnHost and not used for it. It fails when a model runs on no host.
func (r *Runner) CheckHosts(ctx context.Context, names []string) ([]record.Model, error) {
	var models []record.Model
	for _, name := range names {
		var m *record.Model
		var hosts []record.ModelHost
		var errs []error
		for _, h := range r.Hosts {
			got, err := h.Models.Check(ctx, name)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", h.Name, err))
				r.host(fmt.Sprintf("Ollama at %s is not used for %s: %s", h.Name, name, firstLine(err)))
				continue
			}
			if m == nil {
				m = got
			}
			hosts = append(hosts, record.ModelHost{Host: h.Name, Version: h.Version, Digest: got.Digest})
		}
		if m == nil {
			return nil, fmt.Errorf("model %q can run on none of the %d Ollama hosts:\n%w", name, len(r.Hosts), errors.Join(errs...))
		}
		m.Hosts = hosts
		models = append(models, *m)
	}
	return models, nil
}

func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

func (r *Runner) host(msg string) {
	if r.OnHost != nil {
		r.OnHost(msg)
	}
}

// hostsFor is the hosts of r.Hosts that serve m: those in m.Hosts, or all
// of them when m names none (models not checked by CheckHosts).
func (r *Runner) hostsFor(m *record.Model) []*Host {
	var out []*Host
	for i := range r.Hosts {
		h := &r.Hosts[i]
		if m.Hosts == nil || slices.ContainsFunc(m.Hosts, func(mh record.ModelHost) bool { return mh.Host == h.Name }) {
			out = append(out, h)
		}
	}
	return out
}

// runPool is Run over several hosts: model by model, each warmed up on its
// hosts, its trials taken from one queue by every host's workers.
func (r *Runner) runPool(ctx context.Context, cfg Config) ([]record.Model, error) {
	repeat := max(cfg.Repeat, 1)
	infos := append([]record.Model(nil), cfg.Models...)
	think, err := bridge.ParseThink(cfg.Suite.Defaults.Think)
	if err != nil {
		return nil, err
	}
	ka := keepAlive(cfg.Suite)
	for i := range infos {
		info := &infos[i]
		hosts, load, err := r.warmupPool(ctx, cfg, info.Name, r.hostsFor(info), ka)
		if err != nil {
			return infos[:i], fmt.Errorf("loading %s: %w", info.Name, err)
		}
		info.Load = load
		if info.NumCtx == 0 {
			if lc, ok := hosts[0].Models.(ContextLoader); ok {
				if n, err := lc.LoadedContext(ctx, info.Name); err == nil {
					info.NumCtx = n
				}
			}
		}
		if r.OnModel != nil {
			r.OnModel(*info)
		}
		base := bridge.Request{Model: info.Name, Think: think, KeepAlive: ka}
		if err := r.runModelPool(ctx, cfg, info, base, repeat, hosts); err != nil {
			return infos[:i+1], err
		}
		if i+1 < len(infos) {
			for _, h := range hosts {
				_ = h.Models.Unload(ctx, info.Name) // best effort, as with one host
			}
		}
	}
	return infos, nil
}

// warmupPool loads model on each of hosts at once and returns those that
// loaded it, with the longest load time; a host that fails is told to
// OnHost and left out. It fails only when no host loaded the model.
func (r *Runner) warmupPool(ctx context.Context, cfg Config, model string, hosts []*Host, ka *api.Duration) ([]*Host, time.Duration, error) {
	loads := make([]time.Duration, len(hosts))
	errs := make([]error, len(hosts))
	var wg sync.WaitGroup
	for i, h := range hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// No pause: an unreachable host is left out, not waited for.
			loads[i], errs[i] = r.warmup(ctx, cfg, &pause{r: r, limit: -1, ping: h.Models.Ping}, h.Models, model, ka)
		}()
	}
	wg.Wait()
	var ok []*Host
	var load time.Duration
	for i, h := range hosts {
		if errs[i] != nil {
			r.host(fmt.Sprintf("Ollama at %s is not used for %s: loading it failed: %s", h.Name, model, firstLine(errs[i])))
			continue
		}
		ok = append(ok, h)
		load = max(load, loads[i])
	}
	if len(ok) == 0 {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		return nil, 0, errors.Join(errs...)
	}
	return ok, load, nil
}

// runModelPool runs one model's trials on hosts. Each host has its own
// workers and its own pause: a host whose attempts cannot reach it hands
// its trial back to the queue and is pinged with backoff while the others
// go on, and runs trials again once it answers. Only once every host is
// down does Config.WaitOllama count: a host down for that long with no
// other host up is given up, and when every host is, the run stops with
// *OllamaDownError.
func (r *Runner) runModelPool(ctx context.Context, cfg Config, info *record.Model, base bridge.Request, repeat int, hosts []*Host) error {
	s := cfg.Suite
	variants, done, total, skipped := cfg.plan(info.Name, repeat)
	prog := Progress{Model: info.Name, Total: total, Done: skipped}
	if skipped == total {
		if r.OnProgress != nil {
			r.OnProgress(prog)
		}
		return nil
	}
	now := r.now()
	start := now()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	workers := 0
	for _, h := range hosts {
		workers += h.parallel(cfg)
	}
	q, stop := newQueue(ctx, workers)
	defer stop()
	// A host down when the last trial ends is not waited for any longer.
	pingCtx, pingCancel := context.WithCancel(ctx)
	defer pingCancel()
	q.drained = pingCancel
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
		given    int // hosts given up
	)
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
		cancel()
	}
	wait := cfg.WaitOllama
	if wait == 0 {
		wait = DefaultWaitOllama
	}
	pauses := make([]*pause, len(hosts))
	for i, h := range hosts {
		pauses[i] = &pause{r: r, limit: wait, ping: h.Models.Ping}
	}
	for i, h := range hosts {
		p := pauses[i]
		p.extend = func() bool {
			for k, o := range pauses {
				if k != i && !o.busy() {
					return true
				}
			}
			return false
		}
		parallel := h.parallel(cfg)
		var once sync.Once
		giveUp := func(err error) {
			once.Do(func() {
				r.host(fmt.Sprintf("Ollama at %s is given up for %s: %v", h.Name, info.Name, err))
				mu.Lock()
				given++
				all := given == len(hosts)
				mu.Unlock()
				if all {
					fail(err)
				}
			})
		}
		for range parallel {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					j, ok := q.get()
					if !ok {
						return
					}
					if p.busy() {
						// The host is down: leave the trial to the others.
						q.requeue(j)
						if err := p.hold(ctx); err != nil {
							if ctx.Err() == nil {
								giveUp(err)
							}
							return
						}
						continue
					}
					t, err := r.trial(ctx, cfg, p, info, base, j, h)
					if errors.Is(err, errMoved) {
						j.moves++
						q.requeue(j)
						if !p.busy() { // said once per outage, not once per worker
							r.host(fmt.Sprintf("Ollama at %s cannot be reached: its trials go to the other hosts while it is pinged", h.Name))
						}
						if err := p.await(pingCtx); err != nil {
							if pingCtx.Err() == nil {
								giveUp(err)
							}
							return
						}
						continue
					}
					q.finish()
					if err != nil {
						fail(err)
						continue
					}
					if t == nil { // ctx ended mid-trial: dropped
						continue
					}
					if err := r.Out.Write(t); err != nil {
						fail(fmt.Errorf("writing trials: %w", err))
						continue
					}
					mu.Lock()
					prog.add(t, cfg.Judge, now().Sub(start))
					if r.OnProgress != nil {
						r.OnProgress(prog)
					}
					mu.Unlock()
				}
			}()
		}
	}
	// The same order as with one host (see runModel).
feed:
	for rep := range repeat {
		for vi := range variants {
			for i := range s.Cases {
				v := &variants[vi]
				if done(i, rep, v) {
					continue
				}
				if !q.put(job{c: &s.Cases[i], repeat: rep, variant: v}) {
					break feed
				}
			}
		}
	}
	q.close()
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	return ctx.Err()
}

// queue is the trials of one model waiting for a host: fed in run order,
// bounded so memory does not grow with the number of trials, and taking
// back (at its front) the trials a host that went down could not run.
type queue struct {
	mu      sync.Mutex
	cond    *sync.Cond
	items   []job
	limit   int
	busy    int  // trials taken and neither finished nor handed back
	closed  bool // no more trials will be fed
	stopped bool // the context ended
	// drained, when set, is called once every trial was fed and none is
	// left or in flight: a host still being pinged then stops.
	drained func()
}

// check calls drained once the queue is drained; q.mu held.
func (q *queue) check() {
	if q.closed && q.busy == 0 && len(q.items) == 0 && q.drained != nil {
		q.drained()
		q.drained = nil
	}
}

// newQueue makes a queue that holds up to limit fed trials and stops when
// ctx ends; stop releases its watch on ctx.
func newQueue(ctx context.Context, limit int) (*queue, func() bool) {
	q := &queue{limit: max(limit, 1)}
	q.cond = sync.NewCond(&q.mu)
	stop := context.AfterFunc(ctx, func() {
		q.mu.Lock()
		q.stopped = true
		q.mu.Unlock()
		q.cond.Broadcast()
	})
	return q, stop
}

// put adds a trial, blocking while the queue is full; false when ctx ended.
func (q *queue) put(j job) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.items) >= q.limit && !q.stopped {
		q.cond.Wait()
	}
	if q.stopped {
		return false
	}
	q.items = append(q.items, j)
	q.cond.Broadcast()
	return true
}

// get takes the next trial; false when ctx ended, or when every trial was
// fed and none is left or in flight (one in flight may still come back).
func (q *queue) get() (job, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for {
		if q.stopped {
			return job{}, false
		}
		if len(q.items) > 0 {
			j := q.items[0]
			q.items = q.items[1:]
			q.busy++
			q.cond.Broadcast()
			return j, true
		}
		if q.closed && q.busy == 0 {
			return job{}, false
		}
		q.cond.Wait()
	}
}

// requeue hands back a trial taken by get, to run before the others.
func (q *queue) requeue(j job) {
	q.mu.Lock()
	q.busy--
	q.items = slices.Insert(q.items, 0, j)
	q.mu.Unlock()
	q.cond.Broadcast()
}

// finish says a trial taken by get is over.
func (q *queue) finish() {
	q.mu.Lock()
	q.busy--
	q.check()
	q.mu.Unlock()
	q.cond.Broadcast()
}

func (q *queue) close() {
	q.mu.Lock()
	q.closed = true
	q.check()
	q.mu.Unlock()
	q.cond.Broadcast()
}
