package score

import (
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/suite"
)

// decoyReporter is the optional part of a suite.Catalog that offers decoys
// (a suite's decoys:, see toolbox.Decoyed): tools the model is shown that no
// server runs.
type decoyReporter interface {
	Decoy(name string) bool
}

// isDecoy reports whether call i named a decoy: its execution says so, or
// (for a trial that ran nothing) the catalog does.
func (sc *scorer) isDecoy(i int) bool {
	if sc.exec(i).ErrorKind == record.ExecDecoy {
		return true
	}
	dc, ok := sc.opts.Tools.(decoyReporter)
	return ok && i < len(sc.calls) && dc.Decoy(sc.calls[i].Name)
}

// wrongTool is the wrong_tool verdict on call i: a decoy is named as one, so
// a tool-count sweep shows which decoy drew the model away.
func (sc *scorer) wrongTool(i int, detail string) (string, string) {
	if sc.isDecoy(i) {
		detail = "called decoy " + sc.calls[i].Name + "; " + detail
	}
	return record.OutcomeWrongTool, detail
}

// isDecoy reports whether the catalog offers exposed as a decoy.
func isDecoy(tools suite.Catalog, exposed string) bool {
	dc, ok := tools.(decoyReporter)
	return ok && dc.Decoy(exposed)
}
