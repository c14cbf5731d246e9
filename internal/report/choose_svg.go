package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/toolgrade/toolgrade/internal/choose"
	"github.com/toolgrade/toolgrade/internal/stats"
)

// The choice chart's geometry, in SVG user units.
const (
	chW, chH          = 640, 400
	chL, chR          = 64, 600 // the plot's left and right edges
	chTop, chBottom   = 28, 330
	chDotColor        = "#3557c9"
	chRefColor        = "#b42318"
	chCandColor       = "#2f9e5b"
	chFrontierColor   = "#98a2b3"
	chGridColor       = "#e4e7ec"
	chMutedColor      = "#667085"
	chDominatedColour = "#98a2b3"
)

// chooseSVG draws the choice as a self-contained SVG element (no script, no
// style sheet, every name escaped): each model at its cost (x, memory or p50
// as the choice orders cost) and its rate on the metric (y) with its 95%
// Wilson whisker; the frontier joined by a line, its models filled and the
// others hollow; the reference ringed in red, the candidate in green; the
// reference's rate less the margin dashed, the line a candidate's
// interval must stay above.
func chooseSVG(c *choose.Choice) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="choose-chart" viewBox="0 0 %d %d" width="%d" height="%d" role="img" font-family="system-ui, sans-serif" font-size="11">`, chW, chH, chW, chH)
	fmt.Fprintf(&b, `<title>%s</title>`, esc(fmt.Sprintf("%s against %s, model by model", c.Metric, chooseXName(c))))
	// Six ticks or fewer, a round step apart, past the costliest model.
	top := maxCost(c) * 1.1
	step := niceCeil(top / 6)
	xMax := math.Ceil(top/step) * step
	yLo := math.Max(0, math.Floor(minLo(c)*10)/10-0.1)
	x := func(v float64) float64 { return chL + v/xMax*(chR-chL) }
	y := func(v float64) float64 { return chBottom - (v-yLo)/(1-yLo)*(chBottom-chTop) }
	chooseAxes(&b, c, xMax, step, yLo, x, y)
	if ref := c.Row(c.Reference); ref != nil && len(c.Models) > 1 {
		line := ref.Rate(c.Metric).Value() - c.Margin
		if line > yLo {
			fmt.Fprintf(&b, `<line class="margin" x1="%d" x2="%d" y1="%s" y2="%s" stroke="%s" stroke-dasharray="5 4"/>`, chL, chR, f(y(line)), f(y(line)), chRefColor)
			// At the left: the reference, the costliest model as a rule,
			// sits at the right.
			fmt.Fprintf(&b, `<text x="%d" y="%s" fill="%s">%s</text>`, chL+6, f(y(line)-4), chRefColor, esc(fmt.Sprintf("%s − %s", c.Reference, stats.Points(c.Margin))))
		}
	}
	chooseFrontierLine(&b, c, x, y)
	for i := range c.Models {
		chooseDot(&b, c, &c.Models[i], x, y)
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// chooseAxes draws the grid, the scales and the axes' names.
func chooseAxes(b *strings.Builder, c *choose.Choice, xMax, step, yLo float64, x, y func(float64) float64) {
	fmt.Fprintf(b, `<rect class="plot" x="%d" y="%d" width="%d" height="%d" fill="none" stroke="%s"/>`, chL, chTop, chR-chL, chBottom-chTop, chGridColor)
	for v := math.Ceil(yLo*10) / 10; v <= 1.0001; v += 0.1 {
		fmt.Fprintf(b, `<line x1="%d" x2="%d" y1="%s" y2="%s" stroke="%s"/>`, chL, chR, f(y(v)), f(y(v)), chGridColor)
		fmt.Fprintf(b, `<text x="%d" y="%s" text-anchor="end" fill="%s">%.0f%%</text>`, chL-6, f(y(v)+4), chMutedColor, 100*v)
	}
	for i := 0; float64(i)*step <= xMax*1.0001; i++ {
		v := float64(i) * step
		fmt.Fprintf(b, `<line x1="%s" x2="%s" y1="%d" y2="%d" stroke="%s"/>`, f(x(v)), f(x(v)), chTop, chBottom, chGridColor)
		fmt.Fprintf(b, `<text x="%s" y="%d" text-anchor="middle" fill="%s">%s</text>`, f(x(v)), chBottom+16, chMutedColor, esc(costTick(c, v)))
	}
	fmt.Fprintf(b, `<text x="%d" y="%d" text-anchor="middle" fill="%s">%s</text>`, (chL+chR)/2, chH-30, chMutedColor, esc(chooseXName(c)+" (lower is cheaper)"))
	fmt.Fprintf(b, `<text x="16" y="%d" text-anchor="middle" fill="%s" transform="rotate(-90 16 %d)">%s</text>`, (chTop+chBottom)/2, chMutedColor, (chTop+chBottom)/2, esc(string(c.Metric)+" rate, 95% Wilson interval"))
	fmt.Fprintf(b, `<g class="chart-legend" transform="translate(%d %d)">`, chL, chH-12)
	fmt.Fprintf(b, `<circle cx="4" cy="-4" r="5" fill="%s"/><text x="14" y="0">on the frontier</text>`, chDotColor)
	fmt.Fprintf(b, `<circle cx="124" cy="-4" r="5" fill="#fff" stroke="%s" stroke-width="2"/><text x="134" y="0">dominated</text>`, chDominatedColour)
	fmt.Fprintf(b, `<circle cx="224" cy="-4" r="8" fill="none" stroke="%s" stroke-width="2"/><text x="238" y="0">reference</text>`, chRefColor)
	fmt.Fprintf(b, `<circle cx="324" cy="-4" r="8" fill="none" stroke="%s" stroke-width="2"/><text x="338" y="0">candidate</text>`, chCandColor)
	b.WriteString(`</g>`)
}

// chooseFrontierLine joins the models of the frontier, cheapest first.
func chooseFrontierLine(b *strings.Builder, c *choose.Choice, x, y func(float64) float64) {
	var front []*choose.Row
	for i := range c.Models {
		if c.Models[i].Frontier {
			front = append(front, &c.Models[i])
		}
	}
	if len(front) < 2 {
		return
	}
	slices.SortStableFunc(front, func(a, b *choose.Row) int { return cmp.Compare(costValue(c, a), costValue(c, b)) })
	pts := make([]string, len(front))
	for i, r := range front {
		pts[i] = f(x(costValue(c, r))) + "," + f(y(r.Rate(c.Metric).Value()))
	}
	fmt.Fprintf(b, `<polyline class="frontier" points="%s" fill="none" stroke="%s" stroke-width="1.5"/>`, strings.Join(pts, " "), chFrontierColor)
}

// chooseDot draws one model: its whisker, its dot, its ring and its name.
func chooseDot(b *strings.Builder, c *choose.Choice, r *choose.Row, x, y func(float64) float64) {
	rate := r.Rate(c.Metric)
	lo, hi := rate.Wilson95()
	cx, cy := x(costValue(c, r)), y(rate.Value())
	fmt.Fprintf(b, `<g class="model" data-model="%s">`, esc(r.Model))
	fmt.Fprintf(b, `<title>%s</title>`, esc(fmt.Sprintf("%s: %s %s, %s %s", r.Model, c.Metric, rate.Percent(), chooseXName(c), costTick(c, costValue(c, r)))))
	fmt.Fprintf(b, `<line x1="%s" x2="%s" y1="%s" y2="%s" stroke="%s" stroke-width="1.5"/>`, f(cx), f(cx), f(y(lo)), f(y(hi)), chMutedColor)
	if r.Frontier {
		fmt.Fprintf(b, `<circle class="pt frontier" cx="%s" cy="%s" r="5" fill="%s"/>`, f(cx), f(cy), chDotColor)
	} else {
		fmt.Fprintf(b, `<circle class="pt dominated" cx="%s" cy="%s" r="5" fill="#fff" stroke="%s" stroke-width="2"/>`, f(cx), f(cy), chDominatedColour)
	}
	switch {
	case r.Reference:
		fmt.Fprintf(b, `<circle class="ring reference" cx="%s" cy="%s" r="9" fill="none" stroke="%s" stroke-width="2"/>`, f(cx), f(cy), chRefColor)
	case r.Candidate:
		fmt.Fprintf(b, `<circle class="ring candidate" cx="%s" cy="%s" r="9" fill="none" stroke="%s" stroke-width="2"/>`, f(cx), f(cy), chCandColor)
	}
	anchor, dx := "start", 12.0
	if cx > chR-120 {
		anchor, dx = "end", -12
	}
	fmt.Fprintf(b, `<text x="%s" y="%s" text-anchor="%s" fill="#101828">%s</text>`, f(cx+dx), f(cy-8), anchor, esc(r.Model))
	b.WriteString(`</g>`)
}

// costValue is the row's cost on the chart's x axis: memory in GB, or p50
// in seconds.
func costValue(c *choose.Choice, r *choose.Row) float64 {
	if c.CostBy == choose.CostMemory {
		return float64(r.Cost.Size) / 1e9
	}
	return r.Cost.P50
}

func chooseXName(c *choose.Choice) string {
	if c.CostBy == choose.CostMemory {
		return "memory when loaded, GB"
	}
	return "p50 latency of a trial"
}

// costTick labels a value of the x axis.
func costTick(c *choose.Choice, v float64) string {
	if c.CostBy == choose.CostMemory {
		return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", v), "0"), ".") + " GB"
	}
	if v == 0 {
		return "0"
	}
	return secs(v)
}

// maxCost is the largest x of any model; at least a tiny positive value, so
// the scale is never empty.
func maxCost(c *choose.Choice) float64 {
	m := 0.0
	for i := range c.Models {
		m = max(m, costValue(c, &c.Models[i]))
	}
	if m <= 0 {
		return 1e-3
	}
	return m
}

// minLo is the lowest end of any model's interval on the metric.
func minLo(c *choose.Choice) float64 {
	lo := 1.0
	for i := range c.Models {
		l, _ := c.Models[i].Rate(c.Metric).Wilson95()
		lo = min(lo, l)
	}
	return lo
}
