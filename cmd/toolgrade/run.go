package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/redact"
	"github.com/toolgrade/toolgrade/internal/runner"
	"github.com/toolgrade/toolgrade/internal/servers"
	"github.com/toolgrade/toolgrade/internal/stats"
	"github.com/toolgrade/toolgrade/internal/store"
	"github.com/toolgrade/toolgrade/internal/suite"
	"github.com/toolgrade/toolgrade/internal/toolbox"
	"github.com/toolgrade/toolgrade/reports"
)

func runRun(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("run", "SUITE.yaml | --resume DIR", stderr)
	var sf serverFlags
	var ot ollamaTimeouts
	sf.register(fs)
	var ov overrideFlags
	ov.register(fs)
	ot.register(fs)
	models := fs.String("models", "", "comma-separated models (default: the suite's models)")
	repeat := fs.Int("repeat", 1, "runs of each case per model; repeat i uses seed+i")
	parallel := fs.Int("parallel", 1, "trials of one model at once (Ollama's OLLAMA_NUM_PARALLEL must allow it)")
	out := fs.String("out", "", "results `DIR` (default: runs/SUITE-TIMESTAMP)")
	resume := fs.String("resume", "", "finish the run in `DIR` without repeating a trial")
	retries := fs.Int("retries", 2, "times a trial hit by an infrastructure error runs again")
	var ollamaURLs ollamaList
	fs.Var(&ollamaURLs, "ollama", "Ollama `URL` (default: OLLAMA_HOST, else http://127.0.0.1:11434); give it several times to spread trials over several Ollamas, URL#N to run N at once on one")
	hostsFile := fs.String("ollama-hosts", "", "read Ollama hosts from `FILE`, one URL (URL#N or URL N) a line, # comments; joins --ollama")
	noExecute := fs.Bool("no-execute", false, "run no tool: every trial stops at the model's first response, whose calls are scored (as execute: false)")
	waitOllama := fs.Duration("wait-ollama", runner.DefaultWaitOllama, "how long a run waits for an unreachable Ollama before it stops (exit 3); 0: no waiting")
	variants := fs.String("variants", "", "comma-separated variants of the suite to run; base is the servers' own catalog (default: base and every variant)")
	junit := fs.String("junit", "", "write the JUnit XML report to `FILE` when the run ends (also when it stops early: then partial)")
	retryInfra := fs.Bool("retry-infra", true, "wait for an unreachable Ollama, and let --resume rerun infra_error trials; false: both are final")
	keepTruncated := fs.Bool("keep-truncated", false, keepTruncatedUsage+"; run.json records it, so reports rebuilt later count alike")
	stopEarly := fs.Bool("stop-early", false, "stop repeating a case once Wald's test settles its pass rate against --stop-threshold (δ 0.2, α = β = 0.05)")
	stopThreshold := fs.Float64("stop-threshold", stats.DefaultSPRT.Threshold, "the pass rate --stop-early judges each case against")
	var shf shardFlags
	shf.register(fs)
	var gf gateFlags
	gf.register(fs)
	gf.registerRegressions(fs, true)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	gateOn, err := gf.check()
	if err != nil {
		return err
	}

	var (
		dir  string
		w    *store.Writer
		meta *record.Run // the resumed run's; nil for a fresh one until created
		s    *suite.Suite
		done map[record.TrialKey]bool
	)
	defer func() { w.Close() }()
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if err := gf.checkBaseline(cmp.Or(*resume, *out)); err != nil {
		return err
	}
	switch {
	case *resume != "":
		if len(pos) > 0 {
			return usageErrorf("run: give a suite or --resume DIR, not both")
		}
		dir = *resume
		if w, done, err = store.Resume(dir, store.ResumeOptions{RerunInfra: *retryInfra}); err != nil {
			return runDirError(dir, err)
		}
		meta = w.Run()
		if s, err = suite.Load(meta.Suite.Path); err != nil {
			return asUsage(err)
		}
		if err := store.CheckResume(dir, meta, store.Current{SuiteHash: s.Hash}); err != nil {
			return usageErrorf("--resume: %v", err)
		}
		if !set["parallel"] {
			*parallel = meta.Parallel
		}
	case len(pos) == 1:
		if s, err = suite.Load(pos[0]); err != nil {
			return asUsage(err)
		}
		dir = *out
		if dir == "" {
			dir = filepath.Join("runs", fmt.Sprintf("%s-%s", safeName(s.Name), time.Now().Format("20060102-150405")))
		}
		if err := store.CheckFresh(dir); err != nil {
			return runDirError(dir, err)
		}
	default:
		return usageErrorf("run: give one suite file (or --resume DIR)")
	}
	if *repeat < 1 || *parallel < 1 {
		return usageErrorf("run: --repeat and --parallel must be at least 1")
	}
	overrides, err := ov.apply(fs, s, meta)
	if err != nil {
		return err
	}

	modelList := s.Models
	if meta != nil {
		modelList = nil
		for _, m := range meta.Models {
			modelList = append(modelList, m.Name)
		}
		*repeat = meta.Repeat
	}
	if meta != nil && (set["models"] || set["repeat"] || set["no-execute"] && *noExecute != meta.NoExecute) {
		return usageErrorf("run: --models, --repeat and --no-execute cannot change a resumed run")
	}
	if meta != nil && (set["stop-early"] || set["stop-threshold"]) {
		return usageErrorf("run: --stop-early and --stop-threshold cannot change a resumed run (it keeps its rule)")
	}
	if set["stop-threshold"] && !*stopEarly {
		return usageErrorf("run: --stop-threshold needs --stop-early")
	}
	if *stopThreshold <= 0 || *stopThreshold >= 1 {
		return usageErrorf("run: --stop-threshold must lie strictly between 0 and 1, not %g", *stopThreshold)
	}
	if *models != "" {
		modelList = splitList(*models)
	}
	if len(modelList) == 0 {
		return usageErrorf("run: no models: list them in the suite's models or give --models")
	}

	var cfg *servers.Config // nil: no servers, every case brings its own tools
	if toolbox.NeedsServers(s) {
		if cfg, err = suiteServers(s); err != nil {
			return asUsage(err)
		}
	}
	specs, err := hostSpecs(ollamaURLs, *hostsFile)
	if err != nil {
		return err
	}
	if len(specs) > 1 && (*stopEarly || meta != nil && meta.StopEarly != nil) {
		// The pool moves trials between hosts as they fail, and the
		// stopping rule's between-repeat barrier is not built into it yet.
		return usageErrorf("run: --stop-early runs on one Ollama; give one --ollama, or drop --stop-early")
	}

	r, ol, checked, err := connectOllamas(ctx, specs, &ot, modelList, parallel, stderr)
	if err != nil {
		return err
	}
	if meta != nil {
		if err := store.CheckResume(dir, meta, store.Current{Models: checked}); err != nil {
			return usageErrorf("--resume: %v", err)
		}
	}
	cat, err := connectSuiteServers(ctx, cfg, &sf, stderr)
	if err != nil {
		return err
	}
	defer cat.Close()
	cc := toolbox.NewBase(cat)
	if err := s.Check(cc); err != nil {
		return asUsage(err)
	}
	for _, w := range toolbox.CaseDropWarnings(s, cc) {
		fmt.Fprintf(stderr, "toolgrade: warning: %s\n", reports.Printable(w))
	}
	if meta != nil {
		if err := store.CheckResume(dir, meta, store.Current{CatalogHash: toolbox.CatalogHash(cat)}); err != nil {
			return usageErrorf("--resume: %v", err)
		}
	}
	policy := &bridge.Policy{Tools: cat, Info: cat, Allow: suite.Globs(s.Defaults.AllowTools), Deny: suite.Globs(s.Defaults.DenyTools)}
	vs, err := setupVariants(ctx, s, cc, policy, *variants, set["variants"], meta, dir, &sf, stderr)
	if err != nil {
		return err
	}
	defer vs.Close()
	sh, err := shf.spec(meta, os.Getenv)
	if err != nil {
		return err
	}
	if len(specs) > 1 && sh.N > 1 {
		// Shards spread a run over machines, hosts over Ollamas; the pool's
		// queue does not take a shard's filter yet.
		return usageErrorf("run: --shard runs on one Ollama; give each shard its own --ollama")
	}
	only := sh.Filter(runMatrix(s, checked, vs.Variants, *repeat))

	if w == nil {
		fresh := newRunMeta(s, cat, redact.URL(ol.base.String()), ol.version, *repeat, *parallel)
		if len(r.Hosts) > 0 {
			fresh.Ollama.URL = hostNames(r.Hosts)
		}
		fresh.Overrides = overrides
		fresh.Catalogs = vs.Catalogs
		if *stopEarly {
			rule := stats.SPRT{Threshold: *stopThreshold}.Filled()
			fresh.StopEarly = &record.RunStopEarly{Threshold: rule.Threshold, Delta: rule.Delta, Alpha: rule.Alpha, Beta: rule.Beta}
		}
		fresh.Shard = sh.Record()
		if w, err = store.Create(dir, fresh); err != nil {
			return runDirError(dir, err)
		}
		meta = w.Run()
	}
	if err := w.Update(func(r *record.Run) {
		r.Parallel = *parallel
		r.NoExecute = r.NoExecute || *noExecute
		// Only the reports depend on it, so a resume may add it.
		r.KeepTruncated = r.KeepTruncated || *keepTruncated
		r.Models = store.MergeModels(r.Models, checked)
	}); err != nil {
		return err
	}
	shape := fmt.Sprintf("%d cases × %d models", len(s.Cases), len(modelList))
	if n := len(vs.Variants); n > 1 {
		shape += fmt.Sprintf(" × %d variants", n)
	}
	if !sh.Whole() {
		shape = fmt.Sprintf("shard %s (%d trials) of %s", sh, len(only), shape)
	}
	fmt.Fprintf(stderr, "toolgrade: running %s × %d repeats into %s\n", shape, *repeat, dir)

	runner.TuneGC()
	prog := newProgress(stderr)
	for _, g := range policy.Unmatched(toolInfos(cat)) {
		fmt.Fprintf(stderr, "toolgrade: warning: %s: tool pattern %q matches no tool\n", s.Path, g)
	}
	if n := s.AwaitingReview(); n > 0 {
		fmt.Fprintf(stderr, "toolgrade: warning: %s: %d of %d cases await review (review: true): their expectations are drafts no one has confirmed\n", s.Path, n, len(s.Cases))
	}
	r.Tools, r.Catalog = policy, cat
	r.Out = w.Trials()
	saved := map[string]int{} // per model, this session
	r.OnProgress = func(p runner.Progress) {
		saved[p.Model] = p.Saved
		prog.update(p)
	}
	var rule *stats.SPRT
	var outcomes map[record.TrialKey]string
	if se := meta.StopEarly; se != nil {
		rule = &stats.SPRT{Threshold: se.Threshold, Delta: se.Delta, Alpha: se.Alpha, Beta: se.Beta}
		if len(done) > 0 {
			// The evidence of the earlier sessions counts, so a resume stops
			// the cases they settled.
			outcomes = map[record.TrialKey]string{}
			judge := record.JudgeOptions{KeepTruncated: meta.KeepTruncated || *keepTruncated}
			if _, err := store.ReadTrials(dir, func(t *record.Trial) { outcomes[t.Key()] = runner.Evidence(t, judge) }); err != nil {
				return err
			}
		}
	}
	r.OnWait = func(left time.Duration) {
		fmt.Fprintf(stderr, "toolgrade: Ollama at %s unreachable; waiting (%s left)...\n", ol.base, left.Round(time.Second))
	}
	if *retries == 0 {
		*retries = -1 // the runner's zero would mean its default
	}
	wait := *waitOllama
	if !*retryInfra || wait <= 0 {
		wait = -1 // the runner's zero would mean its default
	}
	r.OnModel = func(m record.Model) {
		if err := w.AddModels(m); err != nil {
			fmt.Fprintf(stderr, "toolgrade: warning: updating %s: %v\n", record.RunFile, err)
		}
	}
	ran, runErr := r.Run(ctx, runner.Config{
		Suite: s, Models: checked, Repeat: *repeat, Parallel: *parallel, Retries: *retries, Done: done,
		WaitOllama: wait, NoExecute: meta.NoExecute, Variants: vs.Variants, Only: only,
		StopEarly: rule, Outcomes: outcomes, Judge: record.JudgeOptions{KeepTruncated: meta.KeepTruncated || *keepTruncated},
	})
	prog.finish()
	end := time.Now()
	err = finishRun(ctx, w, runErr, func(r *record.Run) {
		r.AddRestarts(cat.Restarts())
		r.Models = store.MergeModels(r.Models, ran)
		r.End = end
		if r.StopEarly != nil {
			// Each session counts every unrun trial of a settled case, those
			// an earlier session skipped too, so its count replaces theirs;
			// a session stopped before reaching a model counts less.
			total := 0
			for _, n := range saved {
				total += n
			}
			r.StopEarly.TrialsSaved = max(r.StopEarly.TrialsSaved, total)
		}
	}, stdout, stderr)
	if *junit != "" {
		// CI reads the file however the run ended; run.status in it says
		// whether it is partial.
		if jerr := writeJUnitFile(w.Reader(), *junit, stderr); jerr != nil {
			if err != nil {
				fmt.Fprintf(stderr, "toolgrade: warning: %v\n", jerr)
			} else {
				err = jerr
			}
		}
	}
	if err != nil {
		return err
	}
	return gf.judgeRun(ctx, w.Reader(), s.Gates, gateOn, countRegressions, stderr)
}

// finishRun records how the run ended in run.json (with what ended tells of
// the run), writes the reports and returns the error that stopped the run.
// When the disk that stopped the run also refuses run.json or the summary,
// those errors are warnings: the one printed last is the cause.
func finishRun(ctx context.Context, w *store.Writer, runErr error, ended func(*record.Run), stdout, stderr io.Writer) error {
	dir := w.Dir()
	var down *runner.OllamaDownError
	status, errText := store.StatusComplete, ""
	switch {
	case runErr == nil:
	case ctx.Err() != nil:
		status = store.StatusInterrupted
	case errors.As(runErr, &down):
		// Nothing is wrong with what ran: a resume finishes it.
		status, errText = store.StatusInterrupted, runErr.Error()
	default:
		status, errText = store.StatusFailed, runErr.Error()
	}
	warn := func(err error) error {
		if runErr == nil {
			return err
		}
		fmt.Fprintf(stderr, "toolgrade: warning: %v\n", err)
		return nil
	}
	if err := w.Update(func(r *record.Run) {
		ended(r)
		r.Status, r.Error = status, errText
	}); err != nil {
		if err := warn(err); err != nil {
			return err
		}
	}
	sum, err := writeReports(w.Reader(), stdout, stderr)
	if err == nil {
		// After Ctrl-C too: the Markdown says the run is partial.
		err = writeMarkdownReports(w.Reader(), sum, stderr)
	}
	if err != nil {
		if err := warn(err); err != nil {
			return err
		}
	}
	// After Ctrl-C too: the page marks itself partial from run.json's status.
	if err := writeHTMLReport(w.Reader(), filepath.Join(dir, htmlReportFile), stdout, io.Discard); err != nil {
		if err := warn(err); err != nil {
			return err
		}
	}
	var pe *fs.PathError
	switch {
	case runErr == nil:
		return nil
	case ctx.Err() != nil:
		fmt.Fprintf(stderr, "toolgrade: interrupted; what finished is in %s: `toolgrade run --resume %s` finishes it\n", dir, dir)
		return ctx.Err()
	case down != nil:
		fmt.Fprintf(stderr, "toolgrade: stopped; what finished is in %s: `toolgrade run --resume %s` finishes it once Ollama answers\n", dir, dir)
		return asInfra(runErr)
	case errors.As(runErr, &pe):
		// The run's own files failed (disk full, read-only): not Ollama's
		// nor a server's fault.
		return runErr
	default:
		return asInfra(runErr)
	}
}

// suiteServers reads the suite's servers: a file beside it, or inline.
func suiteServers(s *suite.Suite) (*servers.Config, error) {
	switch {
	case s.ServersNode != nil:
		return servers.ParseNode(s.ServersNode, s.Path, s.Dir)
	case s.ServersPath != "":
		return servers.Load(s.ServersPath)
	}
	return nil, fmt.Errorf("%s names no MCP servers: add `servers: FILE` (an mcpServers file) or an inline mcpServers object", s.Path)
}

func newRunMeta(s *suite.Suite, cat *servers.Catalog, url, ollamaVersion string, repeat, parallel int) *record.Run {
	meta := &record.Run{
		Suite:       record.RunSuite{Name: s.Name, Path: absPath(s.Path), Hash: s.Hash},
		Harness:     version(),
		Ollama:      record.RunOllama{URL: url, Version: ollamaVersion},
		CatalogHash: toolbox.CatalogHash(cat),
		Repeat:      repeat,
		Parallel:    parallel,
		Options:     s.Defaults.Options,
		Think:       s.Defaults.Think,
		MaxRounds:   s.Defaults.MaxRounds,
		Start:       time.Now(),
	}
	meta.BaseSeed, _ = s.Defaults.Seed()
	meta.Cases = s.CaseHashes()
	meta.Servers = toolbox.RunServers(cat)
	for _, f := range cat.Failed() {
		meta.FailedServers = append(meta.FailedServers, f.Name)
	}
	return meta
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func safeName(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == '.' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9') {
			return r
		}
		return '-'
	}, s)
	if s == "" {
		return "run"
	}
	return s
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}
