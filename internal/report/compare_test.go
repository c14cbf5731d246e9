package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/compare"
	"github.com/toolgrade/toolgrade/internal/metric"
	"github.com/toolgrade/toolgrade/internal/stats"
	"github.com/toolgrade/toolgrade/internal/store"
)

// fixture is internal/compare's recorded pair of runs.
const compareFixture = "../compare/testdata/"

func comparison(t *testing.T, mode string) *compare.Comparison {
	t.Helper()
	base, err := store.Open(compareFixture + "base")
	if err != nil {
		t.Fatal(err)
	}
	var c *compare.Comparison
	switch mode {
	case compare.ModeRuns:
		cur, err := store.Open(compareFixture + "current")
		if err != nil {
			t.Fatal(err)
		}
		c, _, err = compare.Runs(base, cur, nil)
	case compare.ModeModels:
		c, _, err = compare.Models(base, "m", "n", nil)
	case compare.ModeVariants:
		c, _, err = compare.Variants(base, "base", "terse", nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCompareGolden(t *testing.T) {
	for _, mode := range []string{compare.ModeRuns, compare.ModeModels, compare.ModeVariants} {
		t.Run(mode, func(t *testing.T) {
			c := comparison(t, mode)
			var b bytes.Buffer
			if err := WriteCompareTerminal(&b, c); err != nil {
				t.Fatal(err)
			}
			golden(t, gallery+"compare-"+mode+".txt", b.Bytes())
			b.Reset()
			if err := WriteCompareJSON(&b, c); err != nil {
				t.Fatal(err)
			}
			golden(t, gallery+"compare-"+mode+".json", b.Bytes())
		})
	}
}

// Text a model or server wrote is escaped in the terminal comparison.
func TestCompareTerminalEscapes(t *testing.T) {
	c := comparison(t, compare.ModeRuns)
	c.Groups[0].Cases[0].Detail = "\x1b[2Jgone"
	c.Catalog[0].Current = "\u202eevil"
	var b bytes.Buffer
	if err := WriteCompareTerminal(&b, c); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b.Bytes(), []byte("\x1b")) || bytes.Contains(b.Bytes(), []byte("\u202e")) || !bytes.Contains(b.Bytes(), []byte(`\x1b[2Jgone`)) {
		t.Errorf("not escaped:\n%s", b.String())
	}
}

// TestCompareSaysWhyValidityDiffers: compare pairs trials, so it judges
// argument validity per trial, while run's table counts calls; when the two
// read differently the comparison says why in one line, with run's count.
func TestCompareSaysWhyValidityDiffers(t *testing.T) {
	c := comparison(t, compare.ModeModels)
	g := &c.Groups[0]
	for i := range g.Rates {
		if g.Rates[i].Metric == metric.ArgValidity {
			g.Rates[i].Rate = compare.SidePair[stats.Rate]{Base: stats.Rate{K: 2, N: 2}, Current: stats.Rate{K: 1, N: 2}}
			g.Rates[i].ByCall = &compare.SidePair[stats.Rate]{Base: stats.Rate{K: 6, N: 6}, Current: stats.Rate{K: 5, N: 6}}
		}
	}
	var b bytes.Buffer
	if err := WriteCompareTerminal(&b, c); err != nil {
		t.Fatal(err)
	}
	want := "arg_validity here judges trials (valid when all their calls were), to pair them; run's table counts calls: 100% (6/6 calls) → 83% (5/6 calls)\n"
	if n := strings.Count(b.String(), want); n != 1 {
		t.Errorf("the line saying why arg_validity differs from run's appears %d times, want once:\n%s", n, b.String())
	}
	// Where both counts read the same, nothing is said.
	b.Reset()
	if err := WriteCompareTerminal(&b, comparison(t, compare.ModeModels)); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "judges trials") {
		t.Errorf("the same percentages are explained:\n%s", b.String())
	}
}
