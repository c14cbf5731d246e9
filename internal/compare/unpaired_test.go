package compare

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgrade/toolgrade/internal/store"
)

// TestUnpairedNotesSayWhy: the changed cases, and per group the cases one
// side alone ran, with why.
func TestUnpairedNotesSayWhy(t *testing.T) {
	base, err := store.Open("testdata/base")
	if err != nil {
		t.Fatal(err)
	}
	cur, err := store.Open("testdata/current")
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := Runs(base, cur, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"1 case not paired: changed since the baseline (question or expectation edited under the same id): f"}
	for _, g := range c.Groups {
		l := groupLabel(&g)
		want = append(want,
			l+": 1 case not paired, in the baseline only (this run did not run it): e",
			l+": 1 case not paired, in this run only (the baseline did not run it): g")
	}
	if diff := cmp.Diff(want, c.UnpairedNotes()); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
}
