package choose

import (
	"fmt"
	"strings"

	"github.com/toolgrade/toolgrade/internal/record"
)

// What the cost columns rest on: weights that two names share, a memory
// that was not measured and why, and an order of trials that leaves
// latency confounded with time.

// memory fills in each row whose memory run.json lacks from a model with
// the same weights (one digest) that has it, as Ollama lists those weights
// once, and returns a warning for each row still without it that says why.
func memory(rows []Row, run *record.Run) (notes []string, missing []string) {
	models := map[string]*record.Model{}
	for i := range run.Models {
		models[run.Models[i].Name] = &run.Models[i]
	}
	measured := func(m *record.Model) bool {
		return m != nil && m.Cost != nil && m.Cost.Loaded != nil && m.Cost.Loaded.Size > 0
	}
	anyCost := false
	for _, m := range models {
		anyCost = anyCost || m.Cost != nil
	}
	for i := range rows {
		r, m := &rows[i], models[rows[i].Model]
		if r.Cost.Size > 0 {
			continue
		}
		if twin := sameWeights(run.Models, m, measured); twin != nil {
			r.Cost.Size, r.Cost.SizeVRAM = twin.Cost.Loaded.Size, twin.Cost.Loaded.SizeVRAM
			notes = append(notes, fmt.Sprintf("%s's memory is %s's: the same weights, which Ollama loads and lists once", r.Model, twin.Name))
			continue
		}
		missing = append(missing, r.Model+": "+memoryCause(m, anyCost))
	}
	return notes, missing
}

// sameWeights is another model of models with m's digest that ok accepts;
// nil when none is.
func sameWeights(models []record.Model, m *record.Model, ok func(*record.Model) bool) *record.Model {
	if m == nil || m.Digest == "" {
		return nil
	}
	for i := range models {
		o := &models[i]
		if o.Name != m.Name && o.Digest == m.Digest && ok(o) {
			return o
		}
	}
	return nil
}

// memoryCause says why run.json has no memory for m.
func memoryCause(m *record.Model, anyCost bool) string {
	switch {
	case !anyCost:
		return "a run recorded before toolgrade measured memory"
	case m == nil || m.Load == 0:
		return "it was never loaded in this run (it stopped first, or another shard ran it)"
	}
	return "Ollama's /api/ps did not list it after its warm-up (it unloaded it at once, or this Ollama does not say)"
}

// memoryWarning is the warning of a choice ordered by p50 because some
// rows have no memory.
func memoryWarning(missing []string) string {
	return "run.json does not say how much memory every model took (" + strings.Join(missing, "; ") + "): cost is ordered by p50 latency alone"
}

// fairness is what the reader must know of the run's cost comparisons: the
// models that are one weights under several names, and a latency measured
// in blocks, one model after another.
func fairness(run *record.Run) []string {
	out := record.SameWeights(run.Models)
	if run.CostConfounded() {
		out = append(out, record.ConfoundedNote)
	}
	return out
}
