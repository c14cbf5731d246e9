package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/summary"
)

func TestTerminalReportEscapesWhatTheModelWrote(t *testing.T) {
	const answer = "\u001b[2J\u001b]0;pwned\u0007"
	sum := summary.NewSummarizer("s", []record.Model{{Name: "m"}})
	sum.Add(&record.Trial{Model: "m", CaseID: "c", Attempts: 1,
		Transcript: &record.Transcript{Answer: answer},
		Score:      record.Score{Outcome: record.OutcomeNoCall, Detail: "answered without a tool call: " + answer}})
	var b bytes.Buffer
	if err := WriteTerminal(&b, sum.Summary()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Errorf("the report holds raw control characters:\n%q", out)
	}
	if !strings.Contains(out, `answered without a tool call: \x1b[2J\x1b]0;pwned\x07`) {
		t.Errorf("the escaped answer is missing:\n%s", out)
	}
}
