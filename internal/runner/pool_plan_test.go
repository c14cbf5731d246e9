package runner_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/runner"
	"github.com/toolgrade/toolgrade/internal/shard"
	"github.com/toolgrade/toolgrade/internal/stats"
)

// TestOnlyOverTwoHostsRunsExactlyTheShard: with Config.Only a run over two
// Ollamas writes exactly its shard's trials, once each, spread over both
// hosts; a model with no trial in the shard is loaded on neither.
func TestOnlyOverTwoHostsRunsExactlyTheShard(t *testing.T) {
	for _, by := range []string{shard.ByTrial, shard.ByModel} {
		t.Run(by, func(t *testing.T) {
			r := newPoolRig(t, 0, hostSpec{parallel: 2}, hostSpec{parallel: 2})
			s := loadSuite(t, "../../cases/docs.yaml", r.cat)
			names := []string{"scripted-good", "scripted-weak"}
			ms, err := r.runner.CheckHosts(context.Background(), names)
			if err != nil {
				t.Fatal(err)
			}
			m := shard.Matrix{Models: names, Repeat: 3}
			for i := range s.Cases {
				m.Cases = append(m.Cases, s.Cases[i].ID)
			}
			sp, err := shard.Make(1, 2, by)
			if err != nil {
				t.Fatal(err)
			}
			only := sp.Filter(m)
			last := map[string]runner.Progress{}
			r.runner.OnProgress = func(p runner.Progress) { last[p.Model] = p }
			if _, err := r.runner.Run(context.Background(), runner.Config{Suite: s, Models: ms, Repeat: 3, Only: only}); err != nil {
				t.Fatal(err)
			}
			got := map[record.TrialKey]bool{}
			byHost := map[string]int{}
			for _, tr := range r.trials(t) {
				if !only[tr.Key()] || got[tr.Key()] {
					t.Errorf("trial %v outside the shard or twice", tr.Key())
				}
				got[tr.Key()] = true
				if tr.IsCopy() {
					// A copy ran on no host; it is in the shard all the same.
					if tr.Host != "" || tr.Repeat < 2 {
						t.Errorf("copy %v on host %q", tr.Key(), tr.Host)
					}
					continue
				}
				byHost[tr.Host]++
			}
			if len(got) != len(only) || len(byHost) != 2 {
				t.Errorf("%d trials on hosts %v; the shard holds %d", len(got), byHost, len(only))
			}
			inShard := map[string]int{}
			for k := range only {
				inShard[k.Model]++
			}
			for _, name := range names {
				if p := last[name]; p.Total != inShard[name] || p.Done != inShard[name] {
					t.Errorf("%s: progress %d/%d; the shard holds %d of its trials", name, p.Done, p.Total, inShard[name])
				}
			}
			if by != shard.ByModel {
				return
			}
			for i, fake := range r.fakes {
				for _, req := range fake.Requests() {
					if c := req.Chat; c != nil && c.Model == "scripted-good" {
						t.Fatalf("scripted-good, all in shard 0, was sent a request on host %d", i)
					}
				}
			}
		})
	}
}

// TestStopEarlyOverTwoHostsStopsTheSameCases: --stop-early over two
// Ollamas runs exactly the trials it runs on one, and saves as many, even
// when one of the hosts dies mid-run and its trials move to the other: the
// test is applied between repeats, once every trial of the last one has
// ended, on whichever host.
func TestStopEarlyOverTwoHostsStopsTheSameCases(t *testing.T) {
	const repeat = 20
	cfg := func(s *runner.Config) runner.Config {
		s.Repeat, s.StopEarly = repeat, &stats.SPRT{}
		return *s
	}
	type result struct {
		keys []record.TrialKey
		last map[string]runner.Progress
	}
	collect := func(t *testing.T, trials []*record.Trial, last map[string]runner.Progress) result {
		res := result{last: last}
		for _, tr := range trials {
			res.keys = append(res.keys, tr.Key())
			if tr.Score.Outcome == record.OutcomeInfraError {
				t.Errorf("%v written as infra_error", tr.Key())
			}
		}
		slices.SortFunc(res.keys, func(a, b record.TrialKey) int {
			return cmpKeys(a, b)
		})
		return res
	}
	names := []string{"scripted-good", "scripted-weak"}

	one := newRig(t, nil, nil, nil, "docs")
	s1 := loadSuite(t, "../../cases/docs.yaml", one.cat)
	last1 := map[string]runner.Progress{}
	one.runner.OnProgress = func(p runner.Progress) { last1[p.Model] = p }
	if _, err := one.runner.Run(context.Background(), cfg(&runner.Config{Suite: s1, Models: models(t, one, names...), Parallel: 3})); err != nil {
		t.Fatal(err)
	}
	want := collect(t, one.trials(t), last1)

	for _, kill := range []bool{false, true} {
		pool := newPoolRig(t, 0, hostSpec{parallel: 2}, hostSpec{parallel: 2})
		s2 := loadSuite(t, "../../cases/docs.yaml", pool.cat)
		ms, err := pool.runner.CheckHosts(context.Background(), names)
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		last2 := map[string]runner.Progress{}
		var once sync.Once
		pool.runner.OnProgress = func(p runner.Progress) {
			mu.Lock()
			last2[p.Model] = p
			mu.Unlock()
			if kill && p.Done == 10 {
				once.Do(func() {
					// Abort its requests in flight too: a host that dies.
					pool.servers[1].CloseClientConnections()
					pool.servers[1].Close()
				})
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // deadlock guard
		if _, err := pool.runner.Run(ctx, cfg(&runner.Config{Suite: s2, Models: ms})); err != nil {
			t.Fatalf("kill %v: %v", kill, err)
		}
		cancel()
		got := collect(t, pool.trials(t), last2)
		if !slices.Equal(got.keys, want.keys) {
			t.Errorf("kill %v: %d trials over two hosts, %d over one; they differ", kill, len(got.keys), len(want.keys))
		}
		for _, m := range names {
			g, w := got.last[m], want.last[m]
			g.Elapsed, w.Elapsed = 0, 0
			if g != w {
				t.Errorf("kill %v: %s: last progress %+v; on one host %+v", kill, m, g, w)
			}
		}
	}
}

func cmpKeys(a, b record.TrialKey) int {
	for _, c := range [][2]string{{a.Model, b.Model}, {a.Variant, b.Variant}, {a.CaseID, b.CaseID}} {
		if c[0] != c[1] {
			if c[0] < c[1] {
				return -1
			}
			return 1
		}
	}
	return a.Repeat - b.Repeat
}
