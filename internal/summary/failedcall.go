package summary

import (
	"fmt"
	"strings"

	"github.com/toolgrade/toolgrade/internal/record"
)

// FailedCallDetail says why a trial is in FailedCallPasses: its first call
// the model was given an error for (the tool, the kind, the error) and the
// answer it gave all the same, each cut to a line.
func FailedCallDetail(t *record.Trial) string {
	call := "a call failed"
	if tr := t.Transcript; tr != nil {
		for _, x := range tr.Executions() {
			if x.Failed() {
				call = fmt.Sprintf("%s: %s: %s", x.Name, x.ErrorKind, oneLine(x.Error, 120))
				break
			}
		}
	}
	answer := ""
	if tr := t.Transcript; tr != nil {
		answer = tr.Answer
	}
	return fmt.Sprintf("%s; answered %q", call, oneLine(answer, 120))
}

// oneLine is s on one line, cut to about n bytes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		cut := n
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}
