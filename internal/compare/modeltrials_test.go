package compare

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/toolgrade/toolgrade/internal/record"
)

// countingSink counts the trials a read gives it, by key, and its resets,
// and how many came with judgements other than record.Judge's.
type countingSink struct {
	resets    int
	added     map[record.TrialKey]string
	misjudged int
}

func (s *countingSink) Reset() { s.resets++; clear(s.added) }
func (s *countingSink) Add(t *record.Trial, j record.Judgements) {
	if s.added == nil {
		s.added = map[record.TrialKey]string{}
	}
	s.added[t.Key()] = t.Score.Outcome
	if !reflect.DeepEqual(j, record.Judge(t)) {
		s.misjudged++
	}
}

// One read of a resumed run (a key rerun, so the read starts over) kept by
// ModelTrials compares every pair of models as Models does, and a sink in
// Options.Current is given each trial key's last line once.
func TestModelTrialsAsModels(t *testing.T) {
	r := writeRun(t, baseRun(), []*record.Trial{
		trial("m", "", "a", 0, record.OutcomePass, sec),
		trial("n", "", "a", 0, record.OutcomeInfraError, sec),
		trial("o", "", "a", 0, record.OutcomeNoCall, sec),
		trial("m", "", "b", 0, record.OutcomeWrongArgs, sec),
		trial("n", "", "b", 0, record.OutcomePass, sec),
		trial("n", "", "a", 0, record.OutcomeWrongTool, sec), // the rerun
	})
	kept := NewModelTrials(r, nil)
	sink := &countingSink{}
	if _, err := r.SlimTrials(kept.Reset, func(tr *record.Trial) { kept.Add(tr); sink.Add(tr, record.Judge(tr)) }); err != nil {
		t.Fatal(err)
	}
	for _, pair := range [][2]string{{"m", "n"}, {"m", "o"}, {"n", "m"}} {
		want, _, err := Models(r, pair[0], pair[1], &Options{Margin: 0.05})
		if err != nil {
			t.Fatal(err)
		}
		got, err := kept.Models(pair[0], pair[1], &Options{Margin: 0.05})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(want, got) {
			w, _ := json.Marshal(want)
			g, _ := json.Marshal(got)
			t.Errorf("%v: kept differs from Models:\n%s\n---\n%s", pair, w, g)
		}
	}
	if _, err := kept.Models("m", "zz", nil); err == nil {
		t.Error("a model with no trials is an error")
	}
	got := &countingSink{}
	if _, _, err := Models(r, "m", "n", &Options{Current: got}); err != nil {
		t.Fatal(err)
	}
	k := record.TrialKey{Model: "n", CaseID: "a"}
	if len(got.added) != 5 || got.added[k] != record.OutcomeWrongTool || got.resets != 1 || got.misjudged != 0 {
		t.Errorf("sink: %d resets, %v, %d misjudged; want 1 reset and the rerun of %v among 5 trials, each judged as record.Judge does", got.resets, got.added, got.misjudged, k)
	}
}
