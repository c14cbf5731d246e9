package main

import (
	"context"
	"fmt"
	"io"

	"github.com/toolgrade/toolgrade/internal/cli"
	"github.com/toolgrade/toolgrade/internal/compare"
	"github.com/toolgrade/toolgrade/internal/gate/expr"
	"github.com/toolgrade/toolgrade/internal/report"
)

// runPlan is `toolgrade plan`: how many paired trials would show a
// candidate not worse than a base by more than a margin, from a pilot run
// or stated rates (internal/compare plans, reports renders).
func runPlan(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("plan", "DIR --models a,b [--margin M] | --rates BASE,CURRENT --discordance D --margin M", stderr)
	var spec compare.PlanSpec
	fs.StringVar(&spec.Models, "models", "", "the pilot run's two models `a,b`, a the base and b the candidate, as compare pairs them")
	fs.Func("margin", "the non-inferiority `MARGIN` to plan for: 5pts, 5% or 0.05 (default: the pilot's suite's margin:)", func(s string) (err error) { spec.Margin, err = expr.ParseMargin(s); return err })
	fs.Float64Var(&spec.Power, "power", compare.NIPower, "the chance the planned pairs show the candidate not worse when it is as good as the rates say")
	fs.StringVar(&spec.Rates, "rates", "", "plan from stated pass rates `BASE,CURRENT` (0.92,0.9 or 92%,90%) instead of a pilot run")
	fs.StringVar(&spec.Discordance, "discordance", "", "with --rates, the `SHARE` of pairs on which the two would disagree (0.1 or 10%)")
	asJSON := fs.Bool("json", false, "the plan as JSON (\"format\": \""+compare.PlanFormat+"\")")
	var err error
	if spec.Dirs, err = parse(fs, args); err != nil {
		return err
	}
	p, err := compare.NewPlan(&spec)
	if err != nil {
		return cli.AsUsage(fmt.Errorf("plan: %w", err))
	}
	name := "terminal"
	if *asJSON {
		name = "json"
	}
	f, err := report.Find(name, report.KindPlan)
	if err != nil {
		return err
	}
	return f.Plan(stdout, p)
}
