package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/termtext"
)

// DefaultCutBytes and DefaultCutLines bound a tool result or call's
// arguments in a transcript unless TranscriptOptions.Full is set: enough
// for a search hit or an error message, short of a whole document.
const (
	DefaultCutBytes = 500
	DefaultCutLines = 12
)

// TranscriptOptions say how a TranscriptPrinter renders trials. The zero
// value renders plain text with every tool result cut at DefaultCutBytes
// and DefaultCutLines.
type TranscriptOptions struct {
	// Color adds ANSI colour and bold (SGR codes); false writes plain text.
	Color bool
	// Full shows every tool result and argument whole; false cuts each one
	// past CutBytes or CutLines, with a note saying how much is not shown.
	Full bool
	// CutBytes and CutLines are the cut's limits; 0 means DefaultCutBytes
	// and DefaultCutLines.
	CutBytes, CutLines int
}

// TranscriptPrinter writes the transcripts of trials to a terminal one at a
// time, as they are read, so a run of any size is shown without holding
// more than one transcript. Everything a model, a tool or a suite wrote goes
// through termtext.Printable; the only escape sequences in the output are the colour
// codes the printer adds itself.
type TranscriptPrinter struct {
	w   io.Writer
	o   TranscriptOptions
	n   int
	err error
}

// NewTranscriptPrinter returns a printer writing to w; o may be nil.
func NewTranscriptPrinter(w io.Writer, o *TranscriptOptions) *TranscriptPrinter {
	p := &TranscriptPrinter{w: w}
	if o != nil {
		p.o = *o
	}
	if p.o.CutBytes <= 0 {
		p.o.CutBytes = DefaultCutBytes
	}
	if p.o.CutLines <= 0 {
		p.o.CutLines = DefaultCutLines
	}
	return p
}

// Count is how many trials the printer has written.
func (p *TranscriptPrinter) Count() int { return p.n }

// Err is the first error writing failed with; after it the printer writes
// nothing more.
func (p *TranscriptPrinter) Err() error { return p.err }

// SGR codes the printer uses.
const (
	sgrBold   = "1"
	sgrDim    = "2"
	sgrRed    = "31"
	sgrGreen  = "32"
	sgrYellow = "33"
	sgrBlue   = "34"
	sgrCyan   = "36"
)

// paint wraps s, already printable, in an SGR code when colour is on.
func (p *TranscriptPrinter) paint(code, s string) string {
	if !p.o.Color || s == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// Add writes t's transcript: a header with its key and verdict, the opening
// messages, every round with its calls and their results, the answer, and
// the failure that ended it, if any. Trials are separated by a blank line.
func (p *TranscriptPrinter) Add(t *record.Trial) {
	if p.err != nil {
		return
	}
	var b strings.Builder
	if p.n > 0 {
		b.WriteByte('\n')
	}
	p.header(&b, t)
	if tr := t.Transcript; tr != nil && isScenario(tr) {
		p.scenario(&b, tr)
		p.judged(&b, t.Judged)
	} else if tr != nil {
		for _, m := range tr.Messages {
			p.message(&b, m)
		}
		for _, r := range tr.Rounds {
			p.round(&b, r, tr.NotExecuted)
		}
		p.ending(&b, tr)
		p.judged(&b, t.Judged)
	} else {
		fmt.Fprintf(&b, "%s\n", p.paint(sgrDim, "(no transcript recorded)"))
	}
	p.n++
	_, p.err = io.WriteString(p.w, b.String())
}

func (p *TranscriptPrinter) header(b *strings.Builder, t *record.Trial) {
	name := termtext.Printable(t.Model)
	if t.Variant != "" {
		name += " (" + termtext.Printable(t.Variant) + ")"
	}
	fmt.Fprintf(b, "%s %s  %s\n", p.paint(sgrBold, fmt.Sprintf("=== %s %s #%d", name, termtext.Printable(t.CaseID), t.Repeat)),
		p.paint(sgrDim, fmt.Sprintf("seed %d", t.Seed)), p.outcome(t.Score.Outcome))
	var facts []string
	if t.IsCopy() {
		// Not sent to the model: its transcript and times are repeat
		// CopyOf's, not its own.
		facts = append(facts, fmt.Sprintf("a copy of repeat %d, not sent to the model: its first two repeats agreed at temperature 0; the conversation below is repeat %d's", *t.CopyOf, *t.CopyOf))
	} else if tr := t.Transcript; tr != nil {
		rounds := termtext.Count(len(tr.Rounds), "round")
		if tr.MaxRounds > 0 {
			rounds += fmt.Sprintf(" (limit %d)", tr.MaxRounds)
		}
		facts = append(facts, rounds)
		if tr.Wall > 0 {
			facts = append(facts, duration(tr.Wall))
		}
		var prompt, eval int
		for _, r := range tr.Rounds {
			prompt += r.Metrics.PromptEvalCount
			eval += r.Metrics.EvalCount
		}
		facts = append(facts, fmt.Sprintf("%d prompt and %s", prompt, termtext.Count(eval, "eval token")))
		if tr.NotExecuted {
			facts = append(facts, "tools not executed")
		}
	}
	if t.Attempts > 1 {
		facts = append(facts, termtext.Count(t.Attempts, "attempt"))
	}
	if len(t.Tags) > 0 {
		facts = append(facts, "tags "+termtext.Printable(strings.Join(t.Tags, ", ")))
	}
	fmt.Fprintf(b, "%s\n", p.paint(sgrDim, strings.Join(facts, "; ")))
	if t.Score.Truncated {
		at := "num_ctx"
		if t.NumCtx > 0 {
			at = fmt.Sprintf("num_ctx (%d)", t.NumCtx)
		}
		fmt.Fprintf(b, "%s\n", p.paint(sgrYellow, "warning: a prompt reached "+at+": Ollama cut it, and the tools may have been lost"))
	}
	if d := t.Score.Detail; d != "" {
		fmt.Fprintf(b, "%s %s\n", p.paint(sgrBold, "detail:"), p.detail(t.Score.Outcome, d))
	}
}

// outcome paints an outcome by what it means: green passed, yellow the
// infrastructure failed, red the model failed.
func (p *TranscriptPrinter) outcome(o string) string {
	code := sgrRed
	switch o {
	case record.OutcomePass:
		code = sgrGreen
	case record.OutcomeInfraError:
		code = sgrYellow
	}
	return p.paint(sgrBold+";"+code, termtext.Printable(o))
}

// detail renders a score's detail, its lines kept (one per differing
// argument for wrong_args). Runs recorded by older versions hold a go-cmp
// diff there instead, whose wanted ("-") and given ("+") lines are coloured.
func (p *TranscriptPrinter) detail(outcome, d string) string {
	lines := strings.Split(strings.TrimRight(d, "\n"), "\n")
	for i, l := range lines {
		l = termtext.Printable(l)
		if outcome == record.OutcomeWrongArgs && i > 0 {
			switch {
			case strings.HasPrefix(l, "-"):
				l = p.paint(sgrRed, l)
			case strings.HasPrefix(l, "+"):
				l = p.paint(sgrGreen, l)
			}
		}
		if i > 0 {
			l = "  " + l
		}
		lines[i] = l
	}
	return strings.Join(lines, "\n")
}

func (p *TranscriptPrinter) message(b *strings.Builder, m record.Message) {
	role := termtext.Printable(m.Role)
	if m.Role == "tool" && m.ToolName != "" {
		role += " " + termtext.Printable(m.ToolName)
	}
	if m.Thinking != "" {
		fmt.Fprintf(b, "%s %s\n", p.paint(sgrDim, role+" thinking:"), p.paint(sgrDim, block(termtext.Printable(m.Thinking), "  ")))
	}
	if m.Content != "" || len(m.ToolCalls) == 0 {
		fmt.Fprintf(b, "%s %s\n", p.paint(sgrBold+";"+sgrBlue, role+":"), block(termtext.Printable(m.Content), "  "))
	}
	for _, c := range m.ToolCalls {
		fmt.Fprintf(b, "%s %s\n", p.paint(sgrBold+";"+sgrBlue, role+":"), p.call(c.Name, c.Arguments))
	}
}

func (p *TranscriptPrinter) round(b *strings.Builder, r record.Round, notExecuted bool) {
	line := []string{fmt.Sprintf("round %d", r.Index), duration(r.Wall),
		fmt.Sprintf("prompt %d eval %d tokens", r.Metrics.PromptEvalCount, r.Metrics.EvalCount)}
	switch {
	case r.Request.Final:
		line = append(line, "final: no tools, the round limit was hit")
	case r.Request.ToolsSent:
		line = append(line, termtext.Count(r.Request.Tools, "tool")+" offered")
	default:
		line = append(line, "no tools offered")
	}
	if d := r.Response.DoneReason; d != "" && d != "stop" {
		line = append(line, "done: "+termtext.Printable(d))
	}
	fmt.Fprintf(b, "%s\n", p.paint(sgrBold, "-- "+strings.Join(line, ", ")))
	resp := r.Response
	if resp.Thinking != "" {
		fmt.Fprintf(b, "  %s %s\n", p.paint(sgrDim, "thinking:"), p.paint(sgrDim, block(termtext.Printable(resp.Thinking), "    ")))
	}
	// A round's content beside its calls is said on the way; the last
	// round's content is the answer, shown once at the end.
	if resp.Content != "" && len(resp.ToolCalls) > 0 {
		fmt.Fprintf(b, "  %s %s\n", p.paint(sgrBlue, "says:"), block(termtext.Printable(resp.Content), "    "))
	}
	used := make([]bool, len(r.Executions))
	for i, c := range resp.ToolCalls {
		fmt.Fprintf(b, "  %s\n", p.paint(sgrCyan, "-> ")+p.call(c.Name, c.Arguments))
		if j := execFor(r.Executions, used, c, i); j >= 0 {
			used[j] = true
			p.execution(b, r.Executions[j])
		} else if notExecuted {
			fmt.Fprintf(b, "     %s\n", p.paint(sgrDim, "(not executed)"))
		}
	}
	// Executions no call of the response accounts for still ran: show them.
	for j, e := range r.Executions {
		if !used[j] {
			fmt.Fprintf(b, "  %s\n", p.paint(sgrCyan, "-> ")+p.call(e.Name, e.Arguments))
			p.execution(b, e)
		}
	}
	if f := resp.Failure; f != nil {
		fmt.Fprintf(b, "  %s\n", p.failure(f))
	}
}

// execFor finds the execution of the i-th call of a round: the one with its
// id, or else the i-th one when calls carry no ids. It returns -1 when the
// call did not run.
func execFor(ex []record.Execution, used []bool, c record.ToolCall, i int) int {
	if c.ID != "" {
		for j, e := range ex {
			if !used[j] && e.CallID == c.ID {
				return j
			}
		}
		return -1
	}
	if i < len(ex) && !used[i] && ex[i].CallID == "" {
		return i
	}
	return -1
}

// call renders a tool call as name(compact JSON arguments).
func (p *TranscriptPrinter) call(name string, args json.RawMessage) string {
	var c bytes.Buffer
	a := string(record.Args(args))
	if json.Compact(&c, []byte(a)) == nil {
		a = c.String()
	}
	return p.paint(sgrCyan, termtext.Printable(name)) + "(" + p.cut(a, "     ") + ")"
}

func (p *TranscriptPrinter) execution(b *strings.Builder, e record.Execution) {
	var at []string
	if e.Server != "" {
		at = append(at, termtext.Printable(e.Server)+"."+termtext.Printable(e.Tool))
	}
	if e.Duration > 0 {
		at = append(at, duration(e.Duration))
	}
	where := strings.Join(at, ", ")
	if !e.IsError {
		label := "<-"
		if where != "" {
			label += " (" + where + ")"
		}
		fmt.Fprintf(b, "     %s %s\n", p.paint(sgrDim, label), p.cut(e.Result, "        "))
		return
	}
	kind := termtext.Printable(e.ErrorKind)
	code := sgrRed
	switch {
	case e.ErrorKind == record.ExecBlocked:
		kind += ", by the suite's tool policy"
		code = sgrYellow
	case e.InfraError():
		kind += ", infrastructure"
		code = sgrYellow
	}
	msg := e.Error
	if msg == "" {
		msg = e.Result
	}
	if where != "" {
		kind += "; " + where
	}
	fmt.Fprintf(b, "     %s %s\n", p.paint(code, "<- error ("+kind+"):"), p.cut(msg, "        "))
	if e.Result != msg {
		fmt.Fprintf(b, "        %s %s\n", p.paint(sgrDim, "the model was told:"), p.cut(e.Result, "          "))
	}
}

func (p *TranscriptPrinter) failure(f *record.Failure) string {
	kind := termtext.Printable(f.Kind)
	if f.HTTPStatus != 0 {
		kind += fmt.Sprintf(", HTTP %d", f.HTTPStatus)
	}
	return p.paint(sgrYellow, "failed ("+kind+", infrastructure):") + " " + block(termtext.Printable(f.Message), "    ")
}

func (p *TranscriptPrinter) ending(b *strings.Builder, tr *record.Transcript) {
	if tr.Answer != "" || tr.Failure == nil {
		answer := p.paint(sgrDim, "(empty)")
		if tr.Answer != "" {
			answer = block(termtext.Printable(tr.Answer), "  ")
		}
		fmt.Fprintf(b, "%s %s\n", p.paint(sgrBold+";"+sgrGreen, "answer:"), answer)
	}
	if tr.Failure != nil {
		fmt.Fprintf(b, "%s\n", p.failure(tr.Failure))
	}
}

// cut makes s printable, cut past the printer's limits unless it shows
// everything, with a note saying how much was left out; lines after the
// first are indented by prefix.
func (p *TranscriptPrinter) cut(s, prefix string) string {
	if !p.o.Full {
		n := 0
		// Cut at whichever limit comes first, on a rune boundary.
		for lines := 1; n < len(s) && n < p.o.CutBytes; n++ {
			if s[n] == '\n' {
				if lines == p.o.CutLines {
					break
				}
				lines++
			}
		}
		for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
			n--
		}
		if n < len(s) {
			rest := s[n:]
			note := "[... " + termtext.Count(len(rest), "more byte")
			if l := strings.Count(rest, "\n"); l > 0 {
				note += ", " + termtext.Count(l, "more line")
			}
			note += "; --full shows all]"
			return block(termtext.Printable(s[:n]), prefix) + " " + p.paint(sgrDim, note)
		}
	}
	return block(termtext.Printable(s), prefix)
}

// block indents every line of s after the first by prefix, so multi-line
// text stays under its label.
func block(s, prefix string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+prefix)
}

// duration renders a wall time for a transcript: 80µs, 1.2ms, 312ms, 2.41s.
func duration(d time.Duration) string {
	switch {
	case d <= 0:
		return "–"
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d/time.Microsecond)
	case d < 10*time.Millisecond:
		return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond))
	case d < time.Second:
		return fmt.Sprintf("%.0fms", float64(d)/float64(time.Millisecond))
	default:
		return fmt.Sprintf("%.2fs", d.Seconds())
	}
}
