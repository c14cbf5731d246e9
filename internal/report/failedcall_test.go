package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/summary"
)

// failedCallPass is a trial that passed although its read_text_file call
// was refused: the matcher's text came from somewhere else.
func failedCallPass(repeat int) *record.Trial {
	t := trial("m", "read-notes", repeat, record.OutcomePass, true)
	t.Transcript.Rounds[0].Executions = []record.Execution{{Name: "read_text_file", IsError: true, ErrorKind: record.ExecToolError,
		Error: "Access denied - path outside allowed directories: /etc/notes.txt not in /srv"}}
	t.Transcript.Answer = "The notes say the meeting is at 10."
	t.Score.FailedCalls = 1
	return t
}

// TestAPassWithAFailedCallIsNeverSilent: its rate beside pass, and the
// trial listed with the call's error and the answer, in every report.
func TestAPassWithAFailedCallIsNeverSilent(t *testing.T) {
	run := &record.Run{Suite: record.RunSuite{Name: "fs"}, Models: []record.Model{{Name: "m"}}}
	sum := summary.NewSummarizer("fs", run.Models)
	j := NewJUnit(run, nil)
	for _, tr := range []*record.Trial{failedCallPass(1), failedCallPass(0), trial("m", "list", 0, record.OutcomePass, true)} {
		sum.Add(tr)
		j.Add(tr)
	}
	s := sum.Summary()
	m := s.Models[0]
	if r := m.FailedCall; r.K != 2 || r.N != 3 {
		t.Errorf("failed_call %d/%d, want 2/3", r.K, r.N)
	}
	g := m.FailedCallPasses
	want := `read_text_file: tool_error: Access denied - path outside allowed directories: /etc/notes.txt not in /srv; answered "The notes say the meeting is at 10."`
	if g == nil || g.Outcome != "pass with a failed call" || g.Count != 2 || len(g.Examples) != 2 || g.Examples[0].Repeat != 0 || g.Examples[0].Detail != want {
		t.Fatalf("failed_call_passes %+v", g)
	}

	var term, md, js, junit bytes.Buffer
	if err := WriteTerminal(&term, s); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdown(&md, s, nil); err != nil {
		t.Fatal(err)
	}
	if err := summary.WriteJSON(&js, s); err != nil {
		t.Fatal(err)
	}
	if err := j.Write(&junit); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, out, want string }{
		{"terminal header", term.String(), "│ Failed call │"},
		{"terminal rate", term.String(), " │ 67% ["},
		{"terminal list", term.String(), "  pass with a failed call (2)\n    read-notes #0: " + want + "\n    read-notes #1: "},
		{"markdown header", md.String(), "| Failed call |"},
		{"markdown list", md.String(), "pass with a failed call"},
		{"summary.json rate", js.String(), `"failed_call": {`},
		{"summary.json list", js.String(), `"failed_call_passes": {`},
		{"junit", junit.String(), "2 of 2 passes passed although a call failed (its answer rests on no result of that call); repeat #0: read_text_file: tool_error: Access denied"},
	} {
		if !strings.Contains(c.out, c.want) {
			t.Errorf("%s: no %q in\n%s", c.name, c.want, c.out)
		}
	}
}
