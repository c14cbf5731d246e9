// Package rescore judges a run's recorded transcripts again against an
// edited suite, offline: no Ollama, no MCP server. A trial is judged again
// when its case still asks exactly what the trial was asked (the same
// conversation, round limit and execution) and its variant still exists;
// the others are copied unchanged and listed. The tool catalog is the one
// run.json recorded, byte for byte, so it is unchanged by construction: an
// edit of the servers or of a variant's overlays is not seen here (rerun
// for that).
package rescore

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/toolgrade/toolgrade/internal/cli"
	grader "github.com/toolgrade/toolgrade/internal/judge"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/runs"
	"github.com/toolgrade/toolgrade/internal/store"
	"github.com/toolgrade/toolgrade/internal/suite"
	"github.com/toolgrade/toolgrade/internal/termtext"
	"github.com/toolgrade/toolgrade/internal/toolbox"
)

// Spec is one rescore: which run, against which suite, into which
// directory.
type Spec struct {
	// Run is the run directory to judge again; it is only read.
	Run string
	// Suite is the edited suite file.
	Suite string
	// Out is the new run's directory; "": RUN-rescored-TIMESTAMP. It is
	// never Run itself.
	Out string
	// KeepTruncated counts the trials whose prompt reached num_ctx in the
	// rates; the new run.json records it.
	KeepTruncated bool
	// Rejudge judges the answers of the cases with a rubric again, with
	// the judge model of the suite (or JudgeModel) on the Ollama at Ollama
	// ("": OLLAMA_HOST, else the default). False: offline; recorded
	// verdicts are kept, and marked stale where the rubric changed.
	Rejudge    bool
	JudgeModel string
	Ollama     string
}

// Validate refuses a spec without a run or a suite.
func (s *Spec) Validate() error {
	if s.Run == "" || s.Suite == "" {
		return cli.Usagef("rescore: give one run directory and --suite SUITE.yaml")
	}
	if !s.Rejudge && (s.JudgeModel != "" || s.Ollama != "") {
		return cli.Usagef("rescore: --judge-model and --ollama need --rejudge: without it, rescoring asks no model")
	}
	return nil
}

// Options are what a rescore needs besides its Spec.
type Options struct {
	// Stderr gets what was rescored, copied or is new, and the reading
	// warnings; nil: io.Discard.
	Stderr io.Writer
	// Now is the clock of the default directory's name and of run.json's
	// rescored time; nil: time.Now.
	Now func() time.Time
}

// Rescore judges the trials of spec.Run again against spec.Suite into a new
// run directory, says on stderr what it did, and returns the new run for
// its reports. ctx bounds the judge's requests of --rejudge.
func Rescore(ctx context.Context, spec *Spec, o *Options) (*store.Reader, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	stderr, now := o.Stderr, o.Now
	if stderr == nil {
		stderr = io.Discard
	}
	if now == nil {
		now = time.Now
	}
	j, err := open(spec, o)
	if err != nil {
		return nil, err
	}
	dst := spec.Out
	if dst == "" {
		dst = fmt.Sprintf("%s-rescored-%s", filepath.Clean(spec.Run), now().Format("20060102-150405"))
	}
	if same, _ := sameDir(spec.Run, dst); same {
		return nil, cli.Usagef("rescore: --out %s is the run itself; rescoring never overwrites a run", dst)
	}
	var trials []*record.Trial
	if err := j.from.EachTrial(stderr, func(t *record.Trial) { trials = append(trials, t) }); err != nil {
		return nil, err
	}
	j.classify(trials)
	rescored := j.rescore(trials)
	var jg *grader.Judge
	if spec.Rejudge {
		if jg, err = rejudger(ctx, spec, j.s); err != nil {
			return nil, err
		}
	}
	verdicts, err := j.judged(ctx, trials, jg)
	if err != nil {
		return nil, err
	}
	run := j.newRun(spec, rescored, now())
	run.Rescored.Rejudged, run.Rescored.Stale = verdicts.rejudged, verdicts.staleCount()
	if jg != nil {
		run.Rescored.JudgeModel = jg.Model
		run.Judge = runs.RunJudge(jg)
	}
	rd, err := write(dst, run, trials, j.from.Run.Status)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(stderr, "toolgrade: rescored %s of %s against %s into %s\n", termtext.Count(rescored, "trial"), spec.Run, j.s.Path, dst)
	for _, id := range run.Rescored.Copied {
		fmt.Fprintf(stderr, "toolgrade: case %s not rescored (%s): its trials are copied unchanged\n", id, j.copied[id])
	}
	for _, id := range run.Rescored.Missing {
		fmt.Fprintf(stderr, "toolgrade: case %s is new: the run has no trial of it\n", id)
	}
	verdicts.say(stderr, jg)
	return rd, nil
}

// open reads the run and the edited suite, with the settings the run was
// given over its suite applied to it, so its conversations compare like for
// like, and checks the suite against the recorded base catalog.
func open(spec *Spec, o *Options) (*judge, error) {
	from, err := store.Open(spec.Run)
	if err != nil {
		return nil, runs.DirError(spec.Run, err)
	}
	s, err := suite.Load(spec.Suite, 0)
	if err != nil {
		return nil, cli.AsUsage(err)
	}
	if err := runs.ApplyOverrides(s, from.Run.Overrides); err != nil {
		return nil, err
	}
	cats, err := toolbox.RecordedCatalogs(from.Run)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(spec.Run, record.RunFile), err)
	}
	base := cats[""]
	if base == nil {
		return nil, cli.Usagef("rescore: %s records no tool catalog (written before toolgrade recorded catalogs): rerun it", filepath.Join(spec.Run, record.RunFile))
	}
	if err := s.Check(base); err != nil {
		return nil, cli.AsUsage(err)
	}
	return &judge{from: from, s: s, cats: cats, copied: map[string]string{}, ran: map[string]bool{}}, nil
}

// write creates the new run directory dst with run and its trials, and
// gives it the old run's status.
func write(dst string, run *record.Run, trials []*record.Trial, status string) (*store.Reader, error) {
	w, err := store.Create(dst, run)
	if err != nil {
		return nil, runs.DirError(dst, err)
	}
	defer w.Close()
	for _, t := range trials {
		if err := w.Trials().Write(t); err != nil {
			return nil, fmt.Errorf("writing trials: %w", err)
		}
	}
	if err := w.Update(func(r *record.Run) { r.Status = status }); err != nil {
		return nil, err
	}
	return w.Reader(), nil
}
