package reports

import (
	"bytes"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/record"
)

func TestPrintable(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text, with ünïcode and a tab\tand\nnewline", "plain text, with ünïcode and a tab\tand\nnewline"},
		{"\u001b[2J\u001b]0;pwned\u0007", `\x1b[2J\x1b]0;pwned\x07`},
		{"carriage\rreturn, backspace\b, DEL\x7f", `carriage\x0dreturn, backspace\x08, DEL\x7f`},
		{"C1 CSI \u009b2J", `C1 CSI \u009b2J`},
		{"bidi \u202egnp.exe", `bidi \u202egnp.exe`},
		{"bad UTF-8 \xff\xfe", `bad UTF-8 \xff\xfe`},
		{`a literal \x1b stays`, `a literal \x1b stays`},
	} {
		if got := Printable(tc.in); got != tc.want {
			t.Errorf("Printable(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestTerminalReportEscapesWhatTheModelWrote(t *testing.T) {
	const answer = "\u001b[2J\u001b]0;pwned\u0007"
	sum := NewSummarizer("s", []record.Model{{Name: "m"}})
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
