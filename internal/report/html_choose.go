package report

import (
	"io"

	"github.com/toolgrade/toolgrade/internal/choose"
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
	// Metric heads the column of the choice's metric, which comes first.
	Metric string `json:"metric"`
	// Head names the columns after it: the verdict against the reference
	// and the cost; the other rates follow.
	Head []string `json:"head"`
	// Cells are each model's cells under Head, rendered as the terminal
	// table renders them.
	Cells [][]string `json:"cells"`
}

// WriteChooseHTML writes a choice as one self-contained page, the run
// report's page with the choice alone on it: the recommendation, the table
// and the quality-vs-cost chart.
func WriteChooseHTML(w io.Writer, c *choose.Choice) error {
	data := &htmlData{Title: "toolgrade choose: " + c.Dir, Choose: &htmlChoose{
		Choice: c, How: upperFirst(chooseHow(c)), Notes: chooseNotes(c), SVG: chooseSVG(c),
		Head: chooseCostHead(c), Metric: chooseMetricLabel(c),
	}}
	for i := range c.Models {
		data.Choose.Cells = append(data.Choose.Cells, chooseCostCells(&c.Models[i]))
	}
	return writePage(w, data, func(io.Writer) error { return nil })
}
