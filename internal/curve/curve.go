// Package curve is the model of a sweep run's curves: what each model did at
// each grid point of a suite's sweep: (decoys, think, num_ctx, ...), ordered
// along one axis. The grid comes from run.json (the catalogs that carry
// Sweep), the numbers from the trials, judged by record.Judge as the summary
// judges them. Reports draw the curves, compare pairs their points, gates
// name them (selection@60); this package holds neither a transcript nor a
// client.
package curve

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/toolgrade/toolgrade/internal/record"
)

// DefaultThreshold is the selection rate a curve is judged against when none
// is given (compare --threshold): below 80% a model picks a wrong tool in one
// request of five.
const DefaultThreshold = 0.8

// Decoys is the axis of a tool-count sweep: the number of decoy tools added.
const Decoys = "decoys"

// Point is one grid point of a sweep run, as run.json recorded it.
type Point struct {
	// Variant is the variant that ran the point; "" is the base (the point
	// equal to the suite's defaults).
	Variant string `json:"variant,omitempty"`
	// Sweep holds the point's value on every axis ({"decoys": 10}).
	Sweep map[string]any `json:"sweep"`
	// Tools is the number of tools the point's catalog offered.
	Tools int `json:"tools"`
}

// Name is how the point is shown: its variant, "base" for the base.
func (p *Point) Name() string {
	if p.Variant == "" {
		return "base"
	}
	return p.Variant
}

// Grid is the points of a run's sweep in catalog order: the catalogs that
// carry Sweep. Nil for a run that swept nothing.
func Grid(catalogs []record.RunCatalog) []Point {
	var out []Point
	for _, c := range catalogs {
		if c.Sweep == nil {
			continue
		}
		out = append(out, Point{Variant: c.Variant, Sweep: c.Sweep, Tools: countTools(c.Tools)})
	}
	return out
}

// countTools is the length of a catalog's tools array; 0 when it is not one.
func countTools(raw json.RawMessage) int {
	var tools []json.RawMessage
	if json.Unmarshal(raw, &tools) != nil {
		return 0
	}
	return len(tools)
}

// Axes are the axes of the grid, the tool count's (decoys) first, then by
// name.
func Axes(grid []Point) []string {
	set := map[string]bool{}
	for _, p := range grid {
		for k := range p.Sweep {
			set[k] = true
		}
	}
	axes := slices.Sorted(maps.Keys(set))
	slices.SortStableFunc(axes, func(a, b string) int {
		return cmp.Compare(boolInt(a != Decoys), boolInt(b != Decoys))
	})
	return axes
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Line is the points of a grid that vary along one axis while every other
// axis holds one value: a multi-axis grid has one line per axis for each
// combination of the other axes' values (decoys at think=false, decoys at
// think=true, think at decoys=0, ...).
type Line struct {
	Axis string `json:"axis"`
	// Fixed holds the other axes' values; nil on a one-axis grid.
	Fixed map[string]any `json:"fixed,omitempty"`
	// Points are ordered by their value on Axis (numbers by value, false
	// before true, text by its bytes).
	Points []Point `json:"points"`
}

// Lines are the lines of a grid with at least two points each: by axis (see
// Axes), then the line through the base first, then by the fixed values.
func Lines(grid []Point) []Line {
	var out []Line
	for _, axis := range Axes(grid) {
		groups := map[string]*Line{}
		for _, p := range grid {
			if _, ok := p.Sweep[axis]; !ok {
				continue
			}
			fixed := map[string]any{}
			for k, v := range p.Sweep {
				if k != axis {
					fixed[k] = v
				}
			}
			key := Label(fixed)
			l := groups[key]
			if l == nil {
				l = &Line{Axis: axis}
				if len(fixed) > 0 {
					l.Fixed = fixed
				}
				groups[key] = l
			}
			l.Points = append(l.Points, p)
		}
		var lines []*Line
		for _, l := range groups {
			slices.SortStableFunc(l.Points, func(a, b Point) int { return CompareValues(a.Sweep[axis], b.Sweep[axis]) })
			if len(l.Points) >= 2 {
				lines = append(lines, l)
			}
		}
		slices.SortFunc(lines, func(a, b *Line) int {
			return cmp.Or(cmp.Compare(boolInt(!a.hasBase()), boolInt(!b.hasBase())), cmp.Compare(Label(a.Fixed), Label(b.Fixed)))
		})
		for _, l := range lines {
			out = append(out, *l)
		}
	}
	return out
}

func (l *Line) hasBase() bool {
	return slices.ContainsFunc(l.Points, func(p Point) bool { return p.Variant == "" })
}

// Label renders axis values as the sweep names points: "decoys=10+think=true",
// axes by name; "" for none.
func Label(values map[string]any) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(values)) {
		parts = append(parts, k+"="+FormatValue(values[k]))
	}
	return strings.Join(parts, "+")
}

// FormatValue renders an axis value as a suite writes it: 10, 0.7, true,
// text. JSON numbers read as float64; whole ones print without a point.
func FormatValue(v any) string {
	switch x := v.(type) {
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e15 {
			return strconv.FormatInt(int64(x), 10)
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	case int:
		return strconv.Itoa(x)
	case string:
		return x
	}
	return fmt.Sprint(v)
}

// CompareValues orders axis values: numbers by value, then false before
// true, then text; values of different kinds by kind in that order.
func CompareValues(a, b any) int {
	ka, kb := kind(a), kind(b)
	if ka != kb {
		return cmp.Compare(ka, kb)
	}
	switch ka {
	case 0:
		return cmp.Compare(number(a), number(b))
	case 1:
		return cmp.Compare(boolInt(a.(bool)), boolInt(b.(bool)))
	}
	return cmp.Compare(FormatValue(a), FormatValue(b))
}

func kind(v any) int {
	switch v.(type) {
	case float64, int:
		return 0
	case bool:
		return 1
	}
	return 2
}

func number(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case int:
		return float64(x)
	}
	return 0
}
