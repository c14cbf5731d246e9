package runner_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/fakes/rig"
	"github.com/toolgrade/toolgrade/internal/llm"
	"github.com/toolgrade/toolgrade/internal/mcpclient"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/redact"
	"github.com/toolgrade/toolgrade/internal/runner"
)

// poolRig is a runner over several fake Ollamas, each its own loopback
// server, that a test can kill one by one.
type poolRig struct {
	servers []*httptest.Server
	fakes   []*fakeollama.Server
	cat     *mcpclient.Catalog
	out     bytes.Buffer
	runner  *runner.Runner

	mu    sync.Mutex
	notes []string
}

// hostSpec is one fake Ollama of a pool rig.
type hostSpec struct {
	script   *fakeollama.Script // nil: the demo script
	version  string             // empty: the fake's default
	parallel int
}

func newPoolRig(t testing.TB, latency time.Duration, specs ...hostSpec) *poolRig {
	t.Helper()
	r := &poolRig{cat: rig.Catalog(t, nil, "docs")}
	r.runner = &runner.Runner{
		Tools: r.cat,
		Out:   record.NewWriter(&r.out),
		// Short real pauses: a dead host is pinged without spinning.
		Sleep: func(ctx context.Context, d time.Duration) error {
			select {
			case <-time.After(min(d, 2*time.Millisecond)):
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		},
		OnHost: func(msg string) { r.mu.Lock(); r.notes = append(r.notes, msg); r.mu.Unlock() },
	}
	for _, sp := range specs {
		script := sp.script
		if script == nil {
			var err error
			if script, err = fakeollama.DemoScript(); err != nil {
				t.Fatal(err)
			}
		}
		fake := fakeollama.New(script, &fakeollama.Options{Latency: latency, Version: sp.version, DontRecord: true})
		ts := httptest.NewServer(fake)
		t.Cleanup(ts.Close)
		base, err := url.Parse(ts.URL)
		if err != nil {
			t.Fatal(err)
		}
		client := llm.NewClient(base)
		o := &llm.Ollama{Client: client, Base: base}
		v, err := o.Version(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		r.servers = append(r.servers, ts)
		r.fakes = append(r.fakes, fake)
		r.runner.Hosts = append(r.runner.Hosts, runner.Host{
			Name: redact.URL(ts.URL), Chat: client, Models: o, Version: v, Parallel: sp.parallel,
		})
	}
	return r
}

func (r *poolRig) trials(t testing.TB) []*record.Trial {
	t.Helper()
	rd := record.NewReader(bytes.NewReader(r.out.Bytes()), "trials")
	var out []*record.Trial
	for rd.Scan() {
		out = append(out, rd.Trial())
	}
	if rd.Err() != nil || len(rd.Warnings) > 0 {
		t.Fatalf("reading trials: %v %v", rd.Err(), rd.Warnings)
	}
	return out
}

// TestAHostKilledMidRunLosesNothing: three fake Ollamas at 20ms a round, one
// closed after a few trials: every trial is written exactly once, none as
// infra_error, and those after the kill ran on the other two, while the
// dead host is pinged rather than given up.
func TestAHostKilledMidRunLosesNothing(t *testing.T) {
	r := newPoolRig(t, 20*time.Millisecond, hostSpec{parallel: 2}, hostSpec{parallel: 2}, hostSpec{parallel: 2})
	s := parseSuite(t, oneCase, r.cat)
	const repeat = 60
	victim := r.servers[1]
	var kill sync.Once
	killed := make(chan struct{})
	r.runner.OnProgress = func(p runner.Progress) {
		if p.Done == 10 {
			kill.Do(func() {
				go func() {
					// Abort its requests in flight too: a host that dies, not
					// one that drains.
					victim.CloseClientConnections()
					victim.Close()
					close(killed)
				}()
			})
		}
	}
	ms, err := r.runner.CheckHosts(context.Background(), []string{"scripted-good"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ms[0].Hosts) != 3 {
		t.Fatalf("hosts of the model: %+v", ms[0].Hosts)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // deadlock guard
	defer cancel()
	if _, err := r.runner.Run(ctx, runner.Config{Suite: s, Models: ms, Repeat: repeat, WaitOllama: time.Millisecond, AllRepeats: true}); err != nil {
		t.Fatal(err)
	}
	<-killed
	trials := r.trials(t)
	seen := map[int]int{}
	byHost := map[string]int{}
	for _, tr := range trials {
		seen[tr.Repeat]++
		byHost[tr.Host]++
		if tr.Score.Outcome != record.OutcomePass {
			t.Errorf("repeat %d on %s: %s (%s)", tr.Repeat, tr.Host, tr.Score.Outcome, tr.Score.Detail)
		}
	}
	if len(trials) != repeat || len(seen) != repeat {
		t.Errorf("%d trials, %d distinct repeats, want %d of each", len(trials), len(seen), repeat)
	}
	for rep, n := range seen {
		if n != 1 {
			t.Errorf("repeat %d written %d times", rep, n)
		}
	}
	dead := redact.URL(victim.URL)
	for _, h := range r.runner.Hosts {
		if h.Name != dead && byHost[h.Name] == 0 {
			t.Errorf("host %s ran no trial: %v", h.Name, byHost)
		}
	}
	if byHost[dead] >= repeat/2 {
		t.Errorf("the killed host ran %d of %d trials: %v", byHost[dead], repeat, byHost)
	}
	if !slices.ContainsFunc(r.notes, func(n string) bool { return strings.Contains(n, dead) && strings.Contains(n, "cannot be reached") }) {
		t.Errorf("nothing said the host went down: %q", r.notes)
	}
	// --wait-ollama counts only once every host is down: the dead one is
	// pinged for as long as the others run, not given up after 1ms.
	if slices.ContainsFunc(r.notes, func(n string) bool { return strings.Contains(n, "given up") }) {
		t.Errorf("a host was given up while others ran: %q", r.notes)
	}
}

// TestEveryHostDownStopsTheRun: when every host of a model stays
// unreachable, the run stops with *OllamaDownError, as with one Ollama.
func TestEveryHostDownStopsTheRun(t *testing.T) {
	r := newPoolRig(t, 0, hostSpec{}, hostSpec{})
	s := parseSuite(t, oneCase, r.cat)
	ms, err := r.runner.CheckHosts(context.Background(), []string{"scripted-good"})
	if err != nil {
		t.Fatal(err)
	}
	r.runner.OnModel = func(record.Model) {
		for _, ts := range r.servers {
			ts.CloseClientConnections()
			ts.Close()
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, err = r.runner.Run(ctx, runner.Config{Suite: s, Models: ms, Repeat: 5, WaitOllama: 50 * time.Millisecond, AllRepeats: true})
	if _, ok := err.(*runner.OllamaDownError); !ok {
		t.Fatalf("err %T %v, want *OllamaDownError", err, err)
	}
	if n := len(r.trials(t)); n != 0 {
		t.Errorf("%d trials written, want none (a resume runs them)", n)
	}
}

// TestAHostWithoutTheModelIsNotUsedForIt: a host that lacks a model is left
// out of that model's trials and said so at the check, and still serves the
// models it has.
func TestAHostWithoutTheModelIsNotUsedForIt(t *testing.T) {
	script, err := fakeollama.DemoScript()
	if err != nil {
		t.Fatal(err)
	}
	script.Models = slices.DeleteFunc(slices.Clone(script.Models), func(m fakeollama.Model) bool { return m.Name == "scripted-weak" })
	script.Rules = slices.DeleteFunc(slices.Clone(script.Rules), func(r fakeollama.Rule) bool { return r.Model == "scripted-weak" })
	r := newPoolRig(t, 0, hostSpec{}, hostSpec{script: script})
	lacking := r.runner.Hosts[1].Name
	s := parseSuite(t, oneCase, r.cat)
	ms, err := r.runner.CheckHosts(context.Background(), []string{"scripted-good", "scripted-weak"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ms[0].Hosts) != 2 || len(ms[1].Hosts) != 1 || ms[1].Hosts[0].Host == lacking {
		t.Errorf("hosts %+v / %+v", ms[0].Hosts, ms[1].Hosts)
	}
	if len(r.notes) != 1 || !strings.Contains(r.notes[0], lacking) || !strings.Contains(r.notes[0], "scripted-weak") || !strings.Contains(r.notes[0], "not pulled") {
		t.Errorf("start-up notes %q", r.notes)
	}
	if _, err := r.runner.Run(context.Background(), runner.Config{Suite: s, Models: ms, Repeat: 20, Parallel: 2, AllRepeats: true}); err != nil {
		t.Fatal(err)
	}
	byHost := map[string]int{}
	for _, tr := range r.trials(t) {
		byHost[tr.Model+" "+tr.Host]++
	}
	if byHost["scripted-weak "+lacking] != 0 || byHost["scripted-weak "+r.runner.Hosts[0].Name] != 20 || byHost["scripted-good "+lacking] == 0 {
		t.Errorf("trials by model and host: %v", byHost)
	}
	// No chat for the missing model reached the host without it.
	for _, req := range r.fakes[1].Requests() {
		if req.Chat != nil && req.Chat.Model == "scripted-weak" {
			t.Fatalf("a chat for scripted-weak reached %s", lacking)
		}
	}
}

// TestHostsWithDifferentVersionsAreRecorded: each host's Ollama version
// lands in Model.Hosts, and HostDrift says they differ.
func TestHostsWithDifferentVersionsAreRecorded(t *testing.T) {
	r := newPoolRig(t, 0, hostSpec{version: "0.17.4"}, hostSpec{version: "0.12.0"})
	ms, err := r.runner.CheckHosts(context.Background(), []string{"scripted-good"})
	if err != nil {
		t.Fatal(err)
	}
	got := ms[0].Hosts
	if len(got) != 2 || got[0].Version != "0.17.4" || got[1].Version != "0.12.0" || got[0].Digest == "" || got[0].Digest != got[1].Digest {
		t.Fatalf("hosts %+v", got)
	}
	drift := ms[0].HostDrift()
	want := fmt.Sprintf("hosts of scripted-good differ in Ollama version: 0.17.4 on %s; 0.12.0 on %s", got[0].Host, got[1].Host)
	if len(drift) != 1 || drift[0] != want {
		t.Errorf("drift %q, want %q", drift, want)
	}
}

// BenchmarkHostsSpeedup runs the same 120 trials on one fake Ollama and on
// three, each host with --parallel 2 and 20ms per round, and reports both
// throughputs and their ratio (the goal is ≥ 2.7×), timed from the first
// trial to the last. A low per-host parallelism keeps the measure on the
// spreading, not on the CPU the fakes share. Printed, never asserted.
func BenchmarkHostsSpeedup(b *testing.B) {
	runner.TuneGC()
	const trials, parallel = 120, 2
	rate := func(hosts int) float64 {
		specs := make([]hostSpec, hosts)
		for i := range specs {
			specs[i].parallel = parallel
		}
		r := newPoolRig(b, 20*time.Millisecond, specs...)
		s := parseSuite(b, oneCase, r.cat)
		r.runner.Out = record.NewWriter(discard{})
		var elapsed time.Duration
		r.runner.OnProgress = func(p runner.Progress) { elapsed = p.Elapsed }
		ms, err := r.runner.CheckHosts(context.Background(), []string{"scripted-good"})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := r.runner.Run(context.Background(), runner.Config{Suite: s, Models: ms, Repeat: trials, AllRepeats: true}); err != nil {
			b.Fatal(err)
		}
		return trials / elapsed.Seconds()
	}
	var h1, h3 float64
	for range b.N {
		h1, h3 = rate(1), rate(3)
	}
	b.ReportMetric(h1, "trials/s@1host")
	b.ReportMetric(h3, "trials/s@3hosts")
	b.ReportMetric(h3/h1, "speedup")
	fmt.Fprintf(os.Stderr, "hosts speedup at 20ms/round, --parallel %d per host: 1 host %.1f trials/s, 3 hosts %.1f trials/s (%.2fx)\n", parallel, h1, h3, h3/h1)
}
