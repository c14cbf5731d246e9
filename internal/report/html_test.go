package report

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/compare"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/summary"
)

// htmlPage renders the fixture's HTML report.
func htmlPage(t *testing.T, edit func([]*record.Trial)) []byte {
	t.Helper()
	meta, trials := fixture(t)
	if edit != nil {
		edit(trials)
	}
	h := NewHTML(meta, &HTMLOptions{TempDir: t.TempDir()})
	for _, tr := range trials {
		h.Add(tr)
	}
	var b bytes.Buffer
	if err := h.Write(&b); err != nil {
		t.Fatal(err)
	}
	if dir := os.Getenv("TOOLGRADE_HTML_OUT"); dir != "" {
		os.WriteFile(filepath.Join(dir, t.Name()+".html"), b.Bytes(), 0o644)
	}
	return b.Bytes()
}

var dataBlock = regexp.MustCompile(`(?s)<script type="application/json" id="(overview|trials)">(.*?)</script>`)

// pageData returns the page's two JSON blocks by id.
func pageData(t *testing.T, page []byte) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, m := range dataBlock.FindAllSubmatch(page, -1) {
		out[string(m[1])] = m[2]
	}
	if len(out) != 2 {
		t.Fatalf("the page has %d data blocks, want overview and trials", len(out))
	}
	return out
}

func TestGoldenHTMLData(t *testing.T) {
	blocks := pageData(t, htmlPage(t, nil))
	var b bytes.Buffer
	for _, id := range []string{"overview", "trials"} {
		var v any
		if err := json.Unmarshal(blocks[id], &v); err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		out, _ := json.MarshalIndent(v, "", " ")
		b.Write(out)
		b.WriteByte('\n')
	}
	golden(t, "testdata/html-data.golden.json", b.Bytes())
}

// TestHTMLHostileAnswerStaysData puts markup into an answer, a tool result
// and a case id: none may appear raw in the page, and the JSON still holds
// the text exactly.
func TestHTMLHostileAnswerStaysData(t *testing.T) {
	const hostile = "<script>alert(1)</script><img src=x onerror=alert(1)></script><!--"
	page := htmlPage(t, func(ts []*record.Trial) {
		ts[0].Transcript.Answer = hostile
		ts[0].Transcript.Rounds[0].Executions[0].Result = hostile
		ts[1].CaseID = hostile
		ts[1].Tags = []string{hostile}
	})
	for _, raw := range []string{"<script>alert", "<img", "<!--", "onerror=alert(1)>"} {
		if bytes.Contains(page, []byte(raw)) {
			t.Errorf("the page holds %q raw", raw)
		}
	}
	if n := bytes.Count(page, []byte("</script>")); n != 3 {
		t.Errorf("the page closes %d script elements, want 3 (overview, trials, the viewer)", n)
	}
	var trials []map[string]any
	if err := json.Unmarshal(pageData(t, page)["trials"], &trials); err != nil {
		t.Fatal(err)
	}
	var answers, cases int
	for _, tr := range trials {
		if tr["a"] == hostile {
			answers++
		}
		if tr["c"] == hostile {
			cases++
		}
	}
	if answers != 1 || cases != 1 {
		t.Errorf("the trials block holds the hostile answer %d times and case %d times, want 1 and 1", answers, cases)
	}
}

func TestHTMLWithoutJavaScriptInData(t *testing.T) {
	page := string(htmlPage(t, nil))
	// The viewer draws with DOM calls: innerHTML or document.write of data
	// would parse it as markup.
	for _, bad := range []string{"innerHTML", "outerHTML", "document.write", "insertAdjacentHTML", "http://", "https://"} {
		// The SVG namespace is a name, never fetched.
		js := strings.ReplaceAll(pageJS, `"http://www.w3.org/2000/svg"`, "")
		if strings.Contains(js, bad) || strings.Contains(pageCSS, bad) {
			t.Errorf("the page's own code uses %q", bad)
		}
	}
	if !strings.Contains(page, "<title>toolgrade: docs</title>") {
		t.Errorf("the page's title is not the suite's")
	}
}

// TestHTMLHostileSuiteName: the suite's name is in the title (HTML text,
// escaped by html/template) and in the overview block (JSON).
func TestHTMLHostileSuiteName(t *testing.T) {
	meta, trials := fixture(t)
	meta.Suite.Name = `</title><script>alert(1)</script>`
	h := NewHTML(meta, &HTMLOptions{TempDir: t.TempDir()})
	h.Add(trials[0])
	var b bytes.Buffer
	if err := h.Write(&b); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if strings.Contains(page, "<script>alert") || strings.Contains(page, "</title><") {
		t.Errorf("the suite's name is in the page raw:\n%.600s", page)
	}
	if !strings.Contains(page, "<title>toolgrade: &lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;</title>") {
		t.Errorf("the title is not the escaped suite name:\n%.600s", page)
	}
}

func TestHTMLSpoolIsRemoved(t *testing.T) {
	dir := t.TempDir()
	meta, trials := fixture(t)
	h := NewHTML(meta, &HTMLOptions{TempDir: dir})
	for _, tr := range trials {
		h.Add(tr)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("%d spool files while adding, want 1", len(ents))
	}
	if err := h.Write(io.Discard); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("Write left %d files in the spool folder", len(ents))
	}
}

// TestWriteCompareHTML: a comparison alone renders the same page, its
// overview block holding the comparison and no summary, its trials none.
func TestWriteCompareHTML(t *testing.T) {
	for _, mode := range []string{compare.ModeRuns, compare.ModeModels, compare.ModeVariants} {
		c := comparison(t, mode)
		var b bytes.Buffer
		if err := WriteCompareHTML(&b, c); err != nil {
			t.Fatal(err)
		}
		blocks := pageData(t, b.Bytes())
		var d struct {
			Summary     *summary.Summary      `json:"summary"`
			Comparisons []*compare.Comparison `json:"comparisons"`
		}
		if err := json.Unmarshal(blocks["overview"], &d); err != nil {
			t.Fatal(err)
		}
		if d.Summary != nil || len(d.Comparisons) != 1 || len(d.Comparisons[0].Groups) != len(c.Groups) || d.Comparisons[0].Mode != mode {
			t.Errorf("%s: the page holds %+v", mode, d)
		}
		if got := strings.TrimSpace(string(blocks["trials"])); got != "[\n]" && got != "[]" {
			t.Errorf("%s: a comparison page embeds trials: %.100s", mode, got)
		}
	}
}
