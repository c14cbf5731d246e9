package score

import (
	"fmt"

	"github.com/toolgrade/toolgrade/internal/record"
)

// anyTool judges a case that expects a call to any tool (any_tool: true,
// BFCL's relevance categories) once a call was made: hallucinated_tool
// when the first call named no tool of the catalog, else the answer's
// verdict (pass when the trial did not execute).
func (sc *scorer) anyTool(s *record.Score, answer string) (string, string) {
	if x := sc.exec(0); x.ErrorKind == record.ExecUnknownTool {
		return record.OutcomeHallucinatedTool, fmt.Sprintf("%q is not a tool", sc.calls[0].Name)
	}
	s.ToolCorrect, s.ArgsCorrect = true, true
	if sc.t.NotExecuted {
		return record.OutcomePass, ""
	}
	return sc.answer(answer)
}
