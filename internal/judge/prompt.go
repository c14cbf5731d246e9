package judge

import (
	"fmt"
	"strings"

	"github.com/ollama/ollama/api"
	"github.com/toolgrade/toolgrade/internal/record"
)

// systemPrompt tells the judge what it grades and how to answer.
const systemPrompt = `You grade an AI assistant's final answer against a rubric. You are shown the question the assistant was asked, the results of the tools it called (exactly what it saw), its final answer, and the rubric.
Judge only whether the final answer meets the rubric. Where the rubric asks that the answer be grounded in the tool results, check every claim against them: a claim the tool results do not support fails.
Reply with one JSON object and nothing else: {"verdict": "pass" or "fail", "reason": "one sentence saying why"}.`

// maxResult bounds each tool result shown to the judge: a result larger
// than this is cut, and the judge is told so.
const maxResult = 8000

// Format is the JSON schema of the judge's reply, sent as the request's
// format (Ollama's structured outputs).
const Format = `{"type":"object","properties":{"verdict":{"type":"string","enum":["pass","fail"]},"reason":{"type":"string"}},"required":["verdict","reason"]}`

// Messages are the judge's conversation for trial t's answer and rubric:
// the grading instructions, then one message with the question (the
// trial's opening turns), the tool results the model saw, the answer and
// the rubric.
func Messages(t *record.Trial, rubric string) []api.Message {
	var b strings.Builder
	tr := t.Transcript
	b.WriteString("# Question\n")
	for _, m := range tr.Messages {
		if m.Role == "system" {
			continue
		}
		fmt.Fprintf(&b, "%s: %s\n", m.Role, m.Content)
	}
	b.WriteString("\n# Tool results the assistant saw\n")
	ex := tr.Executions()
	if len(ex) == 0 {
		b.WriteString("(none: the assistant called no tool)\n")
	}
	for i, e := range ex {
		status := "returned"
		if e.IsError {
			status = "failed with"
		}
		fmt.Fprintf(&b, "%d. %s(%s) %s:\n%s\n", i+1, e.Name, record.Args(e.Arguments), status, cut(e.Result))
	}
	fmt.Fprintf(&b, "\n# The assistant's final answer\n%s\n\n# Rubric\n%s\n", tr.Answer, rubric)
	return []api.Message{{Role: "system", Content: systemPrompt}, {Role: "user", Content: b.String()}}
}

// cut shortens a tool result to maxResult bytes, on a rune boundary.
func cut(s string) string {
	if len(s) <= maxResult {
		return s
	}
	n := maxResult
	for n > 0 && !utf8Start(s[n]) {
		n--
	}
	return s[:n] + fmt.Sprintf("\n[... %d more bytes not shown]", len(s)-n)
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// Answered reports whether t ended with a final answer the judge can
// grade: no infrastructure failure, and some text.
func Answered(t *record.Trial) bool {
	tr := t.Transcript
	return t.Score.Outcome != record.OutcomeInfraError && tr != nil && tr.Failure == nil && strings.TrimSpace(tr.Answer) != ""
}
