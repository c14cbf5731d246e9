package reports

import (
	"fmt"
	"io"

	"github.com/toolgrade/toolgrade/internal/choose"
	"github.com/toolgrade/toolgrade/internal/stats"
)

// htmlChoose is the page of `toolgrade choose --format html`: the choice,
// the line saying how it was judged, the notes under its table, and its
// chart drawn here (chooseSVG), which holds no script and only escaped
// text, so the page imports it as a node.
type htmlChoose struct {
	Choice *choose.Choice `json:"choice"`
	How    string         `json:"how"`
	Notes  []string       `json:"notes"`
	SVG    string         `json:"svg"`
	// Head names the columns after the rates: the cost and the verdict
	// against the reference.
	Head []string `json:"head"`
	// Cells are each model's cells after its rates, rendered as the
	// terminal table renders them, in Head's order.
	Cells [][]string `json:"cells"`
}

// WriteChooseHTML writes a choice as one self-contained page, the run
// report's page with the choice alone on it: the recommendation, the table
// and the quality-vs-cost chart.
func WriteChooseHTML(w io.Writer, c *choose.Choice) error {
	data := &htmlData{Title: "toolgrade choose: " + c.Dir, Choose: &htmlChoose{
		Choice: c, How: upperFirst(chooseHow(c)), Notes: chooseNotes(c), SVG: chooseSVG(c),
		Head: []string{"p50 / p95", "tok/s prompt / eval", "Memory", "VRAM", fmt.Sprintf("%s vs %s", c.Metric, c.Reference), "At " + stats.Points(c.Margin)},
	}}
	for i := range c.Models {
		m := &c.Models[i]
		cells := []string{secs(m.Cost.P50) + " / " + secs(m.Cost.P95),
			tokPerSec(m.Cost.PromptTokensPerSecond) + " / " + tokPerSec(m.Cost.EvalTokensPerSecond),
			choose.Bytes(m.Cost.Size), vram(&m.Cost)}
		data.Choose.Cells = append(data.Choose.Cells, append(cells, versusCells(m)...))
	}
	return writePage(w, data, func(io.Writer) error { return nil })
}
