package gate

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/toolgrade/toolgrade/internal/metric"
	"github.com/toolgrade/toolgrade/internal/stats"
	"github.com/toolgrade/toolgrade/internal/termtext"
)

// String renders the verdict without its "gate held:" or "gate failed:"
// prefix, showing the comparison that is true of the judged number:
//
//	qwen3:1.7b pass 44% [26–63] < 90%
//	qwen3:8b pass 95% [88–98]: lower bound 88.2% < 90%
//	qwen3:8b p95 1.42s <= 2s
//	qwen3:8b regressions 3 > 2
//	qwen3:8b irrelevance >= 90%: nothing to judge: no trial counts toward irrelevance
//
// Rates are shown as the report's table shows them (the interval rounded
// outwards), with as many decimals as it takes to tell the judged number
// from the threshold.
func (r Result) String() string {
	var b strings.Builder
	if who := label(r.Model, r.Variant); who != "" {
		b.WriteString(termtext.Printable(who))
		b.WriteByte(' ')
	}
	name := string(r.Gate.Metric)
	if r.Gate.Metric == SignificantlyRegressed {
		name = "significant regressions"
	}
	if r.Gate.Point != "" {
		name += "@" + r.Gate.Point
	}
	b.WriteString(name)
	if r.Gate.NonInferior() {
		// Its own words: the interval and the verdict, no comparison.
		fmt.Fprintf(&b, " within %s: %s", stats.Points(r.Gate.Margin), cmp.Or(r.Msg, r.Note))
		return b.String()
	}
	if r.Msg != "" {
		fmt.Fprintf(&b, " %s %s: %s", r.Gate.Op, r.threshold(), r.Msg)
		return b.String()
	}
	op := r.Gate.Op
	if !r.Held {
		op = op.Not()
	}
	switch {
	case r.Gate.Metric == Regressed || r.Gate.Metric == SignificantlyRegressed:
		fmt.Fprintf(&b, " %d %s %d", int(r.Value), op, int(r.Threshold))
	case r.Gate.Metric.Kind() == metric.Latency:
		fmt.Fprintf(&b, " %s %s %s", duration(r.Value, r.Threshold), op, r.threshold())
	case r.On == OnLower:
		end := "lower"
		if !r.Gate.Op.Upward() {
			end = "upper"
		}
		fmt.Fprintf(&b, " %s: %s bound %s %s %s", interval(fmt.Sprintf("%.0f%%", 100*r.Value), r.Lo, r.Hi), end, termtext.Percent(r.Judged, r.Threshold, 1), op, r.threshold())
	default:
		fmt.Fprintf(&b, " %s %s %s", interval(termtext.Percent(r.Value, r.Threshold, 0), r.Lo, r.Hi), op, r.threshold())
	}
	if r.Note != "" {
		fmt.Fprintf(&b, " (%s)", r.Note)
	}
	return b.String()
}

// Write prints one line per result, those that held first, so the last
// lines are the gates that failed: `gate held: ...`, `gate failed: ...`.
func Write(w io.Writer, rs []Result) {
	for _, held := range []bool{true, false} {
		for _, r := range rs {
			if r.Held != held {
				continue
			}
			verdict := "failed"
			if held {
				verdict = "held"
			}
			fmt.Fprintf(w, "gate %s: %s\n", verdict, r)
		}
	}
}

func label(model, variant string) string {
	if variant != "" {
		return model + "@" + variant
	}
	return model
}

func (r Result) threshold() string {
	switch {
	case r.Gate.Metric == Regressed || r.Gate.Metric == SignificantlyRegressed:
		return strconv.Itoa(int(r.Threshold))
	case r.Gate.Metric.Kind() == metric.Latency:
		return time.Duration(math.Round(r.Threshold * 1e9)).String()
	}
	return termtext.TrimPercent(r.Threshold)
}

// interval renders a rate, its value already rendered, with its interval
// as every report renders it (stats.Interval): "44% [26–63]".
func interval(value string, lo, hi float64) string {
	return value + " " + stats.Interval(lo, hi)
}

// duration renders seconds v as a duration to three significant figures
// (11.4ms, 1.42s), or more when that would read as the threshold t it
// differs from.
func duration(v, t float64) string {
	d := time.Duration(math.Round(v * 1e9))
	ts := time.Duration(math.Round(t * 1e9)).String()
	unit := time.Duration(1)
	if d > 0 {
		unit = time.Duration(math.Pow(10, max(0, math.Floor(math.Log10(float64(d)))-2)))
	}
	for {
		s := d.Round(unit).String()
		if s != ts || v == t || unit == 1 {
			return s
		}
		unit /= 10
	}
}
