package gate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/toolgrade/toolgrade/internal/gate/expr"
	"github.com/toolgrade/toolgrade/internal/srcpos"
	"github.com/toolgrade/toolgrade/internal/summary"
)

// Unknown is the first gate that names a model or variant the summary has
// no row of, as an error with did-you-mean and the names there are; nil
// when every gate names rows that exist (or none). Such a gate is a
// mistake in the command or the suite, not a failing model: commands
// refuse it as a usage error before judging (exit 2, not the gate's 4),
// where Check would fail it. A gate on a sweep point names no variant.
func Unknown(s *summary.Summary, gates []expr.Gate) error {
	if s == nil || len(s.Models) == 0 {
		return nil // nothing ran: Check says there is nothing to judge
	}
	var models, variants []string
	for _, m := range s.Models {
		if !slices.Contains(models, m.Model) {
			models = append(models, m.Model)
		}
		if !slices.Contains(variants, m.Variant) {
			variants = append(variants, m.Variant)
		}
	}
	return UnknownIn(models, variants, gates)
}

// UnknownIn is Unknown for a run that has not run yet: the first gate
// that names a model or variant not among those it will run ("" or
// "base" for the servers' own catalog), as an error with did-you-mean;
// run checks its gates so before the first trial, where a typo would
// otherwise cost the whole run.
func UnknownIn(models, variants []string, gates []expr.Gate) error {
	variants = slices.Clone(variants)
	for i, v := range variants {
		if v == "" {
			variants[i] = "base"
		}
	}
	for _, g := range gates {
		if g.Model != "" && !slices.Contains(models, g.Model) {
			return fmt.Errorf("gate %s: the run has no model %q%s", g.Expr, g.Model, nameHint(g.Model, models, "models"))
		}
		if g.Variant != "" && g.Point == "" && !slices.Contains(variants, g.Variant) {
			return fmt.Errorf("gate %s: the run has no variant %q%s", g.Expr, g.Variant, nameHint(g.Variant, variants, "variants"))
		}
	}
	return nil
}

// nameHint is " (did you mean "x"? models: a, b)", or without the
// suggestion when none is near.
func nameHint(name string, names []string, noun string) string {
	list := noun + ": " + strings.Join(names, ", ")
	if s := srcpos.Suggest(name, names); s != "" {
		return fmt.Sprintf(" (did you mean %q? %s)", s, list)
	}
	return " (" + list + ")"
}
