package curve_test

import (
	"fmt"

	"github.com/toolgrade/toolgrade/internal/curve"
	"github.com/toolgrade/toolgrade/internal/stats"
)

// A model's selection over a tool-count sweep: 9/10 right with 3 tools, 7/10
// with 33, 2/10 with 63. It falls below 80% at 30 decoys, but 7/10's
// interval still reaches 80%; 2/10's does not.
func ExampleCurve_Falls() {
	point := func(decoys float64, tools, k int) curve.Sample {
		return curve.Sample{Point: curve.Point{Tools: tools}, Value: decoys, Measure: curve.Measure{Selection: stats.Rate{K: k, N: 10}}}
	}
	c := curve.Curve{Model: "qwen3:1.7b", Axis: curve.Decoys, Points: []curve.Sample{point(0, 3, 9), point(30, 33, 7), point(60, 63, 2)}}
	fmt.Println(c.Falls(curve.DefaultThreshold).String(c.Axis))
	fmt.Println(c.Falls(0.15).String(c.Axis))
	// Output:
	// selection falls below 80% at 30 decoys (33 tools); its 95% interval is wholly below 80% from 60 decoys (63 tools)
	// selection holds at or above 15% through 60 decoys (63 tools)
}
