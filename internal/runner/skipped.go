package runner

import (
	"fmt"
	"strings"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/suite"
)

// skippedFailure is why a trial of a case expecting a tool that only a
// skipped server may have offered (suite.ExpectedCall.Skipped) is not run:
// the model could not call it, and its answer would be counted as its own
// mistake. why maps each skipped server to its connection error. Nil when
// the case can run.
func skippedFailure(e *suite.Expect, why map[string]string) *record.Failure {
	servers := e.SkippedServers()
	if len(servers) == 0 {
		return nil
	}
	var tools []string
	for _, c := range e.Calls {
		if c.Skipped != nil {
			tools = append(tools, c.Tool)
		}
	}
	quoted, reasons := make([]string, len(servers)), []string(nil)
	for i, s := range servers {
		quoted[i] = fmt.Sprintf("%q", s)
		if w := why[s]; w != "" && len(servers) > 1 {
			reasons = append(reasons, s+": "+w)
		} else if w != "" {
			reasons = append(reasons, w)
		}
	}
	msg := fmt.Sprintf("expects %s, which no connected server offers: server %s failed to connect and was skipped", strings.Join(tools, ", "), quoted[0])
	if len(servers) > 1 {
		msg = fmt.Sprintf("expects %s, which no connected server offers: servers %s failed to connect and were skipped", strings.Join(tools, ", "), strings.Join(quoted, " and "))
	}
	if len(reasons) > 0 {
		msg += " (" + strings.Join(reasons, "; ") + ")"
	}
	return &record.Failure{Kind: record.FailureServerSkipped, Message: msg + "; not run"}
}
