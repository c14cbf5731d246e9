package summary

import (
	"fmt"
	"strings"
)

// warnings are what a row's figures warn of: infrastructure errors,
// truncated prompts, too few scored trials, flaky cases.
func warnings(m *ModelSummary, variants bool) []string {
	var out []string
	name := m.Label(variants)
	if m.Infra > 0 {
		out = append(out, fmt.Sprintf("%s: %d trials hit infrastructure errors (Ollama or MCP failures, after retries); they are kept out of every rate", name, m.Infra))
	}
	switch {
	case m.Excluded > 0:
		out = append(out, fmt.Sprintf("%s: %d trials had a prompt that reached num_ctx: Ollama cut it, and the tools may have been lost; they are kept out of every rate (--keep-truncated counts them); raise num_ctx", name, m.Excluded))
	case m.Truncated > 0:
		out = append(out, fmt.Sprintf("%s: %d trials had a prompt that reached num_ctx: Ollama cut it, and the tools may have been lost; they are counted in the rates (--keep-truncated); raise num_ctx", name, m.Truncated))
	}
	if m.Scored > 0 && m.Scored < 10 {
		out = append(out, fmt.Sprintf("%s: only %d scored trials: the intervals are wide; add cases or --repeat", name, m.Scored))
	}
	if len(m.Flaky) > 0 {
		out = append(out, fmt.Sprintf("%s: flaky cases (passed in some repeats, failed in others): %s", name, strings.Join(m.Flaky, ", ")))
	}
	return out
}
