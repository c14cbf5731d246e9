package runner_test

import (
	"context"
	"testing"

	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/runner"
)

// TestTheLoadedModelsMemoryIsRecorded: once a model is loaded, what /api/ps
// lists for it (its memory, the part on the GPU, its context) is the
// model's cost, beside its load time.
func TestTheLoadedModelsMemoryIsRecorded(t *testing.T) {
	script := &fakeollama.Script{Models: []fakeollama.Model{{Name: "scripted-good", ParameterSize: "8B", GPU: true}}}
	r := newRig(t, script, nil, nil, "docs")
	s := parseSuite(t, oneCase, r.cat)
	var got []record.Model
	r.runner.OnModel = func(m record.Model) { got = append(got, m) }
	if _, err := r.runner.Run(context.Background(), runner.Config{Suite: s, Models: models(t, r, "scripted-good")}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Cost == nil || got[0].Cost.Loaded == nil {
		t.Fatalf("models %+v: want a cost with what /api/ps listed", got)
	}
	l := got[0].Cost.Loaded
	if l.Size < 4e9 || l.SizeVRAM != l.Size || l.ContextLength != 8192 || got[0].Load <= 0 {
		t.Errorf("loaded %+v, load %v: want an 8B model's few GB, all in VRAM, at 8192", l, got[0].Load)
	}
}

// TestEachHostsMemoryAndLoadAreRecorded: with a pool, each host's load time
// and memory land in the model's hosts, and the model's own cost is the
// largest memory and VRAM of them (what the model asks of a machine).
func TestEachHostsMemoryAndLoadAreRecorded(t *testing.T) {
	cpu := &fakeollama.Script{Models: []fakeollama.Model{{Name: "scripted-good", ParameterSize: "8B"}}}
	gpu := &fakeollama.Script{Models: []fakeollama.Model{{Name: "scripted-good", ParameterSize: "8B", GPU: true}}}
	r := newPoolRig(t, 0, hostSpec{script: cpu, parallel: 1}, hostSpec{script: gpu, parallel: 1})
	s := parseSuite(t, oneCase, r.cat)
	ms, err := r.runner.CheckHosts(context.Background(), []string{"scripted-good"})
	if err != nil {
		t.Fatal(err)
	}
	ran, err := r.runner.Run(context.Background(), runner.Config{Suite: s, Models: ms, Repeat: 4})
	if err != nil {
		t.Fatal(err)
	}
	if ms[0].Hosts[0].Cost != nil {
		t.Errorf("the caller's models were changed: %+v", ms[0].Hosts)
	}
	m := ran[0]
	if len(m.Hosts) != 2 || m.Cost == nil || m.Cost.Loaded == nil {
		t.Fatalf("model %+v", m)
	}
	for i, h := range m.Hosts {
		if h.Load <= 0 || h.Load > m.Load || h.Cost == nil || h.Cost.Loaded == nil || h.Cost.Loaded.Size != m.Cost.Loaded.Size {
			t.Errorf("host %d: %+v (model load %v, cost %+v)", i, h, m.Load, m.Cost.Loaded)
		}
	}
	if m.Hosts[0].Cost.Loaded.SizeVRAM != 0 || m.Hosts[1].Cost.Loaded.SizeVRAM == 0 {
		t.Errorf("VRAM of the CPU and GPU hosts: %+v / %+v", m.Hosts[0].Cost.Loaded, m.Hosts[1].Cost.Loaded)
	}
	if m.Cost.Loaded.SizeVRAM != m.Hosts[1].Cost.Loaded.SizeVRAM {
		t.Errorf("the model's VRAM %d, want the GPU host's %d", m.Cost.Loaded.SizeVRAM, m.Hosts[1].Cost.Loaded.SizeVRAM)
	}
}
