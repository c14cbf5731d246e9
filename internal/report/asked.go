package report

import (
	"encoding/json"
	"fmt"
	"github.com/toolgrade/toolgrade/internal/termtext"
	"io"
	"strings"

	"github.com/toolgrade/toolgrade/internal/record"
)

// WriteAsked writes what `toolgrade ask` prints of t: a line per tool call
// and the answer, or with asJSON the transcript
// with the flags a trial's record carries.
func WriteAsked(w io.Writer, t *record.Transcript, truncated bool, numCtx int, asJSON bool) error {
	if !asJSON {
		writeConversation(w, t)
		return nil
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		*record.Transcript
		Truncated bool `json:"truncated"`
		NumCtx    int  `json:"num_ctx,omitempty"`
	}{t, truncated, numCtx})
}

// writeConversation writes one line per tool call, with its error whole
// when it failed (lines after the first indented), then the answer,
// escaping the control characters a model or a server may have put in
// them.
func writeConversation(w io.Writer, t *record.Transcript) {
	for _, r := range t.Rounds {
		for _, ex := range r.Executions {
			line := fmt.Sprintf("-> %s(%s)", ex.Name, askJSON(ex.Arguments))
			if ex.IsError {
				// Whole: the end of an error is often what says what to do.
				line += fmt.Sprintf("  [%s: %s]", ex.ErrorKind, block(strings.TrimPrefix(ex.Result, "error: "), "    "))
			}
			fmt.Fprintln(w, termtext.Printable(line))
		}
	}
	if t.NotExecuted {
		for _, c := range t.ToolCalls() {
			fmt.Fprintln(w, termtext.Printable(fmt.Sprintf("-> %s(%s)  [not run: --no-execute]", c.Name, askJSON(c.Arguments))))
		}
	}
	if t.RoundLimitHit {
		fmt.Fprintf(w, "(round limit of %d reached; answered without tools)\n", t.MaxRounds)
	}
	if t.Failure == nil {
		if t.Answer == "" {
			fmt.Fprintln(w, "(empty answer)")
		} else {
			fmt.Fprintln(w, termtext.Printable(t.Answer))
		}
	}
}

func askJSON(raw json.RawMessage) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
