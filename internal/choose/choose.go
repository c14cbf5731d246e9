package choose

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/toolgrade/toolgrade/internal/cli"
	"github.com/toolgrade/toolgrade/internal/compare"
	"github.com/toolgrade/toolgrade/internal/cost"
	"github.com/toolgrade/toolgrade/internal/metric"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/srcpos"
	"github.com/toolgrade/toolgrade/internal/store"
	"github.com/toolgrade/toolgrade/internal/summary"
)

// Options tune a choice; the zero value judges pass at DefaultMargin
// against the best model, on the base catalog.
type Options struct {
	// Reference is the model the others are judged against; "": the best
	// on the metric.
	Reference string
	// Margin is the margin of the non-inferiority verdict (0.05 for 5
	// points); 0: the suite's margin: (run.json), else DefaultMargin.
	Margin float64
	// KeepTruncated counts the trials whose prompt reached num_ctx, as
	// compare --keep-truncated does; false judges as the run recorded.
	KeepTruncated bool
}

// Choose reads the run of r and makes the choice: the table, then each
// model paired with the reference (compare.ModelTrials), both from one
// read of the trials.
// Bad lines of the trials file are returned as warnings; a choice the run
// cannot make as asked (a reference that is not one of its models, or no
// model with trials) is a *cli.UsageError.
func Choose(r *store.Reader, opts Options) (*Choice, []*record.SyntaxError, error) {
	margin := cmp.Or(opts.Margin, r.Run.Margin, DefaultMargin)
	c := &Choice{Format: Format, Dir: r.Dir, Suite: r.Run.Suite.Name, Metric: metric.Pass, Margin: margin, Level: compare.NILevel}
	kept := compare.NewModelTrials(r, &compare.Options{KeepTruncated: opts.KeepTruncated})
	warnings, err := c.table(r, kept)
	if err != nil {
		return nil, warnings, err
	}
	if len(c.Models) == 0 {
		return nil, warnings, cli.Usagef("%s: no model has trials of the base catalog", r.Dir)
	}
	notes, missing := memory(c.Models, r.Run)
	c.Warnings = append(c.Warnings, notes...)
	c.Warnings = append(c.Warnings, fairness(r.Run)...)
	c.CostBy = costBy(c.Models)
	c.markFrontier()
	if c.Reference = opts.Reference; c.Reference != "" {
		if c.Row(c.Reference) == nil {
			return nil, warnings, cli.Usagef("--reference: %s", srcpos.Unknown("model", c.Reference, c.names()))
		}
		c.ReferenceGiven = true
	} else {
		c.Reference = c.bestModel()
	}
	if ref := c.Row(c.Reference); ref != nil {
		ref.Reference = true
	}
	if err := c.versus(kept); err != nil {
		return nil, warnings, err
	}
	c.Recommendation = c.recommend()
	if cand := c.Row(c.Candidate); cand != nil {
		cand.Candidate = true
	}
	if c.CostBy == CostP50 {
		c.Warnings = append(c.Warnings, memoryWarning(missing))
	}
	return c, warnings, nil
}

// table fills the rows: each model's rates (the summary's, judged as kept
// judges: as the run recorded, or keeping truncated trials) and cost, in
// run order, from the trials of the base catalog; kept is given every
// trial, for versus. Each trial is judged once, for both.
func (c *Choice) table(r *store.Reader, kept *compare.ModelTrials) ([]*record.SyntaxError, error) {
	judge := kept.Judge()
	var sum *summary.Summarizer
	var costs *cost.Run
	var variants map[string]bool
	reset := func() {
		sum = summary.NewSummarizer(r.Run.Suite.Name, r.Run.Models)
		sum.Judge = judge
		costs, variants = cost.NewRun(), map[string]bool{}
		kept.Reset()
	}
	reset()
	warnings, err := r.SlimTrials(reset, func(t *record.Trial) {
		j := record.JudgeWith(t, judge)
		kept.AddJudged(t, j)
		variants[t.Variant] = true
		if t.Variant != c.Variant {
			return
		}
		sum.AddJudged(t, j)
		costs.Add(t)
	})
	if err != nil {
		return warnings, err
	}
	if len(variants) > 1 {
		c.Warnings = append(c.Warnings, "the run has variants: models are compared on the base catalog's trials")
	}
	models := map[string]*record.Model{}
	for i := range r.Run.Models {
		models[r.Run.Models[i].Name] = &r.Run.Models[i]
	}
	whole := sum.Summary()
	for _, ms := range whole.Models {
		if ms.Variant != c.Variant {
			continue
		}
		if ms.Trials == 0 {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s has no trials: left out", ms.Model))
			continue
		}
		c.Models = append(c.Models, row(&ms, models[ms.Model], costs.Model(ms.Model), counted(whole, c.Variant)))
	}
	return warnings, nil
}

// counted reports whether some row of variant in s counts a trial in the
// rate n: a sparse rate (judged) is a column of every row or of none.
func counted(s *summary.Summary, variant string) func(n metric.Name) bool {
	return func(n metric.Name) bool {
		for i := range s.Models {
			if s.Models[i].Variant == variant && s.Models[i].Rate(n).N > 0 {
				return true
			}
		}
		return false
	}
}

// row is one model's row: its rates from the summary, its cost from the
// trials measured and, for its memory and load time, from run.json.
func row(ms *summary.ModelSummary, m *record.Model, measured *record.Cost, counted func(metric.Name) bool) Row {
	out := Row{Model: ms.Model, Trials: ms.Trials, Scored: ms.Scored}
	for _, mt := range metric.Select(metric.Rate, metric.Column) {
		if mt.Is(metric.Sparse) && !counted(mt.Name) {
			continue // judged, for a suite without rubrics
		}
		out.Rates = append(out.Rates, Rate{Metric: mt.Name, Label: mt.Label, LowerIsBetter: mt.LowerIsBetter, Rate: ms.Rate(mt.Name)})
	}
	if measured != nil {
		out.Cost = Cost{P50: measured.P50.Seconds(), P95: measured.P95.Seconds(),
			PromptTokensPerSecond: measured.PromptTokensPerSecond, EvalTokensPerSecond: measured.EvalTokensPerSecond,
			TruncatedShare: measured.TruncatedShare()}
	}
	if m == nil {
		return out
	}
	out.ParameterSize, out.Quantization = m.ParameterSize, m.Quantization
	out.Cost.LoadSeconds = m.Load.Seconds()
	if m.Cost != nil && m.Cost.Loaded != nil {
		out.Cost.Size, out.Cost.SizeVRAM = m.Cost.Loaded.Size, m.Cost.Loaded.SizeVRAM
	}
	return out
}

// versus judges every model but the reference against it on the metric,
// pairing their trials of the base catalog, kept, by case and repeat.
func (c *Choice) versus(kept *compare.ModelTrials) error {
	for i := range c.Models {
		m := &c.Models[i]
		if m.Model == c.Reference {
			continue
		}
		cmpr, err := kept.Models(c.Reference, m.Model, &compare.Options{Margin: c.Margin})
		if err != nil {
			return err
		}
		g := slices.IndexFunc(cmpr.Groups, func(g compare.Group) bool { return g.Variant == c.Variant })
		if g < 0 {
			continue
		}
		rr := cmpr.Groups[g].Rate(c.Metric)
		if rr == nil || rr.NonInferiority == nil {
			continue
		}
		m.Versus = &Versus{NonInferiority: *rr.NonInferiority, Test: rr.Verdict, P: rr.P}
	}
	return nil
}

// names are the rows' models.
func (c *Choice) names() []string {
	out := make([]string, len(c.Models))
	for i, m := range c.Models {
		out[i] = m.Model
	}
	return out
}
