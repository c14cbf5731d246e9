package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/toolgrade/toolgrade/internal/cli"
	"github.com/toolgrade/toolgrade/internal/compare"
	"github.com/toolgrade/toolgrade/internal/curve"
	"github.com/toolgrade/toolgrade/internal/gate"
	"github.com/toolgrade/toolgrade/internal/gate/expr"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/report"
	"github.com/toolgrade/toolgrade/internal/runs"
	"github.com/toolgrade/toolgrade/internal/store"
	"github.com/toolgrade/toolgrade/internal/summary"
)

// compareFlags are compare's flags, parsed and checked.
type compareFlags struct {
	format, outPath            string
	models, variants, sweep    string
	threshold, alpha, margin   float64
	keepTruncated              bool
	gates                      gateFlags
	gateOn                     gate.On
	sweepGiven, thresholdGiven bool
}

// runCompare is `toolgrade compare`: two runs, or two models or two variants
// of one run, paired case by case. It exits 0 whatever the verdict, unless a
// gate (--gate on the current side, --max-regressions) fails: then 4.
func runCompare(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	f, pos, err := parseCompareFlags(args, stderr)
	if err != nil {
		return err
	}
	if f.sweep != "" || f.sweepGiven {
		return compareSweep(pos, f, stdout, stderr)
	}
	if f.thresholdGiven {
		return cli.Usagef("compare: --threshold goes with --sweep AXIS")
	}
	format, err := report.Find(f.format, report.KindComparison)
	if err != nil {
		if sweep, _ := report.Find(f.format, report.KindSweep); sweep != nil {
			return cli.Usagef("compare: --format %s goes with --sweep AXIS; two runs, models or variants compare as %s", f.format, report.List(report.KindComparison))
		}
		return fmt.Errorf("compare: %w", err)
	}
	c, sum, warnings, err := comparePair(pos, f)
	if err != nil {
		return err
	}
	store.Warn(stderr, warnings)
	err = runs.WriteOutput(f.outPath, stdout, func(w io.Writer) error { return format.Comparison(w, c) })
	if err != nil || !f.gates.active() {
		return err
	}
	// Gates: --gate on the current side's summary (comparePair's),
	// --max-regressions on this comparison.
	f.gates.compared = c
	return f.gates.judge(sum, nil, gate.RegressionCounts(c), f.gateOn, stderr)
}

// parseCompareFlags parses compare's flags and checks those that stand
// alone; the positional arguments are returned as given.
func parseCompareFlags(args []string, stderr io.Writer) (*compareFlags, []string, error) {
	fs := newFlags("compare", "BASE CURRENT | DIR --models a,b | DIR --variants a,b | DIR --sweep AXIS", stderr)
	f := &compareFlags{}
	fs.StringVar(&f.format, "format", "terminal", "the comparison's `FORMAT`: "+report.List(report.KindComparison)+" (json's schema is "+compare.Format+", html one self-contained page); with --sweep, "+report.List(report.KindSweep)+" (markdown for a pull request)")
	asJSON := fs.Bool("json", false, "the same as --format json")
	fs.StringVar(&f.outPath, "o", "", "write the comparison to `FILE` (replaced atomically) instead of stdout")
	fs.StringVar(&f.models, "models", "", "compare models `a,b` of one run (a is the base), pairing their trials by variant, case and repeat")
	fs.StringVar(&f.variants, "variants", "", "compare variants `a,b` of one run (a is the base; \"base\" is the servers' own descriptions), pairing by model, case and repeat")
	fs.StringVar(&f.sweep, "sweep", "", "compare the points of a sweep run along `AXIS` (decoys for a tool-count sweep), each paired with its line's first point, and say where each model's selection falls below --threshold")
	fs.Float64Var(&f.threshold, "threshold", curve.DefaultThreshold, "with --sweep, the selection rate each model's curve is judged against: the first point below it, and the first whose 95% interval is wholly below it")
	fs.Float64Var(&f.alpha, "alpha", compare.DefaultAlpha, "significance level of the McNemar and Mann-Whitney tests; a difference with p >= alpha is ~")
	fs.Func("margin", "judge each rate's non-inferiority at `MARGIN` (5pts, 5% or 0.05): is the current side (b) not worse than the base (a) by more than it? Default: the suite's margin:", func(s string) (err error) { f.margin, err = expr.ParseMargin(s); return err })
	fs.BoolVar(&f.keepTruncated, "keep-truncated", false, keepTruncatedUsage)
	f.gates.register(fs)
	f.gates.registerRegressions(fs, false)
	pos, err := parse(fs, args)
	if err != nil {
		return nil, nil, err
	}
	if f.gateOn, err = f.gates.check(); err != nil {
		return nil, nil, err
	}
	if *asJSON {
		if f.format != "terminal" && f.format != "json" {
			return nil, nil, cli.Usagef("compare: --json is --format json; it cannot go with --format %s", f.format)
		}
		f.format = "json"
	}
	if f.alpha <= 0 || f.alpha >= 1 {
		return nil, nil, cli.Usagef("compare: --alpha %g: must be between 0 and 1", f.alpha)
	}
	fs.Visit(func(fl *flag.Flag) {
		f.sweepGiven = f.sweepGiven || fl.Name == "sweep"
		f.thresholdGiven = f.thresholdGiven || fl.Name == "threshold"
	})
	return f, pos, nil
}

// comparePair compares two runs, or two models or variants of one run, as
// the flags say, with --keep-truncated applied. With --gate, sum is the
// summary the gates judge: the current side's run (with --models or
// --variants, the run's), judged as the comparison judged it, made from
// the comparison's own read of the run.
func comparePair(pos []string, f *compareFlags) (c *compare.Comparison, sum *summary.Summary, warnings []*record.SyntaxError, err error) {
	sides, err := compare.ParseSides(len(pos), f.models, f.variants)
	if err != nil {
		return nil, nil, nil, cli.AsUsage(fmt.Errorf("compare: %w", err))
	}
	rds, err := openCompared(pos, f.keepTruncated)
	if err != nil {
		return nil, nil, nil, err
	}
	opts := &compare.Options{Alpha: f.alpha, Margin: f.margin}
	var summarizing *runs.Summarizing
	if len(f.gates.gates) > 0 {
		summarizing = runs.NewSummarizing(rds[len(rds)-1], runs.JudgeOptions(rds...))
		opts.Current = summarizing
	}
	c, warnings, err = sides.Compare(rds, opts)
	if err != nil && sides.Mode != compare.ModeRuns {
		err = cli.AsUsage(err) // a model or variant the run does not have
	}
	if err != nil {
		return nil, nil, warnings, fmt.Errorf("compare: %w", err)
	}
	if summarizing != nil {
		sum = summarizing.Summary()
	}
	return c, sum, warnings, nil
}

// compareSweep is `compare DIR --sweep AXIS`: the run's curves along AXIS,
// each point paired with its line's first, and where each model's selection
// falls below --threshold; --gate judges the run's summary, as with
// --variants.
func compareSweep(pos []string, f *compareFlags, stdout, stderr io.Writer) error {
	switch {
	case f.thresholdGiven && (f.threshold <= 0 || f.threshold > 1):
		return cli.Usagef("compare: --threshold %g: must be a selection rate in (0, 1]", f.threshold)
	case f.sweep == "":
		return cli.Usagef("compare: --sweep needs an AXIS, such as decoys")
	case f.models != "" || f.variants != "":
		return cli.Usagef("compare: give --sweep, --models or --variants, one of them")
	case len(pos) != 1:
		return cli.Usagef("compare: with --sweep, give one run directory")
	case f.format == "html":
		// The one format a sweep's comparison lacks has a better answer
		// than the registry's list.
		return cli.Usagef("compare: --sweep has no html format: `toolgrade report DIR --format html` draws the curves")
	case f.gates.maxRegressions >= 0:
		return cli.Usagef("compare: --max-regressions judges two sides; with --sweep, gate a point instead (--gate selection@60>=0.8)")
	}
	format, err := report.Find(f.format, report.KindSweep)
	if err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	rds, err := openCompared(pos, f.keepTruncated)
	if err != nil {
		return err
	}
	sc, warnings, err := compare.Sweep(rds[0], f.sweep, &compare.SweepOptions{Alpha: f.alpha, Threshold: f.threshold})
	if err != nil {
		return cli.AsUsage(fmt.Errorf("compare: %w", err))
	}
	store.Warn(stderr, warnings)
	err = runs.WriteOutput(f.outPath, stdout, func(w io.Writer) error { return format.Sweep(w, sc) })
	if err != nil || !f.gates.active() {
		return err
	}
	sum, err := runs.Summarize(rds[0], io.Discard)
	if err != nil {
		return err
	}
	return f.gates.judge(sum, nil, nil, f.gateOn, stderr)
}

// openCompared opens the run directories a comparison reads, in order,
// with --keep-truncated applied to each.
func openCompared(dirs []string, keep bool) ([]*store.Reader, error) {
	var rds []*store.Reader
	for _, dir := range dirs {
		r, err := store.Open(dir)
		if err != nil {
			return nil, cli.AsUsage(fmt.Errorf("compare: %w", err))
		}
		rds = append(rds, r)
	}
	applyKeepTruncated(keep, rds...)
	return rds, nil
}
