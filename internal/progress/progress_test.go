package progress

import (
	"strings"
	"testing"
	"time"

	"github.com/toolgrade/toolgrade/internal/runner"
)

// TestProgressAfterAResumeSaysWhatIsThisSessions: the pass count is this
// session's, so a resumed model's line says how many trials ran before and
// whose passes it counts; a model with nothing to run prints no line.
func TestProgressAfterAResumeSaysWhatIsThisSessions(t *testing.T) {
	var b strings.Builder
	p := NewPrinter(&b)
	p.Update(runner.Progress{Model: "done-before", Done: 60, Total: 60})
	p.Update(runner.Progress{Model: "fresh", Done: 6, Total: 60, Pass: 5, Scored: 6, RunThisTime: 6, Elapsed: 6 * time.Second})
	p.Update(runner.Progress{Model: "resumed", Done: 22, Total: 60, Pass: 1, Scored: 1, RunThisTime: 1, Elapsed: time.Second})
	want := "fresh: 6/60 trials, pass 5/6, 0 infra errors, eta 54s\n" +
		"resumed: 22/60 trials (21 before this session), pass 1/1 this session, 0 infra errors, eta 38s\n"
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}
