package report

import (
	"github.com/toolgrade/toolgrade/internal/stats"
	"github.com/toolgrade/toolgrade/internal/summary"
)

// htmlBFCL is the BFCL section of the HTML page: the rows of the terminal
// and Markdown BFCL tables (bfclRows), as data the page draws, and the note
// that says how the figures are made.
type htmlBFCL struct {
	Note string        `json:"note"`
	Rows []htmlBFCLRow `json:"rows"`
}

// htmlBFCLRow is one model (× variant) with BFCL-tagged cases: its
// categories, then the leaderboard's summary columns, nil for N/A.
type htmlBFCLRow struct {
	Label       string             `json:"label"`
	Categories  []htmlBFCLCategory `json:"categories"`
	NonLiveAST  *float64           `json:"non_live_ast"`
	Live        *float64           `json:"live"`
	Irrelevance *float64           `json:"irrelevance"`
	Relevance   *float64           `json:"relevance"`
	// RoundTrip says how much of the row Ollama's round trip of numbers
	// leaves open, Differs where BFCL and toolgrade disagree; "" for none.
	RoundTrip string `json:"round_trip,omitempty"`
	Differs   string `json:"differs,omitempty"`
}

// htmlBFCLCategory is one category of a row: BFCL's accuracy beside
// toolgrade's pass rate of the same trials, and the outcomes in
// record.Outcomes order (so the page need not know it).
type htmlBFCLCategory struct {
	Category string     `json:"category"`
	Cases    int        `json:"cases"`
	Accuracy stats.Rate `json:"accuracy"`
	Pass     stats.Rate `json:"pass"`
	Infra    int        `json:"infra_errors,omitempty"`
	// RoundTrip is roundTripCell's text; "" when no trial is open.
	RoundTrip string        `json:"round_trip,omitempty"`
	Outcomes  []htmlOutcome `json:"outcomes"`
}

// htmlOutcome is one outcome's count.
type htmlOutcome struct {
	Outcome string `json:"outcome"`
	N       int    `json:"n"`
}

// htmlBFCLOf is the BFCL section of sum; nil when no row has BFCL figures,
// and the page shows no section then.
func htmlBFCLOf(sum *summary.Summary) *htmlBFCL {
	if !sum.HasBFCL() {
		return nil
	}
	variants := sum.HasVariants()
	out := &htmlBFCL{Note: bfclNote}
	for i := range sum.Models {
		m := &sum.Models[i]
		if m.BFCL == nil {
			continue
		}
		pass := bfclPass(m)
		row := htmlBFCLRow{Label: m.Label(variants), NonLiveAST: m.BFCL.NonLiveAST, Live: m.BFCL.Live,
			Irrelevance: m.BFCL.Irrelevance, Relevance: m.BFCL.Relevance, Differs: bfclDiffers(m.BFCL)}
		if rt := m.BFCL.RoundTrip; rt != nil {
			row.RoundTrip = bfclRoundTripText(rt)
		}
		for _, c := range m.BFCL.Categories {
			hc := htmlBFCLCategory{Category: c.Category, Cases: c.Cases, Accuracy: c.Accuracy, Pass: pass[c.Category], Infra: c.Infra, Outcomes: []htmlOutcome{}}
			if c.RoundTrip > 0 {
				hc.RoundTrip = roundTripCell(c)
			}
			for _, o := range outcomeOrder(c.Outcomes) {
				hc.Outcomes = append(hc.Outcomes, htmlOutcome{Outcome: o, N: c.Outcomes[o]})
			}
			row.Categories = append(row.Categories, hc)
		}
		out.Rows = append(out.Rows, row)
	}
	return out
}
