package summary

import (
	"fmt"
	"strings"

	"github.com/toolgrade/toolgrade/internal/termtext"
)

// warnings are what a row's figures warn of: infrastructure errors,
// truncated prompts, too few scored trials, flaky cases.
func warnings(m *ModelSummary, variants bool) []string {
	var out []string
	name := m.Label(variants)
	if n := m.Infra; n > 0 {
		out = append(out, fmt.Sprintf("%s: %s hit %s (Ollama or MCP failures, after retries); %s kept out of every rate",
			name, termtext.Count(n, "trial"), termtext.Plural(n, "an infrastructure error", "infrastructure errors"), termtext.Plural(n, "it is", "they are")))
	}
	switch {
	case m.Excluded > 0:
		n := m.Excluded
		out = append(out, fmt.Sprintf("%s: %s a prompt that reached num_ctx: Ollama cut it, and the tools may have been lost; %s kept out of every rate (--keep-truncated counts %s); raise num_ctx",
			name, termtext.Count(n, "trial")+" had", termtext.Plural(n, "it is", "they are"), termtext.Plural(n, "it", "them")))
	case m.Truncated > 0:
		n := m.Truncated
		out = append(out, fmt.Sprintf("%s: %s a prompt that reached num_ctx: Ollama cut it, and the tools may have been lost; %s counted in the rates (--keep-truncated); raise num_ctx",
			name, termtext.Count(n, "trial")+" had", termtext.Plural(n, "it is", "they are")))
	}
	if m.Scored > 0 && m.Scored < 10 {
		out = append(out, fmt.Sprintf("%s: only %s: the intervals are wide; add cases or --repeat", name, termtext.Count(m.Scored, "scored trial")))
	}
	if len(m.Flaky) > 0 {
		out = append(out, fmt.Sprintf("%s: flaky cases (passed in some repeats, failed in others): %s", name, strings.Join(m.Flaky, ", ")))
	}
	return out
}
