package main

import (
	"cmp"
	"context"
	"flag"
	"io"
	"strings"
	"time"

	"github.com/toolgrade/toolgrade/internal/cli"
	"github.com/toolgrade/toolgrade/internal/gate"
	"github.com/toolgrade/toolgrade/internal/progress"
	"github.com/toolgrade/toolgrade/internal/report"
	"github.com/toolgrade/toolgrade/internal/runner"
	"github.com/toolgrade/toolgrade/internal/runs"
	"github.com/toolgrade/toolgrade/internal/stats"
	"github.com/toolgrade/toolgrade/internal/store"
	"github.com/toolgrade/toolgrade/internal/suite"
)

// runRun is `toolgrade run`: the flags become a runs.Spec, internal/runs
// runs it, and its error is the exit status.
func runRun(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("run", "SUITE.yaml | --resume DIR", stderr)
	var f runFlags
	f.register(fs)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	gateOn, err := f.gates.check()
	if err != nil {
		return err
	}
	spec := f.spec(given(fs), pos)
	if spec.MaxSuiteSize, err = cli.ParseSize(f.maxSuiteSize); err != nil {
		return cli.Usagef("run: --max-suite-size %v", err)
	}
	if err := f.gates.checkBaseline(cmp.Or(spec.Resume, spec.Out)); err != nil {
		return err
	}
	conn, err := connectOptions(&f.servers, stderr)
	if err != nil {
		return err
	}
	return runs.Run(ctx, spec, &runs.Options{
		Stderr:   stderr,
		Harness:  version(),
		Connect:  conn,
		Reporter: &runReporter{RunFiles: report.RunFiles{Stdout: stdout, Stderr: stderr}, gates: &f.gates, on: gateOn},
		Progress: progress.NewPrinter(stderr),
		Gates:    f.gates.gates,
	})
}

// runFlags are run's flags.
type runFlags struct {
	servers                    serverFlags
	timeouts                   ollamaTimeouts
	overrides                  overrideFlags
	shard                      shardFlags
	gates                      gateFlags
	ollama                     ollamaList
	models, out, resume        string
	maxSuiteSize               string
	hostsFile, variants, junit string
	repeat, parallel, retries  int
	noExecute, keepTruncated   bool
	retryInfra, stopEarly      bool
	allRepeats, keepTrialDirs  bool
	stopThreshold              float64
	waitOllama                 time.Duration
}

func (f *runFlags) register(fs *flag.FlagSet) {
	f.servers.register(fs)
	f.overrides.register(fs)
	f.timeouts.register(fs)
	fs.StringVar(&f.models, "models", "", "comma-separated models `a,b` (default: the suite's models)")
	fs.IntVar(&f.repeat, "repeat", 1, "runs of each case per model; repeat i uses seed+i")
	fs.IntVar(&f.parallel, "parallel", 1, "trials of one model at once (Ollama's OLLAMA_NUM_PARALLEL must allow it)")
	fs.StringVar(&f.out, "out", "", "results `DIR` (default: runs/SUITE-TIMESTAMP)")
	fs.StringVar(&f.resume, "resume", "", "finish the run in `DIR` without repeating a trial")
	fs.StringVar(&f.maxSuiteSize, "max-suite-size", "32MiB", "largest suite file `SIZE` read (bytes, or 100MB, 1GiB); a larger one is refused before it is parsed")
	fs.IntVar(&f.retries, "retries", 2, "times a trial hit by an infrastructure error runs again")
	fs.Var(&f.ollama, "ollama", "Ollama `URL` (default: OLLAMA_HOST, else http://127.0.0.1:11434); give it several times to spread trials over several Ollamas, URL#N to run N at once on one")
	fs.StringVar(&f.hostsFile, "ollama-hosts", "", "read Ollama hosts from `FILE`, one URL (URL#N or URL N) a line, # comments; joins --ollama")
	fs.BoolVar(&f.noExecute, "no-execute", false, "run no tool: every trial stops at the model's first response, whose calls are scored (as execute: false)")
	fs.DurationVar(&f.waitOllama, "wait-ollama", runner.DefaultWaitOllama, "how long a run waits for an unreachable Ollama before it stops (exit 3); 0: no waiting")
	fs.StringVar(&f.variants, "variants", "", "comma-separated variants `a,b` of the suite to run; base is the servers' own catalog (default: base and every variant)")
	fs.StringVar(&f.junit, "junit", "", "write the JUnit XML report to `FILE` when the run ends (also when it stops early: then partial)")
	fs.BoolVar(&f.retryInfra, "retry-infra", true, "wait for an unreachable Ollama, and let --resume rerun infra_error trials; false: both are final")
	fs.BoolVar(&f.keepTruncated, "keep-truncated", false, keepTruncatedUsage+"; run.json records it, so reports rebuilt later count alike")
	fs.BoolVar(&f.stopEarly, "stop-early", false, "stop repeating a case once Wald's test settles its pass rate against --stop-threshold (δ 0.2, α = β = 0.05)")
	fs.BoolVar(&f.allRepeats, "all-repeats", false, "send every repeat to the model, even where a case's first two agreed at temperature 0 (by default the later ones are recorded as their copies)")
	fs.BoolVar(&f.keepTrialDirs, "keep-trial-dirs", false, "keep the directories of per-trial servers (perTrial: true) of the trials that did not pass; the run's end says where")
	fs.Float64Var(&f.stopThreshold, "stop-threshold", stats.DefaultSPRT.Threshold, "the pass rate --stop-early judges each case against")
	f.shard.register(fs)
	f.gates.register(fs)
	f.gates.registerRegressions(fs, true)
}

// spec is the run the flags ask for; given are the flags set, pos the
// arguments.
func (f *runFlags) spec(given map[string]bool, pos []string) *runs.Spec {
	s := &runs.Spec{
		Resume: f.resume, Out: f.out,
		Repeat:   ifGiven(given, "repeat", f.repeat),
		Parallel: ifGiven(given, "parallel", f.parallel),
		Ollama:   f.ollama, HostsFile: f.hostsFile, Timeouts: f.timeouts.Timeouts,
		Retries: f.retries, WaitOllama: f.waitOllama, FinalInfra: !f.retryInfra,
		NoExecute: ifGiven(given, "no-execute", f.noExecute), KeepTruncated: f.keepTruncated,
		StopEarly: ifGiven(given, "stop-early", f.stopEarly), StopThreshold: ifGiven(given, "stop-threshold", f.stopThreshold),
		Overrides: f.overrides.overrides(given, f.servers.file),
		Shard:     f.shard.spec(given), JUnit: f.junit,
		AllRepeats: f.allRepeats, KeepTrialDirs: f.keepTrialDirs,
	}
	// A second suite is as wrong as none; with --resume, one is too many.
	if len(pos) == 1 || len(pos) > 1 && f.resume != "" {
		s.Suite = pos[0]
	}
	if given["models"] {
		s.Models = append([]string{}, splitList(f.models)...)
	}
	if given["variants"] {
		s.Variants = append([]string{}, splitList(f.variants)...)
	}
	return s
}

// runReporter is runs.Reporter: internal/report's files, and the gates of
// the suite and of the command line.
type runReporter struct {
	report.RunFiles
	gates *gateFlags
	on    gate.On
}

func (p *runReporter) Gates(ctx context.Context, run *store.Reader, s *suite.Suite) error {
	return p.gates.judgeRun(ctx, run, s.Gates, p.on, runs.CountRegressions(p.Stderr), p.Stderr)
}

// suiteServers reads the suite's servers (runs.SuiteServers).

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
