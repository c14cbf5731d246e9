package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/redact"
)

// TestRunSpreadsOverSeveralOllamas: --ollama and --ollama-hosts together
// make a pool; the host without a model is named at start-up and runs none
// of its trials, every trial records its host, and run.json each model's
// hosts with their versions.
func TestRunSpreadsOverSeveralOllamas(t *testing.T) {
	t.Parallel()
	script, err := fakeollama.DemoScript()
	if err != nil {
		t.Fatal(err)
	}
	script.Models = slices.DeleteFunc(slices.Clone(script.Models), func(m fakeollama.Model) bool { return m.Name == "scripted-weak" })
	script.Rules = slices.DeleteFunc(slices.Clone(script.Rules), func(r fakeollama.Rule) bool { return r.Model == "scripted-weak" })
	_, u1 := fakeOllama(t, nil)
	_, u2 := fakeOllama(t, script)
	hosts := filepath.Join(t.TempDir(), "hosts")
	if err := os.WriteFile(hosts, []byte("# the second GPU box\n"+u2+" 2  # two at once\n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	r := runCLI(t, context.Background(), "run", docsSuite(t), "--out", dir, "--ollama", u1, "--ollama-hosts", hosts, "--repeat", "2")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	h1, h2 := redact.URL(u1), redact.URL(u2)
	if !strings.Contains(r.stderr, "Ollama at "+h2+" is not used for scripted-weak: model \"scripted-weak\" is not pulled") {
		t.Errorf("stderr does not say the host lacks the model:\n%s", r.stderr)
	}
	meta, err := record.ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(meta.Models) != 2 || len(meta.Models[0].Hosts) != 2 || len(meta.Models[1].Hosts) != 1 {
		t.Fatalf("run.json models: %+v", meta.Models)
	}
	// Each host with what it runs, its load time and the cost of its own
	// trials (scripted-weak's 50 all ran on h1).
	weak := meta.Models[1].Hosts[0]
	if (record.ModelHost{Host: weak.Host, Version: weak.Version, Digest: weak.Digest}) != (record.ModelHost{Host: h1, Version: fakeollama.DefaultVersion, Digest: meta.Models[1].Digest}) ||
		weak.Load <= 0 || weak.Cost == nil || weak.Cost.Loaded == nil || weak.Cost.Trials != 50 {
		t.Errorf("scripted-weak's host: %+v (cost %+v)", weak, weak.Cost)
	}
	by := map[string]int{}
	if err := readTrials(dir, os.Stderr, func(tr *record.Trial) { by[tr.Model+" "+tr.Host]++ }); err != nil {
		t.Fatal(err)
	}
	if by["scripted-weak "+h1] != 50 || by["scripted-weak "+h2] != 0 || by["scripted-good "+h1]+by["scripted-good "+h2] != 50 || by["scripted-good "+h2] == 0 {
		t.Errorf("trials by model and host: %v", by)
	}
}

// TestShardAndStopEarlyOverSeveralOllamas: a run over two Ollamas accepts
// --shard and --stop-early, once refused with several hosts: the shard's
// trials (and only they) run, spread over both hosts, and the stopping rule
// saves trials as it does on one host.
func TestShardAndStopEarlyOverSeveralOllamas(t *testing.T) {
	t.Parallel()
	_, u1 := fakeOllama(t, nil)
	_, u2 := fakeOllama(t, nil)
	// The trials each host ran; copies of an earlier repeat ran on none.
	hosts := func(dir string) map[string]int {
		by := map[string]int{}
		if err := readTrials(dir, os.Stderr, func(tr *record.Trial) {
			if !tr.IsCopy() {
				by[tr.Host]++
			}
		}); err != nil {
			t.Fatal(err)
		}
		return by
	}
	whole := filepath.Join(t.TempDir(), "whole")
	if r := runCLI(t, context.Background(), "run", docsSuite(t), "--out", whole, "--ollama", u1, "--ollama", u2, "--repeat", "2"); r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	shard := filepath.Join(t.TempDir(), "shard")
	r := runCLI(t, context.Background(), "run", docsSuite(t), "--out", shard, "--ollama", u1, "--ollama", u2, "--repeat", "2", "--shard", "1/2")
	if r.err != nil {
		t.Fatalf("--shard over two hosts: %v\n%s", r.err, r.stderr)
	}
	n, all := 0, 0
	for _, c := range hosts(shard) {
		n += c
	}
	for _, c := range hosts(whole) {
		all += c
	}
	if by := hosts(shard); n == 0 || n >= all || len(by) != 2 {
		t.Errorf("shard 1/2 over two hosts: %v trials by host, of %d in the whole run", by, all)
	}
	early := filepath.Join(t.TempDir(), "early")
	r = runCLI(t, context.Background(), "run", docsSuite(t), "--out", early, "--ollama", u1, "--ollama", u2, "--repeat", "20", "--stop-early")
	if r.err != nil && r.code != exitGate {
		t.Fatalf("--stop-early over two hosts: %v\n%s", r.err, r.stderr)
	}
	meta, err := record.ReadRun(early)
	if err != nil {
		t.Fatal(err)
	}
	if meta.StopEarly == nil || meta.StopEarly.TrialsSaved == 0 || len(hosts(early)) != 2 {
		t.Errorf("--stop-early over two hosts: stop_early %+v, trials by host %v", meta.StopEarly, hosts(early))
	}
}
