package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/toolgrade/toolgrade/harness/compare"
	"github.com/toolgrade/toolgrade/harness/record"
	"github.com/toolgrade/toolgrade/harness/store"
	"github.com/toolgrade/toolgrade/reports"
)

// runCompare is `toolgrade compare`: two runs, or two models or two variants
// of one run, paired case by case. It exits 0 whatever the verdict, unless a
// gate (--gate on the current side, --max-regressions) fails: then 4.
func runCompare(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("compare", "BASE CURRENT | DIR --models a,b | DIR --variants a,b", stderr)
	format := fs.String("format", "terminal", "the comparison's `FORMAT`: terminal, json (schema "+compare.Format+") or html (one self-contained page)")
	asJSON := fs.Bool("json", false, "the same as --format json")
	outPath := fs.String("o", "", "write the comparison to `FILE` (replaced atomically) instead of stdout")
	models := fs.String("models", "", "compare models `a,b` of one run (a is the base), pairing their trials by variant, case and repeat")
	variants := fs.String("variants", "", "compare variants `a,b` of one run (a is the base; \"base\" is the servers' own descriptions), pairing by model, case and repeat")
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
	if *format != "terminal" && *format != "json" && *format != "html" {
		return usageErrorf("compare: --format %q: want one of terminal, json, html", *format)
	}
	if *alpha <= 0 || *alpha >= 1 {
		return usageErrorf("compare: --alpha %g: must be between 0 and 1", *alpha)
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
	var sum *reports.Summary
	if len(gf.gates) > 0 {
		current.Run.KeepTruncated = opts.KeepTruncated
		if sum, err = summarize(current, io.Discard); err != nil {
			return err
		}
	}
	return gf.judge(sum, nil, regressionCounts(c), gateOn, stderr)
}

func openRun(dir string) (*store.Reader, error) {
	r, err := store.Open(dir)
	if err != nil {
		return nil, asUsage(fmt.Errorf("compare: %w", err))
	}
	return r, nil
}
