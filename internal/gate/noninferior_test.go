package gate

import (
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/compare"
	"github.com/toolgrade/toolgrade/internal/gate/expr"
	"github.com/toolgrade/toolgrade/internal/store"
	"github.com/toolgrade/toolgrade/internal/summary"
)

func mustGate(t *testing.T, s string) expr.Gate {
	t.Helper()
	g, err := expr.ParseOne(s)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// On the recorded runs, m → n loses two of twelve pass pairs, in two of six
// cases whose two repeats agree: not shown within 5 points (the gate fails,
// saying the interval, the cases and the verdict), and shown within 60 (it
// holds); 6 cases could not show it within 50. The comparison's own margin does not matter.
func TestNonInferiorGate(t *testing.T) {
	r, err := store.Open("../compare/testdata/base")
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := compare.Models(r, "m", "n", nil)
	if err != nil {
		t.Fatal(err)
	}
	gates := []expr.Gate{mustGate(t, "noninferior(pass, 5pts)"), mustGate(t, "pass>=0.5"), mustGate(t, "n:noninferior(pass, 60pts)"),
		mustGate(t, "m:noninferior(pass, 5pts)"), mustGate(t, "@terse:noninferior(arg_accuracy, 50%)")}
	rs := NonInferior(c, gates)
	if len(rs) != 6 {
		t.Fatalf("%d results, want 2 + 2 + 1 + 1 (the rate gate is Check's): %v", len(rs), rs)
	}
	want := []struct {
		held bool
		line string
	}{
		{false, "n vs m pass within 5 pts: -16.7 pts [-56.4, +28.9] over 6 cases (12 trials, repeats agree on 6 of 6 cases): undecided: need more cases (the observed loss exceeds 5 pts)"},
		{false, "n vs m @terse pass within 5 pts: -16.7 pts [-56.4, +28.9] over 6 cases (12 trials, repeats agree on 6 of 6 cases): undecided"},
		{true, "n vs m pass within 60 pts: -16.7 pts [-56.4, +28.9] over 6 cases (12 trials, repeats agree on 6 of 6 cases): not worse by more than 60 pts"},
		{true, "n vs m @terse pass within 60 pts"},
		{false, "m pass within 5 pts: nothing to judge: the comparison has no group for m (it judges n against m)"},
		{true, "n vs m @terse arg_accuracy within 50 pts: +0.0 pts"},
	}
	for i, w := range want {
		if rs[i].Held != w.held || !strings.HasPrefix(rs[i].String(), w.line) {
			t.Errorf("result %d: held %v, %q\nwant held %v, %q", i, rs[i].Held, rs[i].String(), w.held, w.line)
		}
	}
	// A run's summary alone cannot judge one: it fails, saying where it goes.
	rc := Check(&summary.Summary{}, gates[:1], OnPoint)
	if len(rc) != 1 || rc[0].Held || !strings.Contains(rc[0].String(), "give it to toolgrade compare --gate") {
		t.Errorf("Check: %v", rc)
	}
}
