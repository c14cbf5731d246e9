package report

import (
	"encoding/xml"
	"fmt"
	"math"
	"strings"

	"github.com/toolgrade/toolgrade/internal/curve"
)

// The sweep chart's geometry, in SVG user units: one chart is 600 wide (two
// fit side by side in the report's cards, drawn at their size) with two panels
// sharing the x axis: selection with its intervals above, p50 latency and
// prompt tokens below.
const (
	svgW, svgH         = 600, 396
	plotL, plotR       = 60, 536 // the panels' left and right edges
	selTop, selBottom  = 40, 176
	costTop, costBot   = 230, 326
	xAxisY             = costBot
	sweepSelColor      = "#3557c9"
	sweepLatColor      = "#d9822b"
	sweepTokColor      = "#2f9e5b"
	sweepGuideColor    = "#b42318"
	sweepGridColor     = "#e4e7ec"
	sweepMutedColor    = "#667085"
	sweepThresholdText = "80%"
)

// sweepSVG draws one curve as a self-contained SVG element: no script, no
// style sheet, no link, and every text from the run (an axis value) escaped,
// so the page can import it as a node. Selection is a line of dots with
// their 95% Wilson whiskers over 0–100%, with the default threshold
// (curve.DefaultThreshold) dashed; below, p50 latency (left scale, seconds)
// and the first request's prompt tokens (right scale). On the decoys axis x
// is the number of tools offered, to scale; on another numeric axis its
// value; otherwise the points are evenly spaced.
func sweepSVG(c *curve.Curve) string {
	xs := sweepXs(c)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="sweep-chart" viewBox="0 0 %d %d" width="%d" height="%d" role="img" font-family="system-ui, sans-serif" font-size="11">`, svgW, svgH, svgW, svgH)
	fmt.Fprintf(&b, `<title>%s of %s</title>`, esc("selection, p50 latency and prompt tokens against "+sweepXName(c)), esc(c.Model))
	sweepSelectionPanel(&b, c, xs)
	sweepCostPanel(&b, c, xs)
	sweepXAxis(&b, c, xs)
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle" fill="%s">%s</text>`, (plotL+plotR)/2, svgH-12, sweepMutedColor, esc(sweepXName(c)))
	b.WriteString(`</svg>`)
	return b.String()
}

// sweepSelectionPanel draws the selection rate of each point with its
// 95% Wilson whiskers over 0–100%, and the default threshold dashed.
func sweepSelectionPanel(b *strings.Builder, c *curve.Curve, xs []float64) {
	selY := func(v float64) float64 { return selBottom - v*(selBottom-selTop) }
	fmt.Fprintf(b, `<rect class="plot sel-plot" x="%d" y="%d" width="%d" height="%d" fill="none" stroke="%s"/>`, plotL, selTop, plotR-plotL, selBottom-selTop, sweepGridColor)
	for _, v := range []float64{0, 0.25, 0.5, 0.75, 1} {
		y := selY(v)
		fmt.Fprintf(b, `<line x1="%d" x2="%d" y1="%s" y2="%s" stroke="%s"/>`, plotL, plotR, f(y), f(y), sweepGridColor)
		fmt.Fprintf(b, `<text x="%d" y="%s" text-anchor="end" fill="%s">%.0f%%</text>`, plotL-6, f(y+4), sweepMutedColor, 100*v)
	}
	ty := selY(curve.DefaultThreshold)
	fmt.Fprintf(b, `<line class="threshold" x1="%d" x2="%d" y1="%s" y2="%s" stroke="%s" stroke-dasharray="4 3"/>`, plotL, plotR, f(ty), f(ty), sweepGuideColor)
	fmt.Fprintf(b, `<text x="%d" y="%s" fill="%s">%s</text>`, plotR+4, f(ty+4), sweepGuideColor, sweepThresholdText)
	fmt.Fprintf(b, `<text x="%d" y="%d" fill="%s" font-weight="600">selection, 95%% interval</text>`, plotL, selTop-22, sweepSelColor)
	var line []string
	for i, p := range c.Points {
		if p.Selection.Empty() {
			continue
		}
		line = append(line, f(xs[i])+","+f(selY(p.Selection.Value())))
	}
	fmt.Fprintf(b, `<polyline class="sel-line" points="%s" fill="none" stroke="%s" stroke-width="2"/>`, strings.Join(line, " "), sweepSelColor)
	for i, p := range c.Points {
		if p.Selection.Empty() {
			continue
		}
		lo, hi := p.Selection.Wilson95()
		x := f(xs[i])
		fmt.Fprintf(b, `<line class="whisker" x1="%s" x2="%s" y1="%s" y2="%s" stroke="%s" stroke-width="1.5"/>`, x, x, f(selY(lo)), f(selY(hi)), sweepSelColor)
		for _, v := range []float64{lo, hi} {
			fmt.Fprintf(b, `<line x1="%s" x2="%s" y1="%s" y2="%s" stroke="%s" stroke-width="1.5"/>`, f(xs[i]-5), f(xs[i]+5), f(selY(v)), f(selY(v)), sweepSelColor)
		}
		fmt.Fprintf(b, `<circle class="sel" cx="%s" cy="%s" r="4.5" fill="%s" data-value="%.4g" data-n="%d"><title>%s: %d/%d %s</title></circle>`,
			x, f(selY(p.Selection.Value())), sweepSelColor, p.Selection.Value(), p.Selection.N, esc(sweepPointName(c, &p)), p.Selection.K, p.Selection.N, esc(p.Selection.Percent()))
		fmt.Fprintf(b, `<text x="%s" y="%s" text-anchor="middle" fill="%s">%.0f%%</text>`, x, f(selY(hi)-6), sweepSelColor, 100*p.Selection.Value())
	}
}

// sweepCostPanel draws p50 latency (left scale, seconds) and the first
// request's prompt tokens (right scale) of each point.
func sweepCostPanel(b *strings.Builder, c *curve.Curve, xs []float64) {
	maxLat, maxTok := 0.0, 0.0
	for _, p := range c.Points {
		maxLat, maxTok = math.Max(maxLat, p.P50), math.Max(maxTok, p.PromptTokens)
	}
	latTop, tokTop := niceCeil(maxLat), niceCeil(maxTok)
	costY := func(v, top float64) float64 { return costBot - v/top*(costBot-costTop) }
	fmt.Fprintf(b, `<rect class="plot cost-plot" x="%d" y="%d" width="%d" height="%d" fill="none" stroke="%s"/>`, plotL, costTop, plotR-plotL, costBot-costTop, sweepGridColor)
	for _, v := range []float64{0, 0.5, 1} {
		y := costY(v, 1)
		fmt.Fprintf(b, `<line x1="%d" x2="%d" y1="%s" y2="%s" stroke="%s"/>`, plotL, plotR, f(y), f(y), sweepGridColor)
		lat := "0s"
		if v > 0 {
			lat = secs(v * latTop)
		}
		fmt.Fprintf(b, `<text x="%d" y="%s" text-anchor="end" fill="%s">%s</text>`, plotL-6, f(y+4), sweepLatColor, esc(lat))
		fmt.Fprintf(b, `<text x="%d" y="%s" fill="%s">%s</text>`, plotR+6, f(y+4), sweepTokColor, esc(count(int(math.Round(v*tokTop)))))
	}
	fmt.Fprintf(b, `<text x="%d" y="%d" fill="%s" font-weight="600">p50 latency</text>`, plotL, costTop-8, sweepLatColor)
	fmt.Fprintf(b, `<text x="%d" y="%d" text-anchor="end" fill="%s" font-weight="600">prompt tokens, first request</text>`, plotR, costTop-8, sweepTokColor)
	var lat, tok []string
	for i, p := range c.Points {
		lat = append(lat, f(xs[i])+","+f(costY(p.P50, latTop)))
		tok = append(tok, f(xs[i])+","+f(costY(p.PromptTokens, tokTop)))
	}
	fmt.Fprintf(b, `<polyline class="lat-line" points="%s" fill="none" stroke="%s" stroke-width="2"/>`, strings.Join(lat, " "), sweepLatColor)
	fmt.Fprintf(b, `<polyline class="tok-line" points="%s" fill="none" stroke="%s" stroke-width="2" stroke-dasharray="6 3"/>`, strings.Join(tok, " "), sweepTokColor)
	for i, p := range c.Points {
		fmt.Fprintf(b, `<circle class="lat" cx="%s" cy="%s" r="3.5" fill="%s" data-value="%.4g"><title>p50 %s</title></circle>`, f(xs[i]), f(costY(p.P50, latTop)), sweepLatColor, p.P50, esc(secs(p.P50)))
		fmt.Fprintf(b, `<rect class="tok" x="%s" y="%s" width="7" height="7" fill="%s" data-value="%.4g"><title>%.0f prompt tokens</title></rect>`, f(xs[i]-3.5), f(costY(p.PromptTokens, tokTop)-3.5), sweepTokColor, p.PromptTokens, p.PromptTokens)
	}
}

// sweepXAxis draws the shared x axis: a tick per point.
func sweepXAxis(b *strings.Builder, c *curve.Curve, xs []float64) {
	for i, p := range c.Points {
		x := f(xs[i])
		fmt.Fprintf(b, `<line x1="%s" x2="%s" y1="%d" y2="%d" stroke="%s"/>`, x, x, xAxisY, xAxisY+5, sweepMutedColor)
		fmt.Fprintf(b, `<text class="tick" x="%s" y="%d" text-anchor="middle" fill="%s">%s</text>`, x, xAxisY+18, "#1d2433", esc(sweepTick(c, &p)))
		if c.Axis == curve.Decoys {
			fmt.Fprintf(b, `<text x="%s" y="%d" text-anchor="middle" fill="%s">%s</text>`, x, xAxisY+32, sweepMutedColor, esc(curve.DecoyCount(p.Value)))
		}
	}
}

// sweepXs places the points along the x axis: by tools on the decoys axis,
// by value on another numeric one, evenly otherwise (and when every value is
// the same).
func sweepXs(c *curve.Curve) []float64 {
	n := len(c.Points)
	vals := make([]float64, n)
	numeric := true
	for i, p := range c.Points {
		switch v := p.Value.(type) {
		case float64:
			vals[i] = v
		case int:
			vals[i] = float64(v)
		default:
			numeric = false
		}
		if c.Axis == curve.Decoys {
			vals[i] = float64(p.Tools)
		}
	}
	lo, hi := vals[0], vals[n-1]
	const pad = 24 // keeps the end dots and their labels off the frame
	xs := make([]float64, n)
	for i := range xs {
		if !numeric || hi <= lo {
			xs[i] = plotL + pad + float64(i)*float64(plotR-plotL-2*pad)/float64(max(n-1, 1))
			continue
		}
		xs[i] = plotL + pad + (vals[i]-lo)/(hi-lo)*float64(plotR-plotL-2*pad)
	}
	return xs
}

func sweepXName(c *curve.Curve) string {
	if c.Axis == curve.Decoys {
		return "tools offered (decoys added)"
	}
	return c.Axis
}

func sweepTick(c *curve.Curve, p *curve.Sample) string {
	if c.Axis == curve.Decoys {
		return fmt.Sprintf("%d", p.Tools)
	}
	return curve.FormatValue(p.Value)
}

func sweepPointName(c *curve.Curve, p *curve.Sample) string {
	return curve.Where(c.Axis, p)
}

// niceCeil is the smallest of 1, 2, 2.5 or 5 times a power of ten at or
// above v, so a scale's ticks read as round numbers; 1 for v ≤ 0.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

// f renders a coordinate to a tenth of a unit.
func f(v float64) string {
	s := fmt.Sprintf("%.1f", v)
	return strings.TrimSuffix(s, ".0")
}

func esc(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}
