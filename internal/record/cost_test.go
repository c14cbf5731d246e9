package record

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestARedescribedModelKeepsWhatWasMeasured: a resume describes each model
// anew before loading it; until it is loaded again, the load time and cost
// an earlier session measured stay, the model's and each host's.
func TestARedescribedModelKeepsWhatWasMeasured(t *testing.T) {
	loaded := &Cost{Loaded: &Loaded{Size: 5e9}, Trials: 10}
	old := Model{Name: "m", Digest: "d1", Load: time.Second, Cost: loaded,
		Hosts: []ModelHost{{Host: "a", Load: time.Second, Cost: loaded}, {Host: "b"}}}
	now := Model{Name: "m", Digest: "d1", NumCtx: 8192, Hosts: []ModelHost{{Host: "a"}, {Host: "b", Load: 2 * time.Second}}}
	got := old.Updated(now)
	if got.NumCtx != 8192 || got.Load != time.Second || got.Cost != loaded ||
		got.Hosts[0].Load != time.Second || got.Hosts[0].Cost != loaded || got.Hosts[1].Load != 2*time.Second || got.Hosts[1].Cost != nil {
		t.Errorf("updated: %+v", got)
	}
	if now.Hosts[0].Cost != nil {
		t.Error("Updated changed its argument's hosts")
	}
	// Measured again, the new measures replace the old.
	fresh := &Cost{Loaded: &Loaded{Size: 6e9}}
	if got := old.Updated(Model{Name: "m", Load: 3 * time.Second, Cost: fresh}); got.Load != 3*time.Second || got.Cost != fresh || len(got.Hosts) != 2 {
		t.Errorf("measured again: %+v", got)
	}
}

// TestMeasuresKeepWhatPsReported: the measures of a run's trials replace the
// earlier ones and keep the memory /api/ps listed, per model and per host.
func TestMeasuresKeepWhatPsReported(t *testing.T) {
	l := &Loaded{Size: 5e9, SizeVRAM: 5e9, ContextLength: 8192}
	m := Model{Name: "m", Cost: &Cost{Loaded: l, Trials: 3}, Hosts: []ModelHost{{Host: "a", Cost: &Cost{Loaded: l}}, {Host: "b"}}}
	got := m.WithMeasures(&Cost{Trials: 10, P50: time.Second}, map[string]*Cost{"a": {Trials: 6}, "b": {Trials: 4}})
	if got.Cost.Loaded != l || got.Cost.Trials != 10 || got.Cost.P50 != time.Second ||
		got.Hosts[0].Cost.Loaded != l || got.Hosts[0].Cost.Trials != 6 || got.Hosts[1].Cost.Loaded != nil || got.Hosts[1].Cost.Trials != 4 {
		t.Errorf("%+v", got)
	}
	if m.Cost.Trials != 3 || m.Hosts[0].Cost.Trials != 0 {
		t.Error("WithMeasures changed m")
	}
	if s := (&Cost{Trials: 4, Truncated: 1}).TruncatedShare(); s != 0.25 {
		t.Errorf("share %v", s)
	}
	if s := (*Cost)(nil).TruncatedShare(); s != 0 {
		t.Errorf("nil share %v", s)
	}
}

// TestAnOlderRunJSONWithoutCostsReads: run.json of format 1.3 has no cost:
// it reads with none.
func TestAnOlderRunJSONWithoutCostsReads(t *testing.T) {
	dir := t.TempDir()
	text := `{"format":"1.3","models":[{"name":"m","capabilities":["tools"],"load_ns":5,"hosts":[{"host":"a"}]}],"status":"complete"}`
	if err := os.WriteFile(filepath.Join(dir, RunFile), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := ReadRun(dir)
	if err != nil || len(r.Models) != 1 || r.Models[0].Cost != nil || r.Models[0].Hosts[0].Cost != nil || r.Models[0].Load != 5 {
		t.Errorf("%+v %v", r, err)
	}
}
