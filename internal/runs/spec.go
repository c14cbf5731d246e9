package runs

import (
	"time"

	"github.com/toolgrade/toolgrade/internal/cli"
	"github.com/toolgrade/toolgrade/internal/stats"
)

// Spec is one `toolgrade run`: what to run and how, as plain data. A field
// whose zero value would hide whether the user gave it is a pointer or a
// slice, nil when not given: a resumed run refuses some settings even when
// they repeat its own.
type Spec struct {
	// Suite is the suite file of a fresh run; "" with Resume.
	Suite string
	// Resume is the directory of a run to finish without repeating a trial;
	// "": a fresh run.
	Resume string
	// Out is a fresh run's directory; "": runs/SUITE-TIMESTAMP.
	Out string
	// MaxSuiteSize is the largest suite file read, in bytes; 0:
	// suite.DefaultMaxSize.
	MaxSuiteSize int64
	// Models replace the suite's models when not empty; nil: not given. A
	// resumed run keeps its own and refuses any list, even an empty one.
	Models []string
	// Repeat is the runs of each case per model, repeat i with seed+i; nil:
	// 1, or the resumed run's, which it cannot change.
	Repeat *int
	// Parallel is the trials of one model at once; nil: 1, or the resumed
	// run's. A single Ollama given as URL#N sets it to N.
	Parallel *int
	// Ollama are the Ollamas to run on, each URL or URL#N (N trials at once
	// there); several make a pool. Nil: OLLAMA_HOST, else the default.
	Ollama []string
	// HostsFile lists more Ollamas, one a line (see ReadHostsFile); "": none.
	HostsFile string
	// Timeouts bound each request to Ollama.
	Timeouts Timeouts
	// Retries is how many times a trial hit by an infrastructure error runs
	// again; zero: none.
	Retries int
	// WaitOllama is how long the run waits for an unreachable Ollama before
	// it stops (resumable); zero: no waiting.
	WaitOllama time.Duration
	// FinalInfra makes infrastructure errors final: no waiting for Ollama,
	// and a resume does not run infra_error trials again. False: both.
	FinalInfra bool
	// NoExecute runs no tool: every trial stops at the model's first
	// response. Nil: not given (false, or the resumed run's, which it
	// cannot change).
	NoExecute *bool
	// KeepTruncated counts the trials whose prompt reached num_ctx in the
	// rates; run.json records it, and a resume may add it.
	KeepTruncated bool
	// StopEarly stops repeating a case once Wald's test settles its pass
	// rate; nil: not given (off, or the resumed run's rule, which it keeps).
	StopEarly *bool
	// StopThreshold is the pass rate StopEarly judges against; nil:
	// stats.DefaultSPRT's.
	StopThreshold *float64
	// KeepTrialDirs keeps the per-trial directory of each trial that did
	// not pass (run --keep-trial-dirs), and the run's end says where; false
	// removes each as its trial ends.
	KeepTrialDirs bool
	// AllRepeats sends every repeat to the model; false records the later
	// repeats of a case whose first two agreed at temperature 0 as their
	// copies (see runner.Config.AllRepeats). run.json records it, and a
	// resume keeps it (a session may add it, never remove it).
	AllRepeats bool
	// Variants are the suite variants to run, "base" for the servers' own
	// catalog; nil: not given (the base and every variant, or a resumed
	// run's own, which it cannot change).
	Variants []string
	// Overrides replace the suite's settings for this run; a resumed run
	// applies again those its run.json recorded and refuses new ones.
	Overrides Overrides
	// Shard is the part of the trials this run holds; zero: all.
	Shard Shard
	// JUnit is a file to write the JUnit XML report to when the run ends,
	// however it ends; "": none.
	JUnit string
}

// Validate refuses what the spec asks that no run can do, with the messages
// of run's flags, before anything is read or connected.
func (s *Spec) Validate() error {
	resume := s.Resume != ""
	switch {
	case resume && s.Suite != "":
		return cli.Usagef("run: give a suite or --resume DIR, not both")
	case !resume && s.Suite == "":
		return cli.Usagef("run: give one suite file (or --resume DIR)")
	case s.Repeat != nil && *s.Repeat < 1, s.Parallel != nil && *s.Parallel < 1:
		return cli.Usagef("run: --repeat and --parallel must be at least 1")
	}
	if given := s.Overrides.flags(); resume && len(given) > 0 {
		return overridesRefused(given)
	}
	if err := s.Overrides.check(); err != nil {
		return err
	}
	if err := s.checkResumeFlags(); err != nil {
		return err
	}
	stop := s.StopEarly != nil && *s.StopEarly
	switch t := s.threshold(); {
	case s.StopThreshold != nil && !stop:
		return cli.Usagef("run: --stop-threshold needs --stop-early")
	case t <= 0 || t >= 1:
		return cli.Usagef("run: --stop-threshold must lie strictly between 0 and 1, not %g", t)
	}
	if _, err := parseHosts(s.Ollama); err != nil {
		return err
	}
	return s.Shard.check()
}

// threshold is the pass rate StopEarly judges against.
func (s *Spec) threshold() float64 {
	if s.StopThreshold != nil {
		return *s.StopThreshold
	}
	return stats.DefaultSPRT.Threshold
}

// repeat and parallel are the Spec's, or their defaults.
func (s *Spec) repeat() int   { return deref(s.Repeat, 1) }
func (s *Spec) parallel() int { return deref(s.Parallel, 1) }

func deref[T any](p *T, zero T) T {
	if p == nil {
		return zero
	}
	return *p
}
