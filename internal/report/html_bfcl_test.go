package report

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/record"
)

// bfclPage renders the HTML report of trials and returns its overview
// block's BFCL section as the page reads it (nil when the block has none),
// and the page.
func bfclPage(t *testing.T, trials []*record.Trial) (map[string]json.RawMessage, *htmlBFCL, []byte) {
	t.Helper()
	h := NewHTML(&record.Run{Suite: record.RunSuite{Name: "bfcl"}}, &HTMLOptions{TempDir: t.TempDir()})
	for _, tr := range trials {
		h.Add(tr)
	}
	var b bytes.Buffer
	if err := h.Write(&b); err != nil {
		t.Fatal(err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(pageData(t, b.Bytes())["overview"], &raw); err != nil {
		t.Fatal(err)
	}
	if raw["bfcl"] == nil {
		return raw, nil, b.Bytes()
	}
	var d htmlBFCL
	if err := json.Unmarshal(raw["bfcl"], &d); err != nil {
		t.Fatal(err)
	}
	return raw, &d, b.Bytes()
}

// TestHTMLBFCLData: the page's BFCL section carries, per row, every
// category with BFCL's accuracy beside toolgrade's pass rate and the
// outcomes in their report order, then the leaderboard's summary columns,
// null (N/A on the page) where a category they need was not run.
func TestHTMLBFCLData(t *testing.T) {
	trials := bfclTrials()
	// A second model that ran simple only: every summary column N/A.
	for _, tr := range bfclTrials()[:5] {
		tr.Model = "n"
		trials = append(trials, tr)
	}
	raw, d, _ := bfclPage(t, trials)
	if d == nil || len(d.Rows) != 2 || d.Note != bfclNote {
		t.Fatalf("BFCL section = %s", raw["bfcl"])
	}
	m, n := d.Rows[0], d.Rows[1]
	if m.Label != "m" || n.Label != "n" || len(m.Categories) != 13 || len(n.Categories) != 1 {
		t.Fatalf("rows: %+v", d.Rows)
	}
	simple := m.Categories[sliceIndexHTML(m.Categories, "simple")]
	if simple.Cases != 1 || simple.Accuracy.K != 3 || simple.Accuracy.N != 4 || simple.Pass.K != 3 || simple.Pass.N != 4 || simple.Infra != 1 {
		t.Errorf("simple = %+v", simple)
	}
	want := []htmlOutcome{{record.OutcomePass, 3}, {record.OutcomeWrongArgs, 1}, {record.OutcomeInfraError, 1}}
	if !slices.Equal(simple.Outcomes, want) {
		t.Errorf("simple's outcomes = %+v, want %+v", simple.Outcomes, want)
	}
	// BFCL's accuracy and toolgrade's pass differ where BFCL's verdict is
	// coarser: an irrelevance trial that answered without calling passes
	// BFCL whatever its answer.
	irr := m.Categories[sliceIndexHTML(m.Categories, "irrelevance")]
	if irr.Accuracy.K != 2 || irr.Pass.K != 1 || irr.Accuracy.N != 3 {
		t.Errorf("irrelevance = %+v", irr)
	}
	for name, tt := range map[string]struct {
		got  *float64
		want float64
	}{
		"non-live AST": {m.NonLiveAST, (0.75 + 0.5 + 1 + 0) / 4},
		"live":         {m.Live, 5.0 / 8},
		"irrelevance":  {m.Irrelevance, (2.0/3 + 1) / 2},
		"relevance":    {m.Relevance, 0.5},
	} {
		if tt.got == nil || math.Abs(*tt.got-tt.want) > 1e-12 {
			t.Errorf("m's %s = %v, want %v", name, tt.got, tt.want)
		}
	}
	// The page tells N/A by null: the keys are there, not left out.
	var rows []map[string]json.RawMessage
	var sec struct{ Rows json.RawMessage }
	json.Unmarshal(raw["bfcl"], &sec)
	if err := json.Unmarshal(sec.Rows, &rows); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"non_live_ast", "live", "irrelevance", "relevance"} {
		if v, ok := rows[1][k]; !ok || string(v) != "null" {
			t.Errorf("n's %s = %s (present %v), want null", k, v, ok)
		}
	}
}

// TestHTMLBFCLAbsent: a run with no BFCL-tagged case has no BFCL block, so
// the page draws no section.
func TestHTMLBFCLAbsent(t *testing.T) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(pageData(t, htmlPage(t, nil))["overview"], &raw); err != nil {
		t.Fatal(err)
	}
	if _, ok := raw["bfcl"]; ok {
		t.Errorf("a run without BFCL cases has a BFCL block: %s", raw["bfcl"])
	}
}

// TestHTMLBFCLHostileCategory: a category name is text from a suite; it
// reaches the page as JSON data only.
func TestHTMLBFCLHostileCategory(t *testing.T) {
	const hostile = "<img src=x onerror=alert(1)></script>"
	trials := bfclTrials()[:2]
	for _, tr := range trials {
		tr.Tags = []string{record.BFCLCategoryTag + hostile}
	}
	_, d, page := bfclPage(t, trials)
	if d == nil || len(d.Rows) != 1 || d.Rows[0].Categories[0].Category != hostile {
		t.Fatalf("BFCL section = %+v", d)
	}
	if strings.Contains(string(page), "<img") || bytes.Count(page, []byte("</script>")) != 3 {
		t.Errorf("the hostile category is in the page raw")
	}
}

func sliceIndexHTML(cs []htmlBFCLCategory, name string) int {
	for i, c := range cs {
		if c.Category == name {
			return i
		}
	}
	return -1
}
