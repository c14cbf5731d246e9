package compare

import (
	"fmt"
	"strings"

	"github.com/toolgrade/toolgrade/internal/curve"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/srcpos"
	"github.com/toolgrade/toolgrade/internal/store"
)

// ModeSweep is the comparison of a sweep run's points along one axis.
const ModeSweep = "sweep"

// SweepOptions tune a sweep comparison.
type SweepOptions struct {
	// Alpha is the significance level of every paired test; 0 means
	// DefaultAlpha.
	Alpha float64
	// Threshold is the selection rate each curve is judged against; 0
	// means curve.DefaultThreshold (0.8).
	Threshold float64
	// KeepTruncated counts the trials whose prompt reached num_ctx whatever
	// the run recorded, as Options.KeepTruncated does.
	KeepTruncated bool
}

// SweepComparison is a sweep run's curves along one axis, each point paired
// trial by trial with the first point of its line, and where each model's
// selection falls below the threshold.
type SweepComparison struct {
	Format    string  `json:"format"`
	Mode      string  `json:"mode"`
	Alpha     float64 `json:"alpha"`
	Threshold float64 `json:"threshold"`
	Dir       string  `json:"dir"`
	Axis      string  `json:"axis"`
	// Curves are per model (run order), then per line of the axis (see
	// curve.Lines).
	Curves   []SweepCurve `json:"curves"`
	Warnings []string     `json:"warnings,omitempty"`
}

// SweepCurve is one model's curve with its paired tests.
type SweepCurve struct {
	curve.Curve
	// Paired[i] pairs point i with point 0 (the line's lowest value: on a
	// one-axis grid, the base), by case and repeat, as compare --variants
	// pairs two variants; Paired[0] is nil.
	Paired []*Group `json:"paired"`
	// Crossing is where selection falls below the threshold.
	Crossing curve.Crossing `json:"crossing"`
}

// Sweep compares the points of r's sweep along axis ("decoys" for a
// tool-count sweep). It is an error when the run swept nothing or has no
// line along axis.
func Sweep(r *store.Reader, axis string, opts *SweepOptions) (*SweepComparison, []*record.SyntaxError, error) {
	o := SweepOptions{}
	if opts != nil {
		o = *opts
	}
	if o.Threshold == 0 {
		o.Threshold = curve.DefaultThreshold
	}
	alpha := (&Options{Alpha: o.Alpha}).alpha()
	grid := curve.Grid(r.Run.Catalogs)
	lines, err := linesAlong(r, grid, axis)
	if err != nil {
		return nil, nil, err
	}
	sc := &SweepComparison{Format: Format, Mode: ModeSweep, Alpha: alpha, Threshold: o.Threshold, Dir: r.Dir, Axis: axis}
	st := curve.NewStats()
	st.Judge = (&Options{KeepTruncated: o.KeepTruncated}).judge(r.Run)
	sides := map[string]*side{}
	for _, p := range grid {
		sides[p.Variant] = newSide()
	}
	w, err := r.Trials(func(t *record.Trial) {
		st.Add(t)
		if s := sides[t.Variant]; s != nil {
			s.add(pairKey{groupKey{t.Model, ""}, t.CaseID, t.Repeat}, t, st.Judge)
		}
	})
	if err != nil {
		return nil, w, err
	}
	paired := sc.pairLines(lines, sides, modelMap(r.Run))
	for _, c := range curve.Build(r.Run, st) {
		if li := lineOf(lines, c); li >= 0 {
			sc.addCurve(c, lines[li], paired[li])
		}
	}
	if len(sc.Curves) == 0 {
		sc.Warnings = append(sc.Warnings, fmt.Sprintf("no model ran two points along %s: there is no curve", axis))
	}
	return sc, w, nil
}

// linesAlong are the lines of grid along axis; an error says the run swept
// nothing, or names the axes it has.
func linesAlong(r *store.Reader, grid []curve.Point, axis string) ([]curve.Line, error) {
	if grid == nil {
		return nil, fmt.Errorf("%s: the run swept nothing: no catalog of its run.json carries a sweep point (a suite's sweep: runs one)", r.Dir)
	}
	var lines []curve.Line
	for _, l := range curve.Lines(grid) {
		if l.Axis == axis {
			lines = append(lines, l)
		}
	}
	if lines != nil {
		return lines, nil
	}
	var axes []string
	for _, l := range curve.Lines(grid) {
		if len(axes) == 0 || axes[len(axes)-1] != l.Axis {
			axes = append(axes, l.Axis)
		}
	}
	hint := "its axes: " + strings.Join(axes, ", ")
	if s := srcpos.Suggest(axis, axes); s != "" {
		hint = fmt.Sprintf("did you mean %q?", s)
	}
	return nil, fmt.Errorf("%s: the sweep has no line along %q (%s)", r.Dir, axis, hint)
}

// pairLines compares each point of each line with the line's first, every
// model's group in it: paired[line][point], nil at the first point.
func (sc *SweepComparison) pairLines(lines []curve.Line, sides map[string]*side, models map[string]record.Model) [][]*Comparison {
	paired := make([][]*Comparison, len(lines))
	for li, l := range lines {
		paired[li] = make([]*Comparison, len(l.Points))
		for pi := 1; pi < len(l.Points); pi++ {
			c := &Comparison{}
			c.build([2]*side{sides[l.Points[0].Variant], sides[l.Points[pi].Variant]}, nil, &Options{Alpha: sc.Alpha},
				func(_ int, g groupKey) *ModelInfo { return modelInfo(models, g.model) })
			paired[li][pi] = c
			for _, warn := range c.Warnings {
				sc.Warnings = append(sc.Warnings, fmt.Sprintf("%s against %s: %s", l.Points[pi].Name(), l.Points[0].Name(), warn))
			}
		}
	}
	return paired
}

// addCurve adds model curve c along line l, each point with its model's
// group of the comparisons paired (those of l's points).
func (sc *SweepComparison) addCurve(c curve.Curve, l curve.Line, paired []*Comparison) {
	swc := SweepCurve{Curve: c, Paired: make([]*Group, len(c.Points)), Crossing: c.Falls(sc.Threshold)}
	for i, p := range c.Points {
		pi := pointOf(l, p.Variant)
		if pi <= 0 {
			continue
		}
		for gi := range paired[pi].Groups {
			if g := &paired[pi].Groups[gi]; g.Model == c.Model {
				swc.Paired[i] = g
			}
		}
	}
	if c.Points[0].Variant != l.Points[0].Variant {
		sc.Warnings = append(sc.Warnings, fmt.Sprintf("%s: no trial at %s, the first point of its line: its points are not paired", c.Model, l.Points[0].Name()))
	}
	sc.Curves = append(sc.Curves, swc)
}

// lineOf is the index of the line c runs along, -1 when none.
func lineOf(lines []curve.Line, c curve.Curve) int {
	for i, l := range lines {
		if curve.Label(l.Fixed) == curve.Label(c.Fixed) {
			return i
		}
	}
	return -1
}

func pointOf(l curve.Line, variant string) int {
	for i, p := range l.Points {
		if p.Variant == variant {
			return i
		}
	}
	return -1
}
