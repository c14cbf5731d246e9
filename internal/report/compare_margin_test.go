package report

import (
	"bytes"
	"testing"

	"github.com/toolgrade/toolgrade/internal/compare"
	"github.com/toolgrade/toolgrade/internal/store"
)

// TestCompareMarginGolden: with a margin, each group gains its
// non-inferiority table beside the rates, the JSON each rate's verdict, and
// the page a line per rate; without one, nothing changes (the goldens of
// TestCompareGolden).
func TestCompareMarginGolden(t *testing.T) {
	base, err := store.Open(compareFixture + "base")
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := compare.Models(base, "m", "n", &compare.Options{Margin: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteCompareTerminal(&b, c); err != nil {
		t.Fatal(err)
	}
	golden(t, gallery+"compare-models-margin.txt", b.Bytes())
	b.Reset()
	if err := WriteCompareJSON(&b, c); err != nil {
		t.Fatal(err)
	}
	golden(t, gallery+"compare-models-margin.json", b.Bytes())
}

// TestPlanGolden: a plan from the recorded pilot and one from stated rates,
// as the terminal shows them, and the pilot's as JSON.
func TestPlanGolden(t *testing.T) {
	pilot, err := compare.NewPlan(&compare.PlanSpec{Dirs: []string{compareFixture + "base"}, Models: "m,n", Margin: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	stated, err := compare.NewPlan(&compare.PlanSpec{Rates: "0.92,0.9", Discordance: "0.1", Margin: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for _, p := range []*compare.Plan{pilot, stated} {
		if err := WritePlanTerminal(&b, p); err != nil {
			t.Fatal(err)
		}
	}
	golden(t, gallery+"plan.txt", b.Bytes())
	b.Reset()
	if err := WritePlanJSON(&b, pilot); err != nil {
		t.Fatal(err)
	}
	golden(t, gallery+"plan.json", b.Bytes())
}
