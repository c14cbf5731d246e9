package runs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/cli"
	"github.com/toolgrade/toolgrade/internal/gate"
	"github.com/toolgrade/toolgrade/internal/gate/expr"
	"github.com/toolgrade/toolgrade/internal/judge"
	"github.com/toolgrade/toolgrade/internal/llm"
	"github.com/toolgrade/toolgrade/internal/mcpclient"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/runner"
	"github.com/toolgrade/toolgrade/internal/shard"
	"github.com/toolgrade/toolgrade/internal/store"
	"github.com/toolgrade/toolgrade/internal/suite"
	"github.com/toolgrade/toolgrade/internal/termtext"
	"github.com/toolgrade/toolgrade/internal/toolbox"
)

// Options are what a run needs besides its Spec: where it speaks, its
// environment, and the seams to the packages that compose the catalogs and
// write the reports.
type Options struct {
	// Stderr gets the progress, warnings and what to do next; nil:
	// io.Discard.
	Stderr io.Writer
	// Harness is the program's version, recorded in run.json.
	Harness string
	// Getenv reads the shard of Shard.From "env"; nil: os.Getenv.
	Getenv func(string) string
	// Now names the default run directory; nil: time.Now.
	Now func() time.Time
	// Connect is how the suite's, the variants' and the decoys' servers are
	// connected (the server flags) and their lines printed.
	Connect toolbox.ConnectOptions
	// Reporter writes the reports and judges the gates at the finish; nil:
	// neither.
	Reporter Reporter
	// Progress shows the progress of the trials; nil: none is shown.
	Progress Progress
	// Gates are the command line's gates (--gate), which Reporter judges
	// with the suite's: a gate of either that names a model or variant
	// the run does not have is a usage error before the first trial, not
	// a failed gate after the last. Nil: the suite's alone.
	Gates []expr.Gate
}

// session is one run of Run, from its directory to its finish: what each
// stage finds, for the next.
type session struct {
	spec   *Spec
	o      *Options
	stderr io.Writer

	dir  string
	w    *store.Writer
	old  *record.Run // the resumed run's run.json; nil for a fresh run
	s    *suite.Suite
	done map[record.TrialKey]bool

	overrides        *record.RunOverrides
	models           []string // as asked, in run order
	repeat, parallel int

	ol    *ollamas
	judge *judge.Judge // nil when no case has a rubric
	// users gives each scenario trial its simulated user; nil when no case
	// has one.
	users  func(*suite.Case, *record.Trial) runner.UserModel
	cat    *mcpclient.Catalog
	policy *bridge.Policy
	vs     *toolbox.Set
	shard  shard.Spec
	only   map[record.TrialKey]bool
}

// Run runs spec from its directory to its finish (see Finish) and returns
// the error that decides the exit status: a *cli.UsageError for what the user
// must fix, an *InfraError for Ollama or a server, the context's error once
// interrupted, the seams' errors as they return them.
func Run(ctx context.Context, spec *Spec, o *Options) error {
	if err := spec.Validate(); err != nil {
		return err
	}
	r := &session{spec: spec, o: o, stderr: o.Stderr}
	if r.stderr == nil {
		r.stderr = io.Discard
	}
	defer r.close()
	if err := r.open(); err != nil {
		return err
	}
	if err := r.checkGates(); err != nil {
		return err
	}
	if err := r.connect(ctx); err != nil {
		return err
	}
	if err := r.create(ctx); err != nil {
		return err
	}
	r.warn()
	cfg, err := r.config()
	if err != nil {
		return err
	}
	ending := r.execute(ctx, cfg)
	return Finish(ctx, r.w, ending, &FinishOptions{Reporter: o.Reporter, JUnit: r.w.Run().JUnit, Suite: r.s, Stderr: r.stderr})
}

// checkGates refuses, before anything runs, a gate of the suite or of
// Options.Gates that names a model or variant the run will not run: a
// typo would otherwise be found once every trial had run.
func (r *session) checkGates() error {
	variants, err := toolbox.VariantNames(r.s, r.spec.Variants, r.old)
	if err != nil {
		return nil // --variants is wrong: opening the toolbox says how
	}
	gates := append(slices.Clone(r.s.Gates), r.o.Gates...)
	if err := gate.UnknownIn(r.models, variants, gates); err != nil {
		return cli.AsUsage(fmt.Errorf("run: %w", err))
	}
	return nil
}

// close ends what the session connected, and releases the run directory.
func (r *session) close() {
	if r.vs != nil {
		r.vs.Close()
	}
	if r.cat != nil {
		r.cat.Close()
	}
	r.w.Close()
}

// open takes the run directory (a resumed run's, or a fresh one's, checked
// empty), loads the suite with its overrides, and settles the models,
// repeats and parallelism.
func (r *session) open() error {
	sp := r.spec
	open := r.fresh
	if sp.Resume != "" {
		open = r.resume
	}
	if err := open(); err != nil {
		return err
	}
	if r.parallel < 1 {
		return cli.Usagef("run: --repeat and --parallel must be at least 1")
	}
	r.overrides = sp.Overrides.record()
	r.models, r.repeat = r.s.Models, sp.repeat()
	if r.old != nil {
		r.overrides, r.models, r.repeat = r.old.Overrides, nil, r.old.Repeat
		for _, m := range r.old.Models {
			r.models = append(r.models, m.Name)
		}
	}
	if err := ApplyOverrides(r.s, r.overrides); err != nil {
		return err
	}
	if err := r.s.CheckJudge(); err != nil {
		return cli.AsUsage(err)
	}
	if r.old != nil {
		if err := sp.checkNoExecute(r.old); err != nil {
			return err
		}
	}
	if len(sp.Models) > 0 {
		r.models = sp.Models
	}
	if len(r.models) == 0 {
		return cli.Usagef("run: no models: list them in the suite's models or give --models")
	}
	return nil
}

// resume takes over the run in Spec.Resume, whose suite file must be
// unchanged.
func (r *session) resume() error {
	r.dir = r.spec.Resume
	var err error
	r.w, r.done, err = store.Resume(r.dir, store.ResumeOptions{RerunInfra: !r.spec.FinalInfra})
	if err != nil {
		return DirError(r.dir, err)
	}
	r.old = r.w.Run()
	if r.s, err = suite.Load(r.old.Suite.Path, r.spec.MaxSuiteSize); err != nil {
		return cli.AsUsage(err)
	}
	if err := checkResume(r.dir, r.old, store.Current{SuiteHash: r.s.Hash}); err != nil {
		return err
	}
	r.parallel = deref(r.spec.Parallel, r.old.Parallel)
	return nil
}

// fresh loads Spec.Suite and checks that the run's directory is free.
func (r *session) fresh() error {
	var err error
	if r.s, err = suite.Load(r.spec.Suite, r.spec.MaxSuiteSize); err != nil {
		return cli.AsUsage(err)
	}
	r.dir = r.spec.Out
	if r.dir == "" {
		now := time.Now
		if r.o.Now != nil {
			now = r.o.Now
		}
		r.dir = freeDir(filepath.Join("runs", fmt.Sprintf("%s-%s", safeName(r.s.Name), now().Format("20060102-150405"))))
	}
	if err := store.CheckFresh(r.dir); err != nil {
		return DirError(r.dir, err)
	}
	r.parallel = r.spec.parallel()
	return nil
}

// whereModel is err with, when it is about a model the suite names (not
// one --models gave), the place in the suite where the name is written,
// so the editor opens at the name to correct.
func (r *session) whereModel(err error) error {
	var np *llm.NotPulledError
	if !errors.As(err, &np) || len(r.spec.Models) > 0 {
		return err
	}
	if pos, ok := r.s.ModelPos[np.Model]; ok {
		return fmt.Errorf("%s: models: %w", pos, err)
	}
	return err
}

// freeDir is dir, or dir-2, dir-3, ... when it is taken: two runs of a
// suite started within one second each get a folder of their own. A
// folder it cannot look at is returned for CheckFresh to report.
func freeDir(dir string) string {
	out := dir
	for i := 2; ; i++ {
		if _, err := os.Stat(out); err != nil {
			return out
		}
		out = fmt.Sprintf("%s-%d", dir, i)
	}
}

// connect reaches the Ollama(s) and the servers, checks the cases against
// the tools, readies the variants and settles the shard, refusing a resume
// whose models or catalogs changed.
func (r *session) connect(ctx context.Context) error {
	cfg, err := runServers(ctx, r.s)
	if err != nil {
		return err
	}
	hosts, err := r.spec.hosts()
	if err != nil {
		return err
	}
	if r.ol, err = connectOllamas(ctx, hosts, r.spec.Timeouts, r.models, &r.parallel, r.stderr); err != nil {
		return r.whereModel(err)
	}
	if r.old != nil {
		if err := checkResume(r.dir, r.old, store.Current{Models: r.ol.models}); err != nil {
			return err
		}
	}
	if r.judge, err = NewJudge(ctx, r.s, r.ol.first, r.spec.Retries, r.overrides != nil && r.overrides.JudgeModel != ""); err != nil {
		return err
	}
	if r.users, err = UserModels(ctx, r.s, r.ol.first); err != nil {
		return err
	}
	if r.cat, err = toolbox.Connect(ctx, cfg, r.o.Connect); err != nil {
		return ToolboxErr(err)
	}
	cc := toolbox.NewBase(r.cat)
	if err := r.s.Check(cc); err != nil {
		return cli.AsUsage(err)
	}
	for _, w := range toolbox.CaseDropWarnings(r.s, cc) {
		fmt.Fprintf(r.stderr, "toolgrade: warning: %s\n", termtext.Printable(w))
	}
	if r.old != nil {
		if err := checkResume(r.dir, r.old, store.Current{CatalogHash: toolbox.CatalogHash(r.cat)}); err != nil {
			return err
		}
	}
	r.policy = &bridge.Policy{Tools: r.cat, Info: r.cat, Allow: suite.Globs(r.s.Defaults.AllowTools), Deny: suite.Globs(r.s.Defaults.DenyTools)}
	if err := r.variants(ctx, cc); err != nil {
		return err
	}
	getenv := r.o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	if r.shard, err = r.spec.Shard.resolve(r.old, getenv); err != nil {
		return err
	}
	r.only = r.shard.Filter(matrix(r.s, r.ol.models, r.vs.Variants, r.repeat))
	return nil
}

// variants readies the variants (toolbox.Open): a resumed run's own, whose
// catalogs must be unchanged, or those Spec.Variants selects.
func (r *session) variants(ctx context.Context, cc *toolbox.Base) error {
	var err error
	r.vs, err = toolbox.Open(ctx, toolbox.Spec{
		Suite: r.s, Catalog: cc, Policy: r.policy, Variants: r.spec.Variants,
		Recorded: r.old, Dir: r.dir, Connect: r.o.Connect,
	})
	return ToolboxErr(err)
}

// ToolboxErr is a toolbox error with the exit status its kind asks for:
// servers that failed are an InfraError; the toolbox's usage errors are
// already *cli.UsageError.
func ToolboxErr(err error) error {
	if errors.Is(err, toolbox.ErrInfra) {
		return AsInfra(err)
	}
	return err
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
