package curve

import (
	"fmt"
	"math"
	"strconv"

	"github.com/toolgrade/toolgrade/internal/metric"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/stats"
	"github.com/toolgrade/toolgrade/internal/termtext"
)

// Measure is what one model did at one point: rates counted from
// record.JudgeWith over the scored trials, as the summary counts them
// (infrastructure errors and excluded truncated trials apart, in no
// figure).
type Measure struct {
	// Trials counts every trial; Infra those that hit an infrastructure
	// error.
	Trials int `json:"trials"`
	Infra  int `json:"infra_errors"`
	// Truncated counts the trials kept out because a prompt reached
	// num_ctx (see record.JudgeOptions).
	Truncated int `json:"truncated_excluded,omitempty"`
	// Selection and Pass are the rates; their JSON form is stats.Rate's.
	Selection stats.Rate `json:"tool_selection"`
	Pass      stats.Rate `json:"pass"`
	// P50 is the median wall time of a scored trial, in seconds (the
	// summary's estimate, within 1%).
	P50 float64 `json:"p50_s"`
	// PromptTokens is the mean prompt_eval_count of the first request of
	// the scored trials: the cost of the tools and the question before the
	// model has said anything. 0 when no trial had a round.
	PromptTokens float64 `json:"prompt_tokens"`
}

// Stats accumulates trials into a Measure per model and variant, in memory
// that grows with models and variants, never with trials. The zero value is
// not ready: use NewStats.
type Stats struct {
	// Judge says which trials count, as the summary's Judge does; the
	// zero value keeps truncated trials out.
	Judge  record.JudgeOptions
	rows   map[rowKey]*acc
	models []string
	// pass and selection are the metric table's, which count a trial.
	pass, selection metric.Metric
}

type rowKey struct{ model, variant string }

type acc struct {
	m Measure
	// sel and pass tally the rates case by case, numbered by caseIdx: a
	// case's repeats are one cluster.
	sel, pass  stats.RateCases
	caseIdx    map[string]int
	lastID     string // the id index numbered last, and its number:
	lastIdx    int    // a trial asks for its case's number for each rate
	wall       stats.Histogram
	prompt, pn int
}

// NewStats returns an empty Stats.
func NewStats() *Stats {
	return &Stats{rows: map[rowKey]*acc{}, pass: metric.Get(metric.Pass), selection: metric.Get(metric.ToolSelection)}
}

// Add counts one trial, judged with s.Judge.
func (s *Stats) Add(t *record.Trial) { s.AddJudged(t, record.JudgeWith(t, s.Judge)) }

// AddJudged counts one trial whose judgements the caller has made already
// (the summary judges each trial once for all its figures).
func (s *Stats) AddJudged(t *record.Trial, j record.Judgements) { s.AddJudgedAt(t, j, -1) }

// AddJudgedAt is AddJudged for a caller that numbers the cases of each
// row (model and variant) itself, ci being t's case's number, from 0 and
// the same for every trial of the case in the row (the summary numbers
// them so): the case is then not looked up again. A negative ci has it
// looked up. A Stats is given its trials one way or the other, not both.
func (s *Stats) AddJudgedAt(t *record.Trial, j record.Judgements, ci int) {
	k := rowKey{t.Model, t.Variant}
	a := s.rows[k]
	if a == nil {
		a = &acc{caseIdx: map[string]int{}}
		s.rows[k] = a
		if !s.hasModel(t.Model) {
			s.models = append(s.models, t.Model)
		}
	}
	if ci < 0 {
		ci = a.index(t.CaseID)
	}
	a.m.Trials++
	if j.Infra {
		a.m.Infra++
		return
	}
	if j.Excluded {
		a.m.Truncated++
		// Pass counts over the trials that are no infrastructure error
		// (Measure): an excluded trial is one that did not pass.
		a.pass.AddCounts(ci, 0, 1)
		return
	}
	passK, _ := s.pass.Count(&j)
	a.pass.AddCounts(ci, passK, 1)
	if selK, selN := s.selection.Count(&j); selN > 0 {
		a.sel.AddCounts(ci, selK, selN)
	}
	if tr := t.Transcript; tr != nil && !t.IsCopy() { // a copy took no model time
		a.wall.Add(tr.Wall.Seconds())
		if len(tr.Rounds) > 0 {
			a.prompt += tr.Rounds[0].Metrics.PromptEvalCount
			a.pn++
		}
	}
}

// index is case id's number in the row, for the per-case tallies.
func (a *acc) index(id string) int {
	if id == a.lastID && len(a.caseIdx) > 0 {
		return a.lastIdx
	}
	i, ok := a.caseIdx[id]
	if !ok {
		i = len(a.caseIdx)
		a.caseIdx[id] = i
	}
	a.lastID, a.lastIdx = id, i
	return i
}

func (s *Stats) hasModel(m string) bool {
	for _, x := range s.models {
		if x == m {
			return true
		}
	}
	return false
}

// Measure is what model did with variant; false when it ran no trial there.
func (s *Stats) Measure(model, variant string) (Measure, bool) {
	a := s.rows[rowKey{model, variant}]
	if a == nil {
		return Measure{}, false
	}
	m := a.m
	m.Selection = a.sel.Rate()
	m.Pass = a.pass.Rate()
	m.P50 = a.wall.Quantile(0.5)
	if a.pn > 0 {
		m.PromptTokens = float64(a.prompt) / float64(a.pn)
	}
	return m, true
}

// Models are the models seen, in the order their first trial came.
func (s *Stats) Models() []string { return append([]string(nil), s.models...) }

// Sample is one point of a curve: the grid point, its value on the curve's
// axis, and what the model did there.
type Sample struct {
	Point
	Value any `json:"value"`
	Measure
}

// Curve is one model's line: its samples ordered along Axis, the other axes
// held at Fixed.
type Curve struct {
	Model string         `json:"model"`
	Axis  string         `json:"axis"`
	Fixed map[string]any `json:"fixed,omitempty"`
	// Points are the line's points the model ran, ordered by Value.
	Points []Sample `json:"points"`
}

// Title names the curve in reports: "Tool-count sweep" for decoys, else
// "Sweep of AXIS", with the fixed axes after it.
func (c *Curve) Title() string {
	t := "Sweep of " + c.Axis
	if c.Axis == Decoys {
		t = "Tool-count sweep"
	}
	if len(c.Fixed) > 0 {
		t += " at " + Label(c.Fixed)
	}
	return t
}

// Build is the curves of a run: for each model (run.json's order, then any
// only the trials name), each line of the run's grid with at least two
// points the model ran. Nil when the run swept nothing.
func Build(run *record.Run, s *Stats) []Curve {
	lines := Lines(Grid(run.Catalogs))
	if len(lines) == 0 {
		return nil
	}
	var models []string
	for _, m := range run.Models {
		models = append(models, m.Name)
	}
	for _, m := range s.models {
		if !contains(models, m) {
			models = append(models, m)
		}
	}
	var out []Curve
	for _, model := range models {
		for _, l := range lines {
			c := Curve{Model: model, Axis: l.Axis, Fixed: l.Fixed}
			for _, p := range l.Points {
				if m, ok := s.Measure(model, p.Variant); ok {
					c.Points = append(c.Points, Sample{Point: p, Value: p.Sweep[l.Axis], Measure: m})
				}
			}
			if len(c.Points) >= 2 {
				out = append(out, c)
			}
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Crossing says where a curve's selection rate falls below a threshold.
type Crossing struct {
	Threshold float64 `json:"threshold"`
	// Below is the first point (in axis order) whose selection rate is
	// below Threshold; nil when none is.
	Below *Sample `json:"below,omitempty"`
	// Significant is the first point whose 95% Wilson interval lies wholly
	// below Threshold (its upper bound is below it): the point's own trials
	// against a fixed threshold, not a paired test against another point,
	// so reports say "wholly below", never "significantly". Nil when none.
	Significant *Sample `json:"significant,omitempty"`
	// Through is the last point with a selection rate: the curve holds
	// through it when Below is nil. Nil when no point has one.
	Through *Sample `json:"through,omitempty"`
}

// Falls finds where c's selection rate falls below threshold. Points with
// no trial that counts toward selection are skipped: they say nothing.
func (c *Curve) Falls(threshold float64) Crossing {
	x := Crossing{Threshold: threshold}
	for i := range c.Points {
		p := &c.Points[i]
		if p.Selection.Empty() {
			continue
		}
		x.Through = p
		if x.Below == nil && p.Selection.Value() < threshold {
			x.Below = p
		}
		if _, hi := p.Selection.Wilson95(); x.Significant == nil && hi < threshold {
			x.Significant = p
		}
	}
	return x
}

// Where names a sample in a sentence: "30 decoys (33 tools)" on the decoys
// axis, "think=true" on another.
func Where(axis string, s *Sample) string {
	if axis == Decoys {
		return fmt.Sprintf("%s (%s)", DecoyCount(s.Value), termtext.Count(s.Tools, "tool"))
	}
	return axis + "=" + FormatValue(s.Value)
}

// DecoyCount is a decoys axis value with its noun: "1 decoy", "30 decoys".
// The value is the suite's number as written, so it is compared as text.
func DecoyCount(v any) string {
	if s := FormatValue(v); s != "1" {
		return s + " decoys"
	}
	return "1 decoy"
}

// String says it in one sentence, without the model: "selection falls below
// 80% at 30 decoys (33 tools); its 95% interval is wholly below 80% from 60
// decoys (63 tools)", or "selection holds at or above 80% through 60 decoys
// (63 tools)". It never says "significantly": that is the word of compare's
// paired test against the line's first point, a different question, whose
// verdict the same screen may show as ~.
func (x Crossing) String(axis string) string {
	t := strconv.FormatFloat(math.Round(x.Threshold*100*1e6)/1e6, 'f', -1, 64) + "%"
	switch {
	case x.Through == nil:
		return "no point counts toward selection"
	case x.Below == nil:
		return fmt.Sprintf("selection holds at or above %s through %s", t, Where(axis, x.Through))
	}
	s := fmt.Sprintf("selection falls below %s at %s", t, Where(axis, x.Below))
	if x.Significant != nil {
		s += fmt.Sprintf("; its 95%% interval is wholly below %s from %s", t, Where(axis, x.Significant))
	} else {
		s += "; no point's 95% interval is wholly below it"
	}
	return s
}
