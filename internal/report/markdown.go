package report

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/toolgrade/toolgrade/internal/summary"
	"github.com/toolgrade/toolgrade/internal/termtext"
)

// MarkdownOptions are what a Markdown report says about the run beyond its
// Summary. The zero value is a report of a complete run with no heading
// detail.
type MarkdownOptions struct {
	// Run names the run (its directory) under the heading; "" leaves it out.
	Run string
	// Status is the run's status (store.Status*). Any value other than ""
	// and "complete" marks the report as partial.
	Status string
}

// maxMarkdownDetail bounds, in bytes, the detail shown for one failing
// trial: a step summary is read on a web page, and GitHub limits it to
// 1 MiB.
const maxMarkdownDetail = 400

// WriteMarkdown writes the summary as GitHub-flavoured Markdown: the model
// table with intervals, a table per model and axis of a sweep run, the case × model matrix (k/n passing, per model ×
// variant when the run has variants), then the failures by outcome with a
// few examples, and the warnings. Every string from a model, a suite or a
// server goes through mdText, so it cannot break a table or inject HTML.
// The rates are rendered by stats.Rate.Percent, as the terminal table's are.
// opts may be nil.
func WriteMarkdown(w io.Writer, s *summary.Summary, opts *MarkdownOptions) error {
	if opts == nil {
		opts = &MarkdownOptions{}
	}
	b := &strings.Builder{}
	title := "toolgrade report"
	if s.Suite != "" {
		title += ": " + mdText(s.Suite)
	}
	fmt.Fprintf(b, "## %s\n\n", title)
	if opts.Run != "" {
		fmt.Fprintf(b, "Run %s\n\n", mdCode(opts.Run))
	}
	if opts.Status != "" && opts.Status != "complete" {
		fmt.Fprintf(b, "> [!WARNING]\n> Partial results: the run is %s; rates count the trials that finished.\n\n", mdText(opts.Status))
	}
	mdSkipped(b, s)
	variants := s.HasVariants()
	mdModels(b, s, variants)
	mdSweep(b, s)
	mdCases(b, s, variants)
	mdBFCL(b, s, variants)
	mdFailures(b, s, variants)
	if len(s.Warnings) > 0 {
		b.WriteString("### Warnings\n\n")
		for _, warn := range s.Warnings {
			fmt.Fprintf(b, "- %s\n", mdText(warn))
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func mdModels(b *strings.Builder, s *summary.Summary, variants bool) {
	header, rows := modelTable(s, variants, "")
	mdRow(b, header)
	b.WriteString("| --- |" + strings.Repeat(" ---: |", len(header)-1) + "\n")
	for _, row := range rows {
		// The other cells are toolgrade's own numbers.
		row[0] = mdText(row[0])
		mdRow(b, row)
	}
	b.WriteString("\nRates with 95% Wilson intervals over the scored trials, a case's repeats counted as one cluster (a case is the unit of evidence); infrastructure errors are counted apart, never as model failures.\n\n")
	for _, m := range s.Models {
		if m.Evidence.Cases > 0 {
			fmt.Fprintf(b, "- %s: %s\n", mdText(m.Label(variants)), m.Evidence)
		}
		if m.Infra > 0 {
			fmt.Fprintf(b, "- %s: %s\n", mdText(m.Label(variants)), termtext.Count(m.Infra, "infrastructure error"))
		}
		for _, line := range notes(m) {
			fmt.Fprintf(b, "- %s: %s\n", mdText(m.Label(variants)), mdText(line))
		}
		if m.PassAtK != nil {
			fmt.Fprintf(b, "- %s: %s\n", mdText(m.Label(variants)), passAtK(m))
		}
	}
	b.WriteString("\n")
}

// mdCases writes the case × model matrix: each cell is the case's passing
// trials of its scored ones, k/n, with its infrastructure errors beside.
func mdCases(b *strings.Builder, s *summary.Summary, variants bool) {
	byRow := make([]map[string]*summary.CaseResult, len(s.Models))
	ids := map[string]bool{}
	for i := range s.Models {
		byRow[i] = map[string]*summary.CaseResult{}
		for j := range s.Models[i].Cases {
			c := &s.Models[i].Cases[j]
			byRow[i][c.ID] = c
			ids[c.ID] = true
		}
	}
	if len(ids) == 0 {
		return
	}
	b.WriteString("### Cases\n\nPassing trials of the scored ones, k/n")
	if slices.ContainsFunc(s.Models, func(m summary.ModelSummary) bool {
		return slices.ContainsFunc(m.Cases, func(c summary.CaseResult) bool { return c.Judged != nil })
	}) {
		b.WriteString("; judged k/n: the answers the judge passed against the case's rubric")
	}
	b.WriteString(".\n\n")
	header := []string{"Case"}
	for _, m := range s.Models {
		header = append(header, mdText(m.Label(variants)))
	}
	mdRow(b, header)
	b.WriteString("| --- |" + strings.Repeat(" :---: |", len(s.Models)) + "\n")
	for _, id := range slices.Sorted(maps.Keys(ids)) {
		row := []string{mdText(id)}
		for i := range s.Models {
			row = append(row, caseCell(byRow[i][id]))
		}
		mdRow(b, row)
	}
	b.WriteString("\n")
}

func caseCell(c *summary.CaseResult) string {
	if c == nil {
		return "–"
	}
	cell := fmt.Sprintf("%d/%d", c.Pass.K, c.Pass.N)
	if c.Pass.N > 0 && c.Pass.K == c.Pass.N {
		cell = "✅ " + cell
	} else if c.Pass.N > 0 {
		cell = "❌ " + cell
	}
	if c.Infra > 0 {
		cell += fmt.Sprintf(" (%d infra)", c.Infra)
	}
	if c.Truncated > 0 {
		cell += fmt.Sprintf(" (%d truncated)", c.Truncated)
	}
	if c.Judged != nil {
		cell += fmt.Sprintf(" · judged %d/%d", c.Judged.K, c.Judged.N)
	}
	return cell
}

func mdFailures(b *strings.Builder, s *summary.Summary, variants bool) {
	any := false
	for _, m := range s.Models {
		groups := failureGroups(m)
		if len(groups) == 0 {
			continue
		}
		if !any {
			b.WriteString("### Failures\n\n")
			any = true
		}
		fmt.Fprintf(b, "#### %s\n\n", mdText(m.Label(variants)))
		for _, g := range groups {
			fmt.Fprintf(b, "- %s: %d\n", mdCode(g.Outcome), g.Count)
			for _, ex := range g.Examples {
				fmt.Fprintf(b, "  - %s #%d", mdText(ex.Case), ex.Repeat)
				if ex.Detail != "" {
					fmt.Fprintf(b, ": %s", mdDetail(ex.Detail))
				}
				b.WriteString("\n")
			}
			if g.Count > len(g.Examples) {
				fmt.Fprintf(b, "  - … and %d more\n", g.Count-len(g.Examples))
			}
		}
		b.WriteString("\n")
	}
}

// mdRow writes one table row of cells already escaped.
func mdRow(b *strings.Builder, cells []string) {
	b.WriteString("|")
	for _, c := range cells {
		b.WriteString(" " + c + " |")
	}
	b.WriteString("\n")
}

// mdText makes s, text from a model, a suite or a server, safe inside
// Markdown text and a table cell: characters Markdown acts on are escaped
// with a backslash, &, < and > become entities (no HTML or entity gets
// through), and newlines, control characters and bidirectional overrides
// are shown as escapes (\x0a, \u202e), so a name stays on its line.
func mdText(s string) string {
	var b strings.Builder
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\\x%02x`, s[0])
		case r == '\n' || r == '\t' || (r < 0x80 && termtext.Unsafe(r)):
			fmt.Fprintf(&b, `\\x%02x`, r)
		case termtext.Unsafe(r):
			fmt.Fprintf(&b, `\\u%04x`, r)
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case strings.ContainsRune("\\`*_[]|~#!", r):
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteString(s[:n])
		}
		s = s[n:]
	}
	return b.String()
}

// mdDetail is mdText for a failure's detail, which may span lines (a diff of
// the arguments): its lines are kept apart with <br>, and it is cut to
// maxMarkdownDetail bytes.
func mdDetail(s string) string {
	s = strings.TrimRight(s, "\n")
	cut := false
	if len(s) > maxMarkdownDetail {
		i := maxMarkdownDetail
		for i > 0 && !utf8.RuneStart(s[i]) {
			i--
		}
		s, cut = s[:i], true
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		// Older runs hold go-cmp diffs, indented with tabs, which are
		// layout here.
		lines[i] = mdText(strings.ReplaceAll(l, "\t", "  "))
	}
	out := strings.Join(lines, "<br>")
	if cut {
		out += " …"
	}
	return out
}

// mdCode is s, known to hold no backtick or newline when it is one of
// toolgrade's own names (an outcome), as a code span; other text is
// escaped as mdText instead.
func mdCode(s string) string {
	if strings.ContainsAny(s, "`\n\r|<>&") || strings.IndexFunc(s, termtext.Unsafe) >= 0 {
		return mdText(s)
	}
	return "`" + s + "`"
}
