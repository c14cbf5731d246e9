package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	gmhtml "github.com/yuin/goldmark/renderer/html"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/stats"
	"github.com/toolgrade/toolgrade/internal/summary"
	"github.com/toolgrade/toolgrade/internal/termtext"
)

func TestGoldenMarkdown(t *testing.T) {
	meta, trials := fixture(t)
	var b bytes.Buffer
	if err := WriteMarkdown(&b, summarize(meta, trials), &MarkdownOptions{Run: "runs/20260301-demo"}); err != nil {
		t.Fatal(err)
	}
	golden(t, gallery+"run.md", b.Bytes())
}

// tableRows returns the rows of the Markdown table whose header's first cell
// is first: each row split on its unescaped pipes, the delimiter row left
// out.
func tableRows(t *testing.T, md, first string) [][]string {
	t.Helper()
	var rows [][]string
	in := false
	for _, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(line, "|") {
			if in {
				break
			}
			continue
		}
		cells := splitRow(line)
		if !in {
			if cells[0] != first {
				continue
			}
			in = true
		}
		if strings.HasPrefix(cells[0], "---") {
			continue
		}
		rows = append(rows, cells)
	}
	if len(rows) == 0 {
		t.Fatalf("no table headed %q in\n%s", first, md)
	}
	return rows
}

// splitRow splits a table row on the pipes that are not escaped, as GitHub
// does.
func splitRow(line string) []string {
	var cells []string
	var cur strings.Builder
	for i := 1; i < len(line); i++ {
		switch {
		case line[i] == '\\' && i+1 < len(line):
			cur.WriteByte(line[i])
			cur.WriteByte(line[i+1])
			i++
		case line[i] == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(line[i])
		}
	}
	return cells
}

// jsonRate is a rate as summary.json writes it, read without stats.Rate so
// that the test does not check the renderer against itself.
type jsonRate struct {
	K, N          int
	Value, Lo, Hi float64
}

var percentCell = regexp.MustCompile(`^(\d+)% \[(\d+)–(\d+)\]$`)

// checkPercent checks that a cell shows r: the value to a whole percent and
// the interval rounded outwards.
func checkPercent(t *testing.T, where, cell string, r jsonRate) {
	t.Helper()
	if r.N == 0 {
		if cell != "–" {
			t.Errorf("%s: %q for an empty rate", where, cell)
		}
		return
	}
	m := percentCell.FindStringSubmatch(cell)
	if m == nil {
		t.Errorf("%s: %q is not a rate", where, cell)
		return
	}
	v, _ := strconv.Atoi(m[1])
	lo, _ := strconv.Atoi(m[2])
	hi, _ := strconv.Atoi(m[3])
	if v != int(math.Round(100*r.Value)) || lo != int(math.Floor(100*r.Lo)) || hi != int(math.Ceil(100*r.Hi)) {
		t.Errorf("%s: %q, summary.json has %+v", where, cell, r)
	}
}

// TestMarkdownFiguresEqualSummaryJSON parses the Markdown report and
// summary.json of the recorded run and checks every figure of one against
// the other.
func TestMarkdownFiguresEqualSummaryJSON(t *testing.T) {
	meta, trials := fixture(t)
	sum := summarize(meta, trials)
	var md, js bytes.Buffer
	if err := WriteMarkdown(&md, sum, nil); err != nil {
		t.Fatal(err)
	}
	if err := summary.WriteJSON(&js, sum); err != nil {
		t.Fatal(err)
	}
	var parsed struct {
		Models []struct {
			Model       string
			Scored      int
			Pass        jsonRate
			Selection   jsonRate `json:"tool_selection"`
			ArgValidity jsonRate `json:"arg_validity"`
			ArgAccuracy jsonRate `json:"arg_accuracy"`
			Irrelevance jsonRate
			RoundLimit  jsonRate `json:"round_limit"`
			FailedCall  jsonRate `json:"failed_call"`
			RoundsMean  float64  `json:"rounds_mean"`
			Cases       []struct {
				ID   string
				Pass jsonRate
			}
			Failures []struct {
				Outcome string
				Count   int
			}
		}
	}
	if err := json.Unmarshal(js.Bytes(), &parsed); err != nil {
		t.Fatal(err)
	}
	text := md.String()

	models := tableRows(t, text, "Model")
	if len(models) != 1+len(parsed.Models) {
		t.Fatalf("model table has %d rows, summary.json %d models", len(models)-1, len(parsed.Models))
	}
	for i, m := range parsed.Models {
		row := models[i+1]
		if row[0] != mdText(m.Model) || row[1] != strconv.Itoa(m.Scored) || row[9] != fmt.Sprintf("%.2f", m.RoundsMean) {
			t.Errorf("row %v, summary.json %s %d trials %.2f rounds", row, m.Model, m.Scored, m.RoundsMean)
		}
		for j, r := range []jsonRate{m.Pass, m.Selection, m.ArgValidity, m.ArgAccuracy, m.Irrelevance, m.RoundLimit, m.FailedCall} {
			checkPercent(t, m.Model+" "+models[0][2+j], row[2+j], r)
		}
	}

	cases := tableRows(t, text, "Case")
	for i, m := range parsed.Models {
		if cases[0][i+1] != mdText(m.Model) {
			t.Errorf("column %d is %q, want %q", i+1, cases[0][i+1], m.Model)
		}
		if len(cases)-1 != len(m.Cases) {
			t.Fatalf("%d case rows, %s has %d cases", len(cases)-1, m.Model, len(m.Cases))
		}
		for j, c := range m.Cases {
			row := cases[j+1]
			want := fmt.Sprintf("%d/%d", c.Pass.K, c.Pass.N)
			if row[0] != mdText(c.ID) || !strings.HasSuffix(row[i+1], want) {
				t.Errorf("%s × %s: %q, summary.json %s", row[0], m.Model, row[i+1], want)
			}
		}
	}

	for _, m := range parsed.Models {
		for _, g := range m.Failures {
			if want := fmt.Sprintf("- `%s`: %d\n", g.Outcome, g.Count); !strings.Contains(text[strings.Index(text, "#### "+mdText(m.Model)+"\n"):], want) {
				t.Errorf("%s: no line %q", m.Model, want)
			}
		}
	}
}

// TestMarkdownEscapesHostileText renders names and details that try to break
// the tables or inject HTML, and checks that every table keeps its columns
// and no markup gets through.
func TestMarkdownEscapesHostileText(t *testing.T) {
	hostile := []string{
		"a|b",
		"<script>alert(1)</script>",
		"two\nlines",
		"`code` and ``more``",
		"<img src=x onerror=alert(1)>",
		"&lt;b&gt; entity",
		"esc\x1b[2Jape\r\x00",
		"right\u202eleft",
		"**bold** _em_ [link](http://x) ![img](http://x)",
		"back\\|slash",
		"| --- |",
	}
	for _, h := range hostile {
		t.Run(fmt.Sprintf("%q", h), func(t *testing.T) {
			s := summary.NewSummarizer(h, []record.Model{{Name: h}, {Name: "ok"}})
			for _, model := range []string{h, "ok"} {
				for r, o := range []string{record.OutcomePass, record.OutcomeWrongTool} {
					tr := trial(model, h, r, o, true)
					tr.Score.Detail = h + "\n" + h
					tr.Tags = []string{h}
					s.Add(tr)
				}
			}
			var b bytes.Buffer
			if err := WriteMarkdown(&b, s.Summary(), &MarkdownOptions{Run: h, Status: h}); err != nil {
				t.Fatal(err)
			}
			md := b.String()
			for _, bad := range []string{"<script", "<img", "</", "\x1b", "\r", "\x00", "\u202e"} {
				if strings.Contains(md, bad) {
					t.Errorf("the report holds %q:\n%s", bad, md)
				}
			}
			if strings.Contains(strings.ReplaceAll(md, "<br>", ""), "<") {
				t.Errorf("raw < other than <br>:\n%s", md)
			}
			if strings.Count(md, "&lt;b&gt;") > 0 && !strings.Contains(md, "&amp;lt;b&amp;gt;") {
				t.Errorf("an entity got through:\n%s", md)
			}
			for first, n := range map[string]int{"Model": 3, "Case": 2} {
				rows := tableRows(t, md, first)
				for _, row := range rows {
					if len(row) != len(rows[0]) {
						t.Errorf("row %q has %d cells, the header %d:\n%s", row, len(row), len(rows[0]), md)
					}
				}
				if len(rows) != n {
					t.Errorf("table %s has %d rows, want %d:\n%s", first, len(rows), n, md)
				}
			}
			checkRendered(t, md, h)
			// Every line that is not a table's starts as the renderer
			// started it: no name opened a heading, quote, list or fence.
			for _, line := range strings.Split(md, "\n") {
				if strings.HasPrefix(line, "```") || strings.HasPrefix(line, "<") {
					t.Errorf("line %q", line)
				}
			}
		})
	}
}

func TestMarkdownMarksPartialRuns(t *testing.T) {
	s := summary.NewSummarizer("docs", nil)
	s.Add(trial("m", "a", 0, record.OutcomePass, true))
	for _, tt := range []struct {
		status  string
		partial bool
	}{{"", false}, {"complete", false}, {"interrupted", true}, {"failed", true}} {
		var b bytes.Buffer
		if err := WriteMarkdown(&b, s.Summary(), &MarkdownOptions{Status: tt.status}); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(b.String(), "Partial results: the run is "+tt.status); got != tt.partial {
			t.Errorf("status %q: partial %v, want %v:\n%s", tt.status, got, tt.partial, b.String())
		}
	}
}

// TestMarkdownVariantColumns: with variants, the matrix has a column per
// model × variant, named as the model table names the rows.
func TestMarkdownVariantColumns(t *testing.T) {
	s := summary.NewSummarizer("docs", nil)
	for _, v := range []string{"", "terse"} {
		tr := trial("m", "a", 0, record.OutcomePass, true)
		tr.Variant = v
		s.Add(tr)
	}
	tr := trial("m", "a", 1, record.OutcomeWrongTool, true)
	tr.Variant = "terse"
	s.Add(tr)
	var b bytes.Buffer
	if err := WriteMarkdown(&b, s.Summary(), nil); err != nil {
		t.Fatal(err)
	}
	rows := tableRows(t, b.String(), "Case")
	want := [][]string{{"Case", "m (base)", "m (terse)"}, {"a", "✅ 1/1", "❌ 1/2"}}
	if fmt.Sprint(rows) != fmt.Sprint(want) {
		t.Errorf("matrix %q, want %q", rows, want)
	}
}

var (
	trRE   = regexp.MustCompile(`(?s)<tr>(.*?)</tr>`)
	cellRE = regexp.MustCompile(`(?s)<t[hd][^>]*>(.*?)</t[hd]>`)
	tagRE  = regexp.MustCompile(`<[^>]*>`)
)

// checkRendered renders md as GitHub does (GFM, by goldmark), letting raw
// HTML through as a careless renderer would, and checks that no element
// came from the text, that every table row has its header's cells, and that
// the model's column shows name exactly when it holds nothing to escape.
func checkRendered(t *testing.T, md, name string) {
	t.Helper()
	var out bytes.Buffer
	gm := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(gmhtml.WithUnsafe()))
	if err := gm.Convert([]byte(md), &out); err != nil {
		t.Fatal(err)
	}
	page := out.String()
	for _, tag := range tagRE.FindAllString(page, -1) {
		switch strings.Fields(strings.Trim(tag, "</>"))[0] {
		case "h2", "h3", "h4", "p", "table", "thead", "tbody", "tr", "th", "td", "ul", "li", "code", "br", "blockquote", "a", "strong":
		default:
			t.Errorf("element %s in the rendered report:\n%s", tag, page)
		}
	}
	if strings.Contains(page, "<a") && !strings.Contains(name, "http") {
		t.Errorf("a link from nowhere:\n%s", page)
	}
	tables := strings.Split(page, "<table>")[1:]
	if len(tables) != 2 {
		t.Fatalf("%d tables rendered, want 2:\n%s", len(tables), page)
	}
	for _, table := range tables {
		rows := trRE.FindAllStringSubmatch(table[:strings.Index(table, "</table>")], -1)
		for _, row := range rows {
			if n, want := len(cellRE.FindAllString(row[1], -1)), len(cellRE.FindAllString(rows[0][1], -1)); n != want {
				t.Errorf("rendered row has %d cells, the header %d: %s", n, want, row[1])
			}
		}
		first := cellRE.FindAllStringSubmatch(rows[1][1], -1)[0][1]
		shown := html.UnescapeString(tagRE.ReplaceAllString(first, ""))
		if strings.IndexFunc(name, func(r rune) bool { return r == '\n' || termtext.Unsafe(r) }) < 0 && shown != name {
			t.Errorf("the first cell shows %q, want %q", shown, name)
		}
	}
}

// TestCaseCellJudged: a case's cell gives its judged answers beside its
// passes, and only when the judge gave a verdict.
func TestCaseCellJudged(t *testing.T) {
	c := summary.CaseResult{Pass: stats.Rate{K: 2, N: 2}}
	if got := caseCell(&c); got != "✅ 2/2" {
		t.Errorf("unjudged cell %q", got)
	}
	c.Judged = &stats.Rate{K: 1, N: 2}
	if got := caseCell(&c); got != "✅ 2/2 · judged 1/2" {
		t.Errorf("judged cell %q", got)
	}
}
