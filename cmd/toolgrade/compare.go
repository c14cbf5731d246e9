package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/toolgrade/toolgrade/internal/compare"
	"github.com/toolgrade/toolgrade/internal/curve"
	"github.com/toolgrade/toolgrade/internal/gate"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/store"
	"github.com/toolgrade/toolgrade/internal/summary"
	"github.com/toolgrade/toolgrade/reports"
)

// runCompare is `toolgrade compare`: two runs, or two models or two variants
// of one run, paired case by case. It exits 0 whatever the verdict, unless a
// gate (--gate on the current side, --max-regressions) fails: then 4.
func runCompare(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("compare", "BASE CURRENT | DIR --models a,b | DIR --variants a,b | DIR --sweep AXIS", stderr)
	format := fs.String("format", "terminal", "the comparison's `FORMAT`: terminal, json (schema "+compare.Format+"), markdown (with --sweep, for a pull request) or html (one self-contained page)")
	asJSON := fs.Bool("json", false, "the same as --format json")
	outPath := fs.String("o", "", "write the comparison to `FILE` (replaced atomically) instead of stdout")
	models := fs.String("models", "", "compare models `a,b` of one run (a is the base), pairing their trials by variant, case and repeat")
	variants := fs.String("variants", "", "compare variants `a,b` of one run (a is the base; \"base\" is the servers' own descriptions), pairing by model, case and repeat")
	sweepAxis := fs.String("sweep", "", "compare the points of a sweep run along `AXIS` (decoys for a tool-count sweep), each paired with its line's first point, and say where each model's selection falls below --threshold")
	threshold := fs.Float64("threshold", curve.DefaultThreshold, "with --sweep, the selection rate each model's curve is judged against: the first point below it, and the first whose 95% interval is wholly below it")
	alpha := fs.Float64("alpha", compare.DefaultAlpha, "significance level of the McNemar and Mann-Whitney tests; a difference with p >= alpha is ~")
	keepTruncated := fs.Bool("keep-truncated", false, keepTruncatedUsage)
	var gf gateFlags
	gf.register(fs)
	gf.registerRegressions(fs, false)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	gateOn, err := gf.check()
	if err != nil {
		return err
	}
	if *asJSON {
		if *format != "terminal" && *format != "json" {
			return usageErrorf("compare: --json is --format json; it cannot go with --format %s", *format)
		}
		*format = "json"
	}
	if *format != "terminal" && *format != "json" && *format != "markdown" && *format != "html" {
		return usageErrorf("compare: --format %q: want one of terminal, json, markdown, html", *format)
	}
	if *alpha <= 0 || *alpha >= 1 {
		return usageErrorf("compare: --alpha %g: must be between 0 and 1", *alpha)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *sweepAxis != "" || set["sweep"] {
		if set["threshold"] && (*threshold <= 0 || *threshold > 1) {
			return usageErrorf("compare: --threshold %g: must be a selection rate in (0, 1]", *threshold)
		}
		return compareSweep(pos, *sweepAxis, *threshold, *alpha, *keepTruncated, *models != "" || *variants != "", *format, *outPath, &gf, gateOn, stdout, stderr)
	}
	if set["threshold"] {
		return usageErrorf("compare: --threshold goes with --sweep AXIS")
	}
	if *format == "markdown" {
		return usageErrorf("compare: --format markdown goes with --sweep AXIS; two runs, models or variants compare as terminal, json or html")
	}
	opts := &compare.Options{Alpha: *alpha, KeepTruncated: *keepTruncated}
	var c *compare.Comparison
	var warnings []*record.SyntaxError
	var current *store.Reader // whose summary --gate judges
	switch {
	case *models != "" && *variants != "":
		return usageErrorf("compare: give --models or --variants, not both")
	case *models != "" || *variants != "":
		if len(pos) != 1 {
			return usageErrorf("compare: with --models or --variants, give one run directory")
		}
		flag, list := "--models", *models
		if *variants != "" {
			flag, list = "--variants", *variants
		}
		a, b, ok := strings.Cut(list, ",")
		if !ok || a == "" || b == "" || strings.Contains(b, ",") || a == b {
			return usageErrorf("compare: %s %q: want two different names, a,b", flag, list)
		}
		r, err := openRun(pos[0])
		if err != nil {
			return err
		}
		current = r
		opts.KeepTruncated = opts.KeepTruncated || r.Run.KeepTruncated
		if flag == "--models" {
			c, warnings, err = compare.Models(r, a, b, opts)
		} else {
			c, warnings, err = compare.Variants(r, a, b, opts)
		}
		if err != nil {
			return asUsage(fmt.Errorf("compare: %w", err))
		}
	default:
		if len(pos) != 2 {
			return usageErrorf("compare: give two run directories (BASE CURRENT), or one with --models a,b or --variants a,b")
		}
		base, err := openRun(pos[0])
		if err != nil {
			return err
		}
		cur, err := openRun(pos[1])
		if err != nil {
			return err
		}
		// Both sides judge alike: what the runs recorded only when both
		// kept truncated trials.
		opts.KeepTruncated = opts.KeepTruncated || (base.Run.KeepTruncated && cur.Run.KeepTruncated)
		if c, warnings, err = compare.Runs(base, cur, opts); err != nil {
			return fmt.Errorf("compare: %w", err)
		}
		current = cur
	}
	store.Warn(stderr, warnings)
	err = writeOutput(*outPath, stdout, func(w io.Writer) error {
		switch *format {
		case "json":
			return reports.WriteCompareJSON(w, c)
		case "html":
			return reports.WriteCompareHTML(w, c)
		}
		return reports.WriteCompareTerminal(w, c)
	})
	if err != nil || !gf.active() {
		return err
	}
	// Gates: --gate on the current side's summary (with --models or
	// --variants, the run's), --max-regressions on this comparison.
	var sum *summary.Summary
	if len(gf.gates) > 0 {
		current.Run.KeepTruncated = opts.KeepTruncated
		if sum, err = summarize(current, io.Discard); err != nil {
			return err
		}
	}
	return gf.judge(sum, nil, regressionCounts(c), gateOn, stderr)
}

// compareSweep is `compare DIR --sweep AXIS`: the run's curves along AXIS,
// each point paired with its line's first, and where each model's selection
// falls below threshold; --gate judges the run's summary, as with
// --variants.
func compareSweep(pos []string, axis string, threshold, alpha float64, keepTruncated, pairFlags bool, format, outPath string, gf *gateFlags, gateOn gate.On, stdout, stderr io.Writer) error {
	switch {
	case axis == "":
		return usageErrorf("compare: --sweep needs an AXIS, such as decoys")
	case pairFlags:
		return usageErrorf("compare: give --sweep, --models or --variants, one of them")
	case len(pos) != 1:
		return usageErrorf("compare: with --sweep, give one run directory")
	case format == "html":
		return usageErrorf("compare: --sweep has no html format: `toolgrade report DIR --format html` draws the curves")
	case gf.maxRegressions >= 0:
		return usageErrorf("compare: --max-regressions judges two sides; with --sweep, gate a point instead (--gate selection@60>=0.8)")
	}
	r, err := openRun(pos[0])
	if err != nil {
		return err
	}
	sc, warnings, err := compare.Sweep(r, axis, &compare.SweepOptions{Alpha: alpha, Threshold: threshold, KeepTruncated: keepTruncated || r.Run.KeepTruncated})
	if err != nil {
		return asUsage(fmt.Errorf("compare: %w", err))
	}
	store.Warn(stderr, warnings)
	err = writeOutput(outPath, stdout, func(w io.Writer) error {
		switch format {
		case "json":
			return reports.WriteSweepCompareJSON(w, sc)
		case "markdown":
			return reports.WriteSweepCompareMarkdown(w, sc)
		}
		return reports.WriteSweepCompareTerminal(w, sc)
	})
	if err != nil || !gf.active() {
		return err
	}
	sum, err := summarize(r, io.Discard)
	if err != nil {
		return err
	}
	return gf.judge(sum, nil, nil, gateOn, stderr)
}

func openRun(dir string) (*store.Reader, error) {
	r, err := store.Open(dir)
	if err != nil {
		return nil, asUsage(fmt.Errorf("compare: %w", err))
	}
	return r, nil
}
