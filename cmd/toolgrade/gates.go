package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/toolgrade/toolgrade/internal/cli"
	"github.com/toolgrade/toolgrade/internal/compare"
	"github.com/toolgrade/toolgrade/internal/gate"
	"github.com/toolgrade/toolgrade/internal/gate/expr"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/runs"
	"github.com/toolgrade/toolgrade/internal/store"
	"github.com/toolgrade/toolgrade/internal/summary"
)

// regressionAlpha is the significance level --significant-only counts
// regressions at: compare's default --alpha.
const regressionAlpha = 0.05

// gateFlags are the CI gate flags: --gate and --gate-on (run, report,
// compare), and --max-regressions with --significant-only (run with
// --baseline, compare). Gates judge complete data only: a command whose
// work was interrupted or failed keeps its own exit code and judges nothing.
type gateFlags struct {
	gates gateList
	on    string
	// The regression gate's flags, registered by registerRegressions;
	// maxRegressions < 0 when not given.
	regressions     bool
	baseline        string
	maxRegressions  int
	significantOnly bool
	fs              *flag.FlagSet
	// compared is the comparison compare judges noninferior gates on.
	compared *compare.Comparison
}

// register adds --gate and --gate-on to fs.
func (g *gateFlags) register(fs *flag.FlagSet) {
	g.fs, g.maxRegressions = fs, -1
	fs.Var(&g.gates, "gate", "CI gate `EXPR`, [MODEL[@VARIANT]:]METRIC[@POINT] OP VALUE such as pass>=0.9, p95<=2s or selection@60>=0.8 (a sweep point: 60 decoys) (for run, added to the suite's gates); compare also takes noninferior(METRIC, MARGIN); complete results that fail one exit 4; repeatable")
	fs.StringVar(&g.on, "gate-on", "point", "rate gates judge the `point|lower`: point, the observed rate, or lower, the pessimistic end of its 95% interval (the lower bound for >=, the upper for <=)")
}

// registerRegressions adds --max-regressions and --significant-only, and
// --baseline when withBaseline (run compares with a baseline directory;
// compare has its two sides already).
func (g *gateFlags) registerRegressions(fs *flag.FlagSet, withBaseline bool) {
	g.fs, g.regressions = fs, true
	maxUsage := "fail (exit 4) when more than `N` cases of a model regressed (passed in the baseline, fail now)"
	if withBaseline {
		fs.StringVar(&g.baseline, "baseline", "", "after the run, compare it with the run in `DIR` for --max-regressions")
		maxUsage += "; needs --baseline"
	}
	fs.IntVar(&g.maxRegressions, "max-regressions", -1, maxUsage)
	fs.BoolVar(&g.significantOnly, "significant-only", false, "--max-regressions counts only the regressions of models whose pass rate the McNemar test finds worse (alpha 0.05)")
}

// check validates the flags once parsed and returns how rate gates are
// judged.
func (g *gateFlags) check() (gate.On, error) {
	on, err := gate.ParseOn(g.on)
	if err != nil {
		return on, cli.Usagef("--gate-on %v", err)
	}
	for _, gt := range g.gates {
		if gt.NonInferior() && g.fs.Name() != "compare" {
			return on, cli.Usagef("--gate %s: noninferior judges two sides: give it to toolgrade compare", gt.Expr)
		}
	}
	if !g.regressions {
		return on, nil
	}
	set := map[string]bool{}
	g.fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	switch {
	case set["max-regressions"] && g.maxRegressions < 0:
		return on, cli.Usagef("--max-regressions %d: must be 0 or more", g.maxRegressions)
	case g.significantOnly && g.maxRegressions < 0:
		return on, cli.Usagef("--significant-only needs --max-regressions N")
	case g.fs.Lookup("baseline") == nil:
		return on, nil
	case g.maxRegressions >= 0 && g.baseline == "":
		return on, cli.Usagef("--max-regressions needs --baseline DIR, the run to compare with")
	case g.baseline != "" && g.maxRegressions < 0:
		return on, cli.Usagef("--baseline needs --max-regressions N (0: no case may regress)")
	}
	if g.baseline != "" {
		if _, err := record.ReadRun(g.baseline); err != nil {
			return on, cli.AsUsage(fmt.Errorf("--baseline: %w", err))
		}
	}
	return on, nil
}

// checkBaseline refuses a baseline that is the run's own directory (dir;
// "" when it is not chosen yet, and a new runs/ folder cannot be one).
func (g *gateFlags) checkBaseline(dir string) error {
	if g.baseline != "" && dir != "" && record.AbsPath(g.baseline) == record.AbsPath(dir) {
		return cli.Usagef("--baseline %s is the run's own directory", g.baseline)
	}
	return nil
}

// active reports whether the flags ask for any judgement.
func (g *gateFlags) active() bool { return len(g.gates) > 0 || g.maxRegressions >= 0 }

// judge checks suiteGates and the --gate ones on sum, and with
// --max-regressions the regression counts, prints one line per gate on
// stderr (those that held first, so the last lines are the failures), and
// returns a *gateError when any failed. It is what run, report and compare
// call once their data is complete; it does nothing when no gate is asked.
func (g *gateFlags) judge(sum *summary.Summary, suiteGates []expr.Gate, regs []gate.RegressionCount, on gate.On, stderr io.Writer) error {
	gates := append(append([]expr.Gate(nil), suiteGates...), g.gates...)
	if len(gates) == 0 && g.maxRegressions < 0 {
		return nil
	}
	if err := gate.Unknown(sum, gates); err != nil {
		return cli.AsUsage(err)
	}
	rs := gate.CheckCompared(sum, g.compared, gates, on)
	if g.maxRegressions >= 0 {
		rs = append(rs, gate.Regressions(regs, g.maxRegressions, g.significantOnly)...)
	}
	gate.Write(stderr, rs)
	if n := gate.Failed(rs); n > 0 {
		return &gateError{failed: n, total: len(rs)}
	}
	return nil
}

// regressionCounter compares the finished run in current with the baseline
// run and counts, per model and variant, the cases paired, the cases that
// regressed (passed in baseline, fail in current) and how many of those the
// McNemar test at alpha supports. It is the seam between gates and
// internal/compare; tests give their own.
type regressionCounter func(ctx context.Context, baseline, current string, alpha float64) ([]gate.RegressionCount, error)

// judgeRun judges the gates of a run that completed: the suite's and
// --gate on its summary, and with --baseline its regressions.
func (g *gateFlags) judgeRun(ctx context.Context, run *store.Reader, suiteGates []expr.Gate, on gate.On, count regressionCounter, stderr io.Writer) error {
	if len(suiteGates) == 0 && !g.active() {
		return nil
	}
	dir, meta := run.Dir, run.Run
	if meta.Status != store.StatusComplete {
		return fmt.Errorf("the run in %s is %s: gates judge complete runs only (`toolgrade run --resume %s` finishes it)", dir, meta.Status, dir)
	}
	sum, err := runs.Summarize(run, io.Discard)
	if err != nil {
		return err
	}
	var regs []gate.RegressionCount
	if g.baseline != "" && g.maxRegressions >= 0 {
		if regs, err = count(ctx, g.baseline, dir, regressionAlpha); err != nil {
			return fmt.Errorf("--baseline %s: %w", g.baseline, err)
		}
	}
	return g.judge(sum, suiteGates, regs, on, stderr)
}

// gateList is the repeatable --gate flag; each is parsed as it is given, so
// a typo is a usage error before anything runs.
type gateList []expr.Gate

func (l *gateList) String() string {
	if l == nil {
		return ""
	}
	var s []string
	for _, g := range *l {
		s = append(s, g.Expr)
	}
	return strings.Join(s, ", ")
}

func (l *gateList) Set(text string) error {
	g, err := expr.ParseOne(text)
	var se *expr.SyntaxError
	if errors.As(err, &se) {
		return errors.New(se.Msg)
	}
	*l = append(*l, g)
	return nil
}
