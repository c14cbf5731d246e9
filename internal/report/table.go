// Package report renders what toolgrade measured, and only renders it: the
// terminal, Markdown, HTML and JUnit reports of a run's summary (package
// summary), its comparisons (compare) and curves (curve). It reads records
// and numbers only, never the Ollama or MCP clients, so any report can be
// rebuilt offline.
package report

import (
	"github.com/toolgrade/toolgrade/internal/termtext"
	"io"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// Table writes rows under header as a terminal table, in one fixed style
// (headers as given, cells left-aligned) so output is stable for golden files.
// Cells go through termtext.Printable: they often hold what models and servers wrote.
func Table(w io.Writer, header []string, rows [][]string) error {
	t := tablewriter.NewTable(w,
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignment(tw.AlignLeft),
	)
	t.Header(toAny(header)...)
	safe := make([][]string, len(rows))
	for i, row := range rows {
		safe[i] = make([]string, len(row))
		for j, c := range row {
			safe[i][j] = termtext.Printable(c)
		}
	}
	if err := t.Bulk(safe); err != nil {
		return err
	}
	return t.Render()
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}
