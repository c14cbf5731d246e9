package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"strconv"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/curve"
	"github.com/toolgrade/toolgrade/internal/stats"
)

// svgNode is an element of a parsed chart.
type svgNode struct {
	XMLName xml.Name
	Attrs   []xml.Attr `xml:",any,attr"`
	Text    string     `xml:",chardata"`
	Nodes   []svgNode  `xml:",any"`
}

func (n *svgNode) attr(name string) string {
	for _, a := range n.Attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

func (n *svgNode) num(t *testing.T, name string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(n.attr(name), 64)
	if err != nil {
		t.Fatalf("<%s %s=%q>: %v", n.XMLName.Local, name, n.attr(name), err)
	}
	return v
}

// all returns the elements of tag (and class, when given) in document order.
func (n *svgNode) all(tag, class string) []*svgNode {
	var out []*svgNode
	var walk func(*svgNode)
	walk = func(m *svgNode) {
		if m.XMLName.Local == tag && (class == "" || strings.Contains(" "+m.attr("class")+" ", " "+class+" ")) {
			out = append(out, m)
		}
		for i := range m.Nodes {
			walk(&m.Nodes[i])
		}
	}
	walk(n)
	return out
}

func parseSVG(t *testing.T, s string) *svgNode {
	t.Helper()
	var root svgNode
	if err := xml.Unmarshal([]byte(s), &root); err != nil {
		t.Fatalf("the chart is not XML: %v\n%s", err, s)
	}
	if root.XMLName.Local != "svg" || root.attr("viewBox") != "0 0 600 396" {
		t.Fatalf("root <%s viewBox=%q>", root.XMLName.Local, root.attr("viewBox"))
	}
	return &root
}

// TestSweepSVG: the weak model's chart has a dot per point, left to right
// by tools and to scale, inside the selection panel at the height of its
// rate, a whisker spanning its interval, and latency and token marks in the
// lower panel rising with the tools; the ticks name the tools.
func TestSweepSVG(t *testing.T) {
	sum := sweepSummary(t)
	weak := &sum.Sweep[1]
	root := parseSVG(t, sweepSVG(weak))
	box := func(class string) (x0, y0, x1, y1 float64) {
		r := root.all("rect", class)
		if len(r) != 1 {
			t.Fatalf("%d %s rects", len(r), class)
		}
		x0, y0 = r[0].num(t, "x"), r[0].num(t, "y")
		return x0, y0, x0 + r[0].num(t, "width"), y0 + r[0].num(t, "height")
	}
	sx0, sy0, sx1, sy1 := box("sel-plot")
	cx0, cy0, cx1, cy1 := box("cost-plot")
	dots, whiskers := root.all("circle", "sel"), root.all("line", "whisker")
	if len(dots) != 4 || len(whiskers) != 4 {
		t.Fatalf("%d dots, %d whiskers, want 4 each", len(dots), len(whiskers))
	}
	prevX := -1.0
	for i, d := range dots {
		p := weak.Points[i]
		x, y := d.num(t, "cx"), d.num(t, "cy")
		if x <= prevX || x < sx0 || x > sx1 || y < sy0 || y > sy1 {
			t.Errorf("dot %d at (%v, %v): out of order or outside the panel [%v–%v]×[%v–%v]", i, x, y, sx0, sx1, sy0, sy1)
		}
		prevX = x
		want := sy1 - p.Selection.Value()*(sy1-sy0)
		if d.num(t, "data-value") != roundTo(p.Selection.Value(), 4) || absf(y-want) > 0.06 {
			t.Errorf("dot %d: y %v value %v, want y %v for %v", i, y, d.attr("data-value"), want, p.Selection)
		}
		lo, hi := p.Selection.Wilson95()
		w := whiskers[i]
		if w.num(t, "x1") != x || absf(w.num(t, "y1")-(sy1-lo*(sy1-sy0))) > 0.06 || absf(w.num(t, "y2")-(sy1-hi*(sy1-sy0))) > 0.06 {
			t.Errorf("whisker %d: %+v, want x %v over [%v, %v]", i, w.Attrs, x, lo, hi)
		}
	}
	// To scale: 3, 13, 33 and 63 tools are 10, 20 and 30 tool-widths apart.
	x := func(i int) float64 { return dots[i].num(t, "cx") }
	if r := (x(2) - x(1)) / (x(1) - x(0)); absf(r-2) > 0.02 {
		t.Errorf("x not to scale: gaps %v and %v", x(1)-x(0), x(2)-x(1))
	}
	for _, class := range []string{"lat", "tok"} {
		tag := "circle"
		if class == "tok" {
			tag = "rect"
		}
		marks := root.all(tag, class)
		if len(marks) != 4 {
			t.Fatalf("%d %s marks", len(marks), class)
		}
		prevY := cy1 + 1
		for i, m := range marks {
			var mx, my float64
			if tag == "circle" {
				mx, my = m.num(t, "cx"), m.num(t, "cy")
			} else {
				mx, my = m.num(t, "x"), m.num(t, "y")
			}
			if mx < cx0-4 || mx > cx1 || my < cy0-4 || my > cy1 || my >= prevY {
				t.Errorf("%s mark %d at (%v, %v): outside [%v–%v]×[%v–%v] or not rising", class, i, mx, my, cx0, cx1, cy0, cy1)
			}
			prevY = my
		}
	}
	var ticks []string
	for _, tk := range root.all("text", "tick") {
		ticks = append(ticks, tk.Text)
	}
	if strings.Join(ticks, " ") != "3 13 33 63" {
		t.Errorf("ticks %v", ticks)
	}
	if len(root.all("script", "")) > 0 || len(root.all("style", "")) > 0 {
		t.Error("the chart holds a script or a style sheet")
	}
}

// TestSweepSVGEscapes: a swept value is text from a suite: it is escaped,
// and a value that is not a number places the points evenly.
func TestSweepSVGEscapes(t *testing.T) {
	c := &curve.Curve{Model: `m"><script>alert(1)</script>`, Axis: "system", Points: []curve.Sample{
		{Value: "</text><script>x</script>", Measure: curve.Measure{Selection: stats.Rate{K: 1, N: 2}}},
		{Value: "b & c", Measure: curve.Measure{Selection: stats.Rate{K: 2, N: 2}}},
		{Value: "z", Measure: curve.Measure{Selection: stats.Rate{K: 0, N: 2}}},
	}}
	s := sweepSVG(c)
	if strings.Contains(s, "<script") {
		t.Fatalf("unescaped text in the chart:\n%s", s)
	}
	root := parseSVG(t, s)
	dots := root.all("circle", "sel")
	if len(dots) != 3 {
		t.Fatalf("%d dots", len(dots))
	}
	if g1, g2 := dots[1].num(t, "cx")-dots[0].num(t, "cx"), dots[2].num(t, "cx")-dots[1].num(t, "cx"); absf(g1-g2) > 0.2 {
		t.Errorf("uneven gaps %v %v", g1, g2)
	}
	var ticks []string
	for _, tk := range root.all("text", "tick") {
		ticks = append(ticks, tk.Text)
	}
	if ticks[0] != "</text><script>x</script>" || ticks[1] != "b & c" {
		t.Errorf("ticks %q", ticks)
	}
}

func absf(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

func roundTo(v float64, digits int) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', digits, 64), 64)
	return r
}

// TestHTMLSweepData: the page's overview carries a chart per curve, each
// titled, captioned with its crossing and holding its SVG; a run with no
// sweep carries none.
func TestHTMLSweepData(t *testing.T) {
	run, trials := readSweep(t)
	h := NewHTML(run, &HTMLOptions{TempDir: t.TempDir()})
	for _, tr := range trials {
		h.Add(tr)
	}
	var b bytes.Buffer
	if err := h.Write(&b); err != nil {
		t.Fatal(err)
	}
	var d htmlData
	if err := json.Unmarshal(pageData(t, b.Bytes())["overview"], &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Sweep) != 2 || d.Sweep[1].Title != "Tool-count sweep: weak" || d.Sweep[1].Axis != "decoys" ||
		!strings.HasPrefix(d.Sweep[1].Line, "selection falls below 80% at 30 decoys") || !strings.HasPrefix(d.Sweep[1].SVG, "<svg ") {
		t.Errorf("sweep charts: %+v", d.Sweep)
	}
	if data := pageData(t, htmlPage(t, nil))["overview"]; bytes.Contains(data, []byte(`"sweep"`)) {
		t.Error("a run with no sweep has sweep charts")
	}
}
