package summary

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/toolgrade/toolgrade/internal/termtext"
)

// warnings are what a row's figures warn of: infrastructure errors,
// truncated prompts, too few scored trials, flaky cases; each without the
// row's name, which rowWarnings puts before it.
func warnings(m *ModelSummary) []string {
	var out []string
	if n := m.Infra - m.NotRun; n > 0 {
		out = append(out, fmt.Sprintf("%s hit %s (Ollama or MCP failures, after retries); %s kept out of every rate",
			termtext.Count(n, "trial"), termtext.Plural(n, "an infrastructure error", "infrastructure errors"), termtext.Plural(n, "it is", "they are")))
	}
	if n := m.NotRun; n > 0 {
		out = append(out, fmt.Sprintf("%s not run: %s a tool of a server that failed to connect; %s kept out of every rate as %s",
			termtext.Count(n, "trial"), termtext.Plural(n, "its case expects", "their cases expect"), termtext.Plural(n, "it is", "they are"),
			termtext.Plural(n, "an infrastructure error", "infrastructure errors")))
	}
	switch {
	case m.Excluded > 0:
		n := m.Excluded
		out = append(out, fmt.Sprintf("%s a prompt that reached num_ctx: Ollama cut it, and the tools may have been lost; %s kept out of every rate (--keep-truncated counts %s); raise num_ctx",
			termtext.Count(n, "trial")+" had", termtext.Plural(n, "it is", "they are"), termtext.Plural(n, "it", "them")))
	case m.Truncated > 0:
		n := m.Truncated
		out = append(out, fmt.Sprintf("%s a prompt that reached num_ctx: Ollama cut it, and the tools may have been lost; %s counted in the rates (--keep-truncated); raise num_ctx",
			termtext.Count(n, "trial")+" had", termtext.Plural(n, "it is", "they are")))
	}
	if m.Scored > 0 && m.Scored < 10 {
		out = append(out, fmt.Sprintf("only %s: the intervals are wide; add cases or --repeat", termtext.Count(m.Scored, "scored trial")))
	}
	if len(m.Flaky) > 0 {
		out = append(out, fmt.Sprintf("flaky cases (passed in some repeats, failed in others): %s", strings.Join(m.Flaky, ", ")))
	}
	return out
}

// rowWarnings are the warnings of every row, one per distinct message, in
// the order they first appear, each after the rows it applies to: "m
// (base): ..." for one row; for several, the models with the variants each
// applies to and how many rows that is, so that a sweep whose every point
// ran too few trials says it once, not once a point.
func rowWarnings(models []ModelSummary, variants bool) []string {
	var msgs []string
	rows := map[string][]*ModelSummary{}
	for i := range models {
		for _, w := range warnings(&models[i]) {
			if rows[w] == nil {
				msgs = append(msgs, w)
			}
			rows[w] = append(rows[w], &models[i])
		}
	}
	out := make([]string, len(msgs))
	for i, w := range msgs {
		out[i] = rowsLabel(rows[w], variants) + ": " + w
	}
	return out
}

// rowsLabel names the rows a warning applies to: a row's label; else the
// models ("a, b (2 models)") or, with variants, each model with its
// variants ("a at base, x; b at y (3 rows)"), the models that share the same
// variants together ("a and b at base, x (4 rows)").
func rowsLabel(rows []*ModelSummary, variants bool) string {
	if len(rows) == 1 {
		return rows[0].Label(variants)
	}
	var models []string
	of := map[string][]string{}
	for _, m := range rows {
		if of[m.Model] == nil {
			models = append(models, m.Model)
		}
		of[m.Model] = append(of[m.Model], cmp.Or(m.Variant, "base"))
	}
	if !variants {
		return fmt.Sprintf("%s (%s)", strings.Join(models, ", "), termtext.Count(len(models), "model"))
	}
	uniform := true
	for _, m := range models {
		uniform = uniform && slices.Equal(of[m], of[models[0]])
	}
	parts := make([]string, len(models))
	for i, m := range models {
		parts[i] = m + " at " + strings.Join(of[m], ", ")
	}
	if uniform {
		parts = []string{strings.Join(models, " and ") + " at " + strings.Join(of[models[0]], ", ")}
	}
	return fmt.Sprintf("%s (%s)", strings.Join(parts, "; "), termtext.Count(len(rows), "row"))
}
