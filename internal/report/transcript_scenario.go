package report

import (
	"fmt"
	"strings"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/termtext"
)

// isScenario reports whether tr is a scenario's: turns, setup calls or
// state checks.
func isScenario(tr *record.Transcript) bool {
	return len(tr.Turns) > 0 || len(tr.Setup) > 0 || len(tr.Checks) > 0
}

// scenario writes a scenario's transcript: its setup calls, the opening
// messages before the first user turn, then each turn (the user's message
// and who wrote it, its rounds, its answer), then the state checks with
// their verdicts, and the failure that ended it, if any.
func (p *TranscriptPrinter) scenario(b *strings.Builder, tr *record.Transcript) {
	for i, x := range tr.Setup {
		fmt.Fprintf(b, "%s %s\n", p.paint(sgrBold, fmt.Sprintf("setup %d:", i+1)), p.call(x.Name, x.Arguments))
		p.execution(b, x)
	}
	// The opening messages before the first turn's own (a system prompt,
	// earlier context); the turn's message is shown under the turn.
	open := tr.Messages
	if len(tr.Turns) > 0 && len(open) > 0 && open[len(open)-1].Role == "user" {
		open = open[:len(open)-1]
	}
	for _, m := range open {
		p.message(b, m)
	}
	for i, tu := range tr.Turns {
		who := "user"
		if tu.From == record.FromUserModel {
			who = "user (the user model)"
		}
		head := fmt.Sprintf("== turn %d of %d", i+1, len(tr.Turns))
		if tu.RoundLimitHit {
			head += ", round limit hit"
		}
		fmt.Fprintf(b, "%s %s\n", p.paint(sgrBold, head), p.paint(sgrDim, duration(tu.Wall)))
		fmt.Fprintf(b, "%s %s\n", p.paint(sgrBold+";"+sgrBlue, who+":"), block(termtext.Printable(tu.User), "  "))
		for _, r := range tr.TurnRounds(i) {
			p.round(b, r, tr.NotExecuted)
		}
		if i < len(tr.Turns)-1 || tr.Failure == nil {
			answer := p.paint(sgrDim, "(empty)")
			if tu.Answer != "" {
				answer = block(termtext.Printable(tu.Answer), "  ")
			}
			fmt.Fprintf(b, "%s %s\n", p.paint(sgrBold+";"+sgrGreen, "answer:"), answer)
		}
	}
	if u := tr.UserModel; u != nil {
		fmt.Fprintf(b, "%s\n", p.paint(sgrDim, fmt.Sprintf("the user model %s took %s: %d prompt and %d generated tokens, %s",
			termtext.Printable(u.Model), termtext.Count(u.Requests, "request"), u.PromptTokens, u.EvalTokens, duration(u.Wall))))
	}
	for i, c := range tr.Checks {
		verdict := p.paint(sgrBold+";"+sgrGreen, "ok")
		if !c.OK {
			verdict = p.paint(sgrBold+";"+sgrRed, "failed: ") + termtext.Printable(c.Detail)
		}
		fmt.Fprintf(b, "%s %s %s\n", p.paint(sgrBold, fmt.Sprintf("check %d:", i+1)), p.call(c.Name, c.Arguments), verdict)
		fmt.Fprintf(b, "     %s %s\n", p.paint(sgrDim, "<-"), p.cut(c.Result, "        "))
	}
	if tr.Failure != nil {
		fmt.Fprintf(b, "%s\n", p.failure(tr.Failure))
	}
}
