package expr

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/metric"
)

func TestParseOne(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Gate
	}{
		{"pass>=0.9", Gate{Metric: metric.Pass, Op: GE, Threshold: 0.9}},
		{"pass >= 90%", Gate{Metric: metric.Pass, Op: GE, Threshold: 0.9}},
		{"  selection>=0.95 ", Gate{Metric: metric.ToolSelection, Op: GE, Threshold: 0.95}},
		{"tool_selection>0.5", Gate{Metric: metric.ToolSelection, Op: GT, Threshold: 0.5}},
		{"arg_validity>=1", Gate{Metric: metric.ArgValidity, Op: GE, Threshold: 1}},
		{"arg_accuracy>=0.8", Gate{Metric: metric.ArgAccuracy, Op: GE, Threshold: 0.8}},
		{"irrelevance>=100%", Gate{Metric: metric.Irrelevance, Op: GE, Threshold: 1}},
		{"round_limit<=0.05", Gate{Metric: metric.RoundLimit, Op: LE, Threshold: 0.05}},
		{"round_limit<5%", Gate{Metric: metric.RoundLimit, Op: LT, Threshold: 0.05}},
		{"p50<=500ms", Gate{Metric: metric.P50, Op: LE, Threshold: 0.5}},
		{"p95<=2s", Gate{Metric: metric.P95, Op: LE, Threshold: 2}},
		{"p95<1m30s", Gate{Metric: metric.P95, Op: LT, Threshold: 90}},
		// Model names hold colons: the metric is after the last one.
		{"qwen3:8b:pass>=0.95", Gate{Model: "qwen3:8b", Metric: metric.Pass, Op: GE, Threshold: 0.95}},
		{"hf.co/unsloth/Qwen3-8B-GGUF:Q4_K_M:p95<=2s", Gate{Model: "hf.co/unsloth/Qwen3-8B-GGUF:Q4_K_M", Metric: metric.P95, Op: LE, Threshold: 2}},
		{"llama3:pass>=0.5", Gate{Model: "llama3", Metric: metric.Pass, Op: GE, Threshold: 0.5}},
		{"qwen3:8b@new:pass>=0.9", Gate{Model: "qwen3:8b", Variant: "new", Metric: metric.Pass, Op: GE, Threshold: 0.9}},
		{"@base:selection>=0.9", Gate{Variant: "base", Metric: metric.ToolSelection, Op: GE, Threshold: 0.9}},
		// An @ whose tail holds a colon is part of the model name (a digest).
		{"m@sha256:abc:pass>=0.9", Gate{Model: "m@sha256:abc", Metric: metric.Pass, Op: GE, Threshold: 0.9}},
	} {
		got, err := ParseOne(tt.in)
		if err != nil {
			t.Errorf("ParseOne(%q): %v", tt.in, err)
			continue
		}
		tt.want.Expr = strings.TrimSpace(tt.in)
		if got != tt.want {
			t.Errorf("ParseOne(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

func TestParseOneErrors(t *testing.T) {
	for _, tt := range []struct {
		in     string
		offset int
		msg    string
	}{
		{"", 0, "empty; a gate is [MODEL[@VARIANT]:]METRIC[@POINT] OP VALUE, such as pass>=0.9"},
		{"pass", 4, "no comparison (>=, <=, > or <); a gate is [MODEL[@VARIANT]:]METRIC[@POINT] OP VALUE, such as pass>=0.9"},
		{"pass=0.9", 4, `"=" is not a comparison: use >=, <=, > or <; a gate is [MODEL[@VARIANT]:]METRIC[@POINT] OP VALUE, such as pass>=0.9`},
		{"pass==0.9", 4, `"==" is not a comparison: use >=, <=, > or <; a gate is`},
		{"pass=>0.9", 4, `"=>" is not a comparison: did you mean ">="? A gate is [MODEL[@VARIANT]:]METRIC[@POINT] OP VALUE, such as pass>=0.9`},
		{"p95=<2s", 3, `"=<" is not a comparison: did you mean "<="? A gate is`},
		{"pass!>=0.9", 4, `"!>=" is not a comparison: use >=, <=, > or <; a gate is`},
		{"pas>=0.9", 0, `unknown metric "pas" (did you mean "pass"?)`},
		{"qwen3:8b:selction>=0.9", 9, `unknown metric "selction" (did you mean "selection"?)`},
		{"qwen3:8b>=0.9", 6, `unknown metric "8b" (known metrics: pass, tool_selection`},
		{"latency<=2s", 0, `unknown metric "latency" (known metrics:`},
		{">=0.9", 0, "no metric before >="},
		{":pass>=0.9", 0, `nothing before ":": give a model`},
		{"m@:pass>=0.9", 1, "no variant after @"},
		{"pass>=", 6, "no value after >="},
		{"pass>=high", 6, `pass is a rate: give a fraction such as 0.9 or a percentage such as 90%, not "high"`},
		{"pass>=2s", 6, `not "2s"`},
		{"pass>=1.5", 6, "pass is a rate: 1.5 is outside 0–1 (0%–100%)"},
		{"pass>=120%", 6, "outside 0–1"},
		{"pass>=-0.1", 6, "outside 0–1"},
		{"pass>=NaN", 6, "is a rate"},
		{"pass>1", 5, "pass > 1 can never hold"},
		{"round_limit<0", 12, "round_limit < 0 can never hold"},
		{"p95<=2", 5, `p95 is a latency: give a duration such as 2s or 500ms, not "2"`},
		{"p95<=-1s", 5, "a latency cannot be negative"},
		{"  pas>=0.9", 2, `unknown metric "pas"`}, // offsets count in the string as given
	} {
		_, err := ParseOne(tt.in)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("ParseOne(%q) = %v, want a *SyntaxError", tt.in, err)
			continue
		}
		if !strings.Contains(se.Msg, tt.msg) || se.Offset != tt.offset {
			t.Errorf("ParseOne(%q): offset %d, %q\nwant offset %d, %q", tt.in, se.Offset, se.Msg, tt.offset, tt.msg)
		}
		if want := `gate "` + strings.TrimSpace(tt.in) + `": `; !strings.HasPrefix(err.Error(), want) {
			t.Errorf("ParseOne(%q): error %q does not start %q", tt.in, err, want)
		}
	}
}

// TestOffsetsCountEverySpace: the expression is trimmed of every space
// strings.TrimSpace cuts, so its offsets count them all. They counted only
// blanks and tabs, so after a newline or a no-break space an error pointed
// before what was wrong (found by FuzzParseOne).
func TestOffsetsCountEverySpace(t *testing.T) {
	for _, tt := range []struct {
		in     string
		offset int
	}{
		{"\npas>=0.9", 1},
		{"\u00a0pas>=0.9", 2},
		{"pass>=\nhigh", 7},
		{"qwen3:\r\nselction>=0.9", 8},
		{"\v@:pass>=0.9", 1},
	} {
		_, err := ParseOne(tt.in)
		var se *SyntaxError
		if !errors.As(err, &se) || se.Offset != tt.offset {
			t.Errorf("ParseOne(%q): %v, want an error at offset %d", tt.in, err, tt.offset)
		}
	}
}

func TestParseReportsEveryProblem(t *testing.T) {
	gs, err := Parse("pass>=0.9", "pas>=0.9", "p95<=2s", "p95<=2")
	if len(gs) != 2 || gs[0].Metric != metric.Pass || gs[1].Metric != metric.P95 {
		t.Errorf("gates %+v", gs)
	}
	if err == nil || strings.Count(err.Error(), "\n") != 1 || !strings.Contains(err.Error(), `"pas>=0.9"`) || !strings.Contains(err.Error(), `"p95<=2"`) {
		t.Errorf("err = %v, want both bad gates", err)
	}
	if gs, err := Parse(); gs != nil || err != nil {
		t.Errorf("Parse() = %v, %v", gs, err)
	}
}

func TestOps(t *testing.T) {
	for _, tt := range []struct {
		op         Op
		v, t       float64
		holds, not bool
	}{
		{GE, 0.9, 0.9, true, false}, {GE, 0.89, 0.9, false, true},
		{GT, 0.9, 0.9, false, true}, {LE, 0.05, 0.05, true, false},
		{LT, 0.05, 0.05, false, true}, {LE, 0.06, 0.05, false, true},
	} {
		if got := tt.op.Holds(tt.v, tt.t); got != tt.holds {
			t.Errorf("%v %s %v = %v", tt.v, tt.op, tt.t, got)
		}
		if got := tt.op.Not().Holds(tt.v, tt.t); got != tt.not {
			t.Errorf("%v %s %v = %v (Not of %s)", tt.v, tt.op.Not(), tt.t, got, tt.op)
		}
	}
}

func TestParsePoint(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Gate
	}{
		{"selection@60>=0.8", Gate{Metric: metric.ToolSelection, Point: "60", Op: GE, Threshold: 0.8}},
		{"qwen3:8b:selection@60>=0.8", Gate{Model: "qwen3:8b", Metric: metric.ToolSelection, Point: "60", Op: GE, Threshold: 0.8}},
		{"pass@think=true>=90%", Gate{Metric: metric.Pass, Point: "think=true", Op: GE, Threshold: 0.9}},
		{"p95@decoys=10+think=true<=2s", Gate{Metric: metric.P95, Point: "decoys=10+think=true", Op: LE, Threshold: 2}},
		{"m@sha256:abc:pass@0>=0.9", Gate{Model: "m@sha256:abc", Metric: metric.Pass, Point: "0", Op: GE, Threshold: 0.9}},
	} {
		got, err := ParseOne(tt.in)
		if err != nil {
			t.Errorf("ParseOne(%q): %v", tt.in, err)
			continue
		}
		tt.want.Expr = tt.in
		if got != tt.want {
			t.Errorf("ParseOne(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
	for _, tt := range []struct {
		in     string
		offset int
		msg    string
	}{
		{"selction@60>=0.8", 0, `unknown metric "selction" (did you mean "selection"?)`},
		{"qwen3:8b:selection@>=0.8", 19, "no sweep point after @"},
		{"selection@ten>=0.8", 10, `sweep point "ten": give a number of decoys`},
		{"selection@=true>=0.8", 10, `sweep point "=true": give`},
		{"@60>=0.8", 0, "no metric before @60"},
		{"m@new:selection@60>=0.8", 1, "give a variant (@new before the metric) or a sweep point (@60 after it), not both"},
	} {
		_, err := ParseOne(tt.in)
		var se *SyntaxError
		if !errors.As(err, &se) || !strings.Contains(se.Msg, tt.msg) || se.Offset != tt.offset {
			t.Errorf("ParseOne(%q) = %v (offset %d), want offset %d, %q", tt.in, err, offsetOf(se), tt.offset, tt.msg)
		}
	}
}

func offsetOf(se *SyntaxError) int {
	if se == nil {
		return -1
	}
	return se.Offset
}

func TestParseNonInferior(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Gate
	}{
		{"noninferior(pass, 5pts)", Gate{Metric: metric.Pass, Margin: 0.05}},
		{" noninferior (selection,2.5%) ", Gate{Metric: metric.ToolSelection, Margin: 0.025}},
		{"noninferior(round_limit, 0.1)", Gate{Metric: metric.RoundLimit, Margin: 0.1}},
		{"qwen3:1.7b:noninferior(pass, 5 pts)", Gate{Model: "qwen3:1.7b", Metric: metric.Pass, Margin: 0.05}},
		{"m@terse:noninferior(pass, 1pt)", Gate{Model: "m", Variant: "terse", Metric: metric.Pass, Margin: 0.01}},
	} {
		got, err := ParseOne(tt.in)
		if err != nil {
			t.Errorf("ParseOne(%q): %v", tt.in, err)
			continue
		}
		tt.want.Expr = strings.TrimSpace(tt.in)
		if got != tt.want || !got.NonInferior() {
			t.Errorf("ParseOne(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
	for _, tt := range []struct {
		in     string
		offset int
		msg    string
	}{
		{"noninferior(pass, 5)", 18, `margin "5": a fraction is below 1; for points write 5pts or 5%`},
		{"noninferior(pass, 0pts)", 18, "must be more than 0 and less than 100 points"},
		{"noninferior(pass, lots)", 18, `margin "lots": give a difference of rates in points (5pts)`},
		{"noninferior(pass)", 16, "no margin: a non-inferiority gate is"},
		{"noninferior(pass, 5pts", 22, "no closing parenthesis"},
		{"noninferior(pas, 5pts)", 12, `unknown rate "pas" (did you mean "pass"?)`},
		{"noninferior( p95, 5pts)", 13, "p95 is a latency: noninferior judges a rate"},
		{"noninferior(, 5pts)", 12, "no metric"},
		{"noninferior(pass, 5pts) >= 0.9", 24, `">= 0.9" after the closing parenthesis`},
		{":noninferior(pass, 5pts)", 0, `nothing before ":"`},
	} {
		_, err := ParseOne(tt.in)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("ParseOne(%q) = %v, want a *SyntaxError", tt.in, err)
			continue
		}
		if !strings.Contains(se.Msg, tt.msg) || se.Offset != tt.offset {
			t.Errorf("ParseOne(%q): offset %d, %q\nwant offset %d, %q", tt.in, se.Offset, se.Msg, tt.offset, tt.msg)
		}
	}
}

func TestParseMargin(t *testing.T) {
	for in, want := range map[string]float64{"5pts": 0.05, "5 pts": 0.05, "1pt": 0.01, "5%": 0.05, "0.05": 0.05, " 2.5PTS ": 0.025, "99%": 0.99} {
		if got, err := ParseMargin(in); err != nil || math.Abs(got-want) > 1e-12 {
			t.Errorf("ParseMargin(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for in, msg := range map[string]string{"5": "a fraction is below 1", "0": "more than 0", "100pts": "less than 100 points",
		"-5pts": "more than 0", "": "give a difference", "5 points": "give a difference", "NaN": "give a difference"} {
		if _, err := ParseMargin(in); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("ParseMargin(%q) = %v, want an error saying %q", in, err, msg)
		}
	}
}
