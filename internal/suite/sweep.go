package suite

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/toolgrade/toolgrade/internal/srcpos"
	"go.yaml.in/yaml/v3"
)

// The sweep axes that are not Ollama options.
const (
	AxisDecoys = "decoys"
	AxisThink  = "think"
	AxisSystem = "system"
)

// maxGridPoints bounds a sweep's cross product: every point runs every case,
// so a larger grid is a typo or a run nobody waits for.
const maxGridPoints = 256

// SweepAxis is one axis of a suite's sweep: grid, as written.
type SweepAxis struct {
	// Name is decoys, think, system or an Ollama option name.
	Name string
	// Values are the axis's values in file order: int for decoys, the think
	// form of Defaults.Think for think, the prompts for system, and for an
	// option what Defaults.Options would hold.
	Values []any
	// Pos is where the axis's key is written.
	Pos Pos
}

// AxisValue is one coordinate of a grid point.
type AxisValue struct {
	Axis string
	// Value is what run.json records of the coordinate: the number of
	// decoys (int), think as true/false (bool) or its level (string), the
	// prompt's name s0, s1, ... for system, the option's value.
	Value any
}

// SweepMap is a grid point as run.json records it: axis → value; nil for
// nil.
func SweepMap(point []AxisValue) map[string]any {
	if point == nil {
		return nil
	}
	out := make(map[string]any, len(point))
	for _, c := range point {
		out[c.Axis] = c.Value
	}
	return out
}

// sweepName is a grid point's variant name: AXIS=VALUE joined with +, in
// the order the axes are written.
func sweepName(point []AxisValue) string {
	parts := make([]string, len(point))
	for i, c := range point {
		parts[i] = c.Axis + "=" + formatValue(c.Value)
	}
	return strings.Join(parts, "+")
}

func formatValue(v any) string {
	switch x := v.(type) {
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = formatValue(e)
		}
		return "[" + strings.Join(parts, "/") + "]"
	}
	return fmt.Sprint(v)
}

// sweep reads sweep:, a grid of axes, and adds its points as variants after
// the named ones, in grid order (the first axis varies slowest). The point
// whose every value is the suite's default is the base, recorded in
// BaseSweep, not a variant.
func (p *parser) sweep(n *yaml.Node, s *Suite) {
	fs, ok := p.mapping(n, "sweep", "a mapping of axes to lists of values, such as {decoys: [0, 10, 30], think: [false, true]}")
	if !ok {
		return
	}
	known := append([]string{AxisDecoys, AxisThink, AxisSystem}, knownOptions()...)
	var axes []SweepAxis
	bad := false
	for _, f := range fs {
		name, fp := f.key.Value, join("sweep", f.key.Value)
		if name == "seed" {
			p.errorf(f.key, fp, "every point runs with the suite's seeds, so its trials pair with the base's; seed is no axis")
			bad = true
			continue
		}
		if !slices.Contains(known, name) {
			p.unknownKey(f.key, "sweep", known, " (an axis is decoys, think, system or an Ollama option)")
			bad = true
			continue
		}
		ax, ok := p.sweepAxis(f.key, f.val, fp, s)
		if !ok {
			bad = true
			continue
		}
		axes = append(axes, ax)
	}
	if bad || len(axes) == 0 {
		if !bad {
			p.errorf(n, "sweep", "give at least one axis, such as decoys: [0, 10, 30]")
		}
		return
	}
	size := 1
	for _, ax := range axes {
		size *= len(ax.Values)
	}
	if size > maxGridPoints {
		p.errorf(n, "sweep", "the grid has %d points, more than %d: every point runs every case", size, maxGridPoints)
		return
	}
	s.Sweep = axes
	taken := map[string]bool{}
	for _, v := range s.Variants {
		taken[v.Name] = true
	}
	for i := range size {
		v, isBase := gridPoint(axes, i, s)
		if isBase {
			s.BaseSweep = v.Sweep
			continue
		}
		v.Pos = p.pos(n)
		if taken[v.Name] {
			p.errorf(n, "sweep", "grid point %s has the name of a variant the suite defines; rename that variant", v.Name)
			continue
		}
		taken[v.Name] = true
		s.Variants = append(s.Variants, v)
	}
}

// gridPoint is point i of the grid as a variant, and whether every one of
// its values is the suite's default (decoys 0; think, system and options
// equal to defaults; an axis the defaults leave unset has no default point).
func gridPoint(axes []SweepAxis, i int, s *Suite) (Variant, bool) {
	point := make([]AxisValue, len(axes))
	idx := make([]int, len(axes))
	for a := len(axes) - 1; a >= 0; a-- {
		idx[a] = i % len(axes[a].Values)
		i /= len(axes[a].Values)
	}
	v := Variant{}
	isBase := true
	for a, ax := range axes {
		val := ax.Values[idx[a]]
		c := AxisValue{Axis: ax.Name, Value: val}
		switch ax.Name {
		case AxisDecoys:
			v.Decoys = int(val.(int64))
			isBase = isBase && v.Decoys == 0
		case AxisThink:
			v.Think = val.(string)
			isBase = isBase && v.Think == s.Defaults.Think
			if b, err := strconv.ParseBool(v.Think); err == nil {
				c.Value = b
			}
		case AxisSystem:
			v.System = val.(string)
			isBase = isBase && s.Defaults.System != "" && v.System == s.Defaults.System
			c.Value = "s" + strconv.Itoa(idx[a])
		default:
			if v.Options == nil {
				v.Options = map[string]any{}
			}
			v.Options[ax.Name] = val
			d, set := s.Defaults.Options[ax.Name]
			isBase = isBase && set && reflect.DeepEqual(d, val)
		}
		point[a] = c
	}
	v.Sweep = point
	v.Name = sweepName(point)
	return v, isBase
}

// sweepAxis reads one axis: a non-empty list of distinct values.
func (p *parser) sweepAxis(key, n *yaml.Node, fp string, s *Suite) (SweepAxis, bool) {
	ax := SweepAxis{Name: key.Value, Pos: p.pos(key)}
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		p.errorf(n, fp, "must be a non-empty list of values, such as [0, 10, 30], not %s", srcpos.KindName(n))
		return ax, false
	}
	ok := true
	for i, c := range n.Content {
		c = srcpos.Deref(c)
		ip := index(fp, i)
		var val any
		var good bool
		switch ax.Name {
		case AxisDecoys:
			var d int
			if d, good = p.decoyCount(c, ip, s); good {
				val = int64(d)
			}
		case AxisThink:
			val, good = p.think(c, ip)
		case AxisSystem:
			val, good = p.nonEmpty(c, ip)
		default:
			val, good = p.optionValue(ax.Name, c, ip)
		}
		if good && slices.ContainsFunc(ax.Values, func(x any) bool { return reflect.DeepEqual(x, val) }) {
			p.errorf(c, ip, "%s is listed twice", formatValue(val))
			good = false
		}
		ok = ok && good
		if good {
			ax.Values = append(ax.Values, val)
		}
	}
	return ax, ok
}

// BasePoint is BaseSweep while the base still is that point: flags such as
// --think or -o replace defaults after the suite is read, and a base they
// changed is no longer the grid's defaults point. Nil otherwise.
func (s *Suite) BasePoint() []AxisValue {
	if s.BaseSweep == nil {
		return nil
	}
	for a, c := range s.BaseSweep {
		ax := s.Sweep[a]
		switch c.Axis {
		case AxisDecoys:
			// The base offers no decoys whatever the flags say.
		case AxisThink:
			if s.Defaults.Think != formatValue(c.Value) {
				return nil
			}
		case AxisSystem:
			i, _ := strconv.Atoi(strings.TrimPrefix(c.Value.(string), "s"))
			if s.Defaults.System != ax.Values[i] {
				return nil
			}
		default:
			if d, ok := s.Defaults.Options[c.Axis]; !ok || !reflect.DeepEqual(d, c.Value) {
				return nil
			}
		}
	}
	return s.BaseSweep
}
