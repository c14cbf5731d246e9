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

// hostRun is a host as one model's trials use it: the host, its pause, and
// what it does when it cannot be reached.
type hostRun struct {
	*Host
	p *pause
	// pool says the run has several Ollamas (Runner.Hosts): a trial that
	// cannot reach this host goes back to the queue for another host, a
	// host that fails to load the model is left out, and what befalls the
	// host is told to OnHost. False (the one Ollama of Runner.Chat and
	// Runner.Models) waits in place for the host to answer, with OnWait.
	pool   bool
	giveUp sync.Once
	// load is the warm-up's load time on this host, and loaded what /api/ps
	// listed for the model then (nil: not listed, or not asked).
	load   time.Duration
	loaded *record.Loaded
}

// hostRuns are the hosts that serve m, each with its pause: the hosts of
// r.Hosts that have it, or the one Ollama of r.Chat and r.Models.
func (r *Runner) hostRuns(cfg Config, m *record.Model) []*hostRun {
	wait := cfg.WaitOllama
	if wait == 0 {
		wait = DefaultWaitOllama
	}
	if len(r.Hosts) == 0 {
		h := &Host{Chat: r.Chat, Models: r.Models}
		return []*hostRun{{Host: h, p: &pause{r: r, limit: wait, ping: h.Models.Ping, onWait: r.OnWait}}}
	}
	var out []*hostRun
	for _, h := range r.hostsFor(m) {
		out = append(out, &hostRun{Host: h, pool: true, p: &pause{r: r, limit: wait, ping: h.Models.Ping}})
	}
	return out
}

// warmupHosts loads model on each of hosts at once and returns those that
// loaded it, with the longest load time. A host of a pool that fails is
// told to OnHost and left out, and no host of a pool waits for its Ollama
// to answer; the one Ollama does. It fails only when no host loaded the
// model.
func (r *Runner) warmupHosts(ctx context.Context, cfg Config, info *record.Model, hosts []*hostRun, ka *api.Duration) ([]*hostRun, time.Duration, error) {
	model := info.Name
	if len(hosts) == 0 {
		return nil, 0, fmt.Errorf("no Ollama host serves %s", model)
	}
	loads := make([]time.Duration, len(hosts))
	errs := make([]error, len(hosts))
	var wg sync.WaitGroup
	for i, h := range hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := h.p
			if h.pool {
				// No pause: an unreachable host is left out, not waited for.
				p = &pause{r: r, limit: -1, ping: h.Models.Ping}
			}
			loads[i], errs[i] = r.warmup(ctx, cfg, p, h.Models, model, ka)
			if lr, ok := h.Models.(LoadedReporter); ok && errs[i] == nil {
				// Best effort: a cost unknown leaves the run as it was.
				h.loaded, _ = lr.Loaded(ctx, model, hostDigest(info, h.Name))
			}
		}()
	}
	wg.Wait()
	var ok []*hostRun
	var load time.Duration
	for i, h := range hosts {
		if errs[i] != nil {
			if h.pool {
				r.host(fmt.Sprintf("Ollama at %s is not used for %s: loading it failed: %s", h.Name, model, firstLine(errs[i])))
			}
			continue
		}
		h.load = loads[i]
		ok = append(ok, h)
		load = max(load, loads[i])
	}
	switch {
	case len(ok) > 0:
		return ok, load, nil
	case !hosts[0].pool:
		return nil, 0, errs[0]
	case ctx.Err() != nil:
		return nil, 0, ctx.Err()
	}
	return nil, 0, errors.Join(errs...)
}

// hostDigest is the digest of info's model on the host named, else its own.
func hostDigest(info *record.Model, host string) string {
	for _, mh := range info.Hosts {
		if mh.Host == host && mh.Digest != "" {
			return mh.Digest
		}
	}
	return info.Digest
}

// measureLoaded records in info what each host that loaded it reported: its
// load time and memory in info.Hosts (a pool), and at the model's level the
// largest memory, VRAM and context of any host, which is what the model
// asks of a machine. What an earlier session measured is replaced only by
// what this one did.
func measureLoaded(info *record.Model, hosts []*hostRun) {
	// info.Hosts may share its array with the caller's models.
	info.Hosts = slices.Clone(info.Hosts)
	var most *record.Loaded
	for _, h := range hosts {
		if l := h.loaded; l != nil {
			if most == nil {
				most = &record.Loaded{}
			}
			most.Size, most.SizeVRAM = max(most.Size, l.Size), max(most.SizeVRAM, l.SizeVRAM)
			most.ContextLength = max(most.ContextLength, l.ContextLength)
		}
		for i := range info.Hosts {
			mh := &info.Hosts[i]
			if !h.pool || mh.Host != h.Name {
				continue
			}
			mh.Load = h.load
			if h.loaded != nil {
				mh.Cost = &record.Cost{Loaded: h.loaded}
			}
		}
	}
	if most != nil {
		info.Cost = &record.Cost{Loaded: most}
	}
}
