package reports

import (
	"bytes"
	"testing"

	"github.com/toolgrade/toolgrade/internal/compare"
	"github.com/toolgrade/toolgrade/internal/store"
)

// fixture is internal/compare's recorded pair of runs.
const compareFixture = "../internal/compare/testdata/"

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
			golden(t, "compare-"+mode+".golden", b.Bytes())
			b.Reset()
			if err := WriteCompareJSON(&b, c); err != nil {
				t.Fatal(err)
			}
			golden(t, "compare-"+mode+".golden.json", b.Bytes())
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
