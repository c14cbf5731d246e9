package expr

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/toolgrade/toolgrade/internal/metric"
	"github.com/toolgrade/toolgrade/internal/srcpos"
)

// grammar ends the messages of an expression whose shape is wrong: what a
// gate is, with examples.
const grammar = "a gate is [MODEL[@VARIANT]:]METRIC[@POINT] OP VALUE, such as pass>=0.9, qwen3:8b:p95<=2s, round_limit<5% or selection@60>=0.8"

// ops is what a comparison may be, as messages list them.
const ops = ">=, <=, > or <"

// ParseOne parses one expression; its error is a *SyntaxError.
func ParseOne(expr string) (Gate, error) {
	p := &parser{lead: leadingSpace(expr), text: strings.TrimSpace(expr)}
	if p.text == "" {
		return Gate{}, p.fail(0, "empty; %s", grammar)
	}
	if ok, err := p.nonInferior(); ok {
		if err != nil {
			return Gate{}, err
		}
		return p.g, nil
	}
	at, end, err := p.comparison()
	if err != nil {
		return Gate{}, err
	}
	lhs := p.text[:at]
	metricAt := strings.LastIndex(lhs, ":") + 1
	if err := p.metric(lhs, metricAt); err != nil {
		return Gate{}, err
	}
	if metricAt > 0 {
		if err := p.scope(lhs[:metricAt-1]); err != nil {
			return Gate{}, err
		}
	}
	if err := p.value(end); err != nil {
		return Gate{}, err
	}
	return p.g, nil
}

// parser reads one expression into g.
type parser struct {
	// text is the expression without surrounding space, lead the bytes of
	// space before it, which offsets count.
	text string
	lead int
	// name is the metric as written (selection, not tool_selection).
	name string
	g    Gate
}

// leadingSpace is the length of the space that strings.TrimSpace would cut
// from the start of s: every space it cuts (a newline, a no-break space) must
// count in an offset, not only blanks and tabs.
func leadingSpace(s string) int {
	return len(s) - len(strings.TrimLeftFunc(s, unicode.IsSpace))
}

// fail is the *SyntaxError at byte off of text.
func (p *parser) fail(off int, format string, a ...any) error {
	return &SyntaxError{Expr: p.text, Offset: p.lead + max(0, off), Msg: fmt.Sprintf(format, a...)}
}

// comparison finds the comparison: the byte it starts at and the one after
// it.
func (p *parser) comparison() (at, end int, err error) {
	text := p.text
	i := strings.IndexAny(text, "<>")
	if i < 0 {
		if j := strings.Index(text, "="); j >= 0 {
			eq := text[j : j+len(text[j:])-len(strings.TrimLeft(text[j:], "="))]
			return 0, 0, p.fail(j, "%q is not a comparison: use %s; %s", eq, ops, grammar)
		}
		return 0, 0, p.fail(len(text), "no comparison (%s); %s", ops, grammar)
	}
	op := Op(text[i : i+1])
	end = i + 1
	if end < len(text) && text[end] == '=' {
		op += "="
		end++
	}
	if i > 0 && strings.ContainsRune("=!", rune(text[i-1])) {
		written := text[i-1 : i+1]
		if text[i-1] == '=' && end == i+1 {
			// => and =<: the two characters of >= and <= swapped.
			return 0, 0, p.fail(i-1, "%q is not a comparison: did you mean %q? %s", written, text[i:i+1]+"=", capital(grammar))
		}
		return 0, 0, p.fail(i-1, "%q is not a comparison: use %s; %s", text[i-1:end], ops, grammar)
	}
	p.g = Gate{Expr: text, Op: op}
	return i, end, nil
}

// metric reads METRIC[@POINT], the part of lhs from byte at on.
func (p *parser) metric(lhs string, at int) error {
	name := strings.TrimSpace(lhs[at:])
	nameAt := at + leadingSpace(lhs[at:])
	if name == "" {
		return p.fail(nameAt, "no metric before %s (known metrics: %s)", p.g.Op, strings.Join(MetricNames(), ", "))
	}
	if i := strings.Index(name, "@"); i >= 0 {
		point := strings.TrimSpace(name[i+1:])
		if msg := checkPoint(point); msg != "" {
			return p.fail(nameAt+i+1, "%s", msg)
		}
		name, p.g.Point = strings.TrimSpace(name[:i]), point
		if name == "" {
			return p.fail(nameAt, "no metric before @%s (known metrics: %s)", point, strings.Join(MetricNames(), ", "))
		}
	}
	m, ok := metric.Lookup(name)
	if !ok || !m.Is(metric.Gated) {
		return p.fail(nameAt, "%s", srcpos.Unknown("metric", name, MetricNames()))
	}
	p.name, p.g.Metric = name, m.Name
	return nil
}

// scope reads MODEL[@VARIANT], the part of the left-hand side before the
// metric's colon.
func (p *parser) scope(scope string) error {
	scope = strings.TrimSpace(scope)
	if scope == "" {
		return p.fail(0, "nothing before %q: give a model (qwen3:8b:%s) or leave the colon out", ":", p.name)
	}
	p.g.Model = scope
	at := strings.LastIndex(scope, "@")
	if at < 0 || strings.ContainsAny(scope[at+1:], ":/") {
		// An @ whose tail holds a colon is part of the model's name (a
		// digest).
		return nil
	}
	p.g.Model, p.g.Variant = strings.TrimSpace(scope[:at]), strings.TrimSpace(scope[at+1:])
	if p.g.Variant == "" {
		return p.fail(at, "no variant after @")
	}
	if p.g.Point != "" {
		return p.fail(at, "give a variant (@%s before the metric) or a sweep point (@%s after it), not both: a point is a variant", p.g.Variant, p.g.Point)
	}
	return nil
}

// value reads the threshold, from byte end of text on.
func (p *parser) value(end int) error {
	rhs := p.text[end:]
	valAt := end + leadingSpace(rhs)
	val := strings.TrimSpace(rhs)
	op := p.g.Op
	if val == "" {
		return p.fail(len(p.text), "no value after %s; %s", op, grammar)
	}
	t, err := threshold(p.g.Metric, val)
	if err != nil {
		return p.fail(valAt, "%s", err)
	}
	p.g.Threshold = t
	if p.g.Metric.Kind() == metric.Rate && ((op == GT && t >= 1) || (op == LT && t <= 0)) {
		return p.fail(valAt, "%s %s %s can never hold", p.name, op, val)
	}
	return nil
}

// checkPoint says what is wrong with a sweep point as written after a
// metric's @; "" when it reads: a count of decoys, or AXIS=VALUE pairs
// joined by +.
func checkPoint(p string) string {
	const want = "a number of decoys (selection@60) or AXIS=VALUE pairs joined by + (pass@think=true)"
	if p == "" {
		return "no sweep point after @: give " + want
	}
	if _, err := strconv.ParseUint(p, 10, 32); err == nil {
		return ""
	}
	for _, part := range strings.Split(p, "+") {
		k, v, ok := strings.Cut(part, "=")
		if !ok || strings.TrimSpace(k) == "" || strings.TrimSpace(v) == "" {
			return fmt.Sprintf("sweep point %q: give %s", p, want)
		}
	}
	return ""
}

// PointValues is a gate's Point as axis → value, as the values read in a
// point's name (curve.FormatValue): "60" is decoys=60.
func PointValues(point string) map[string]string {
	if point == "" {
		return nil
	}
	if _, err := strconv.ParseUint(point, 10, 32); err == nil {
		return map[string]string{"decoys": point}
	}
	out := map[string]string{}
	for _, part := range strings.Split(point, "+") {
		k, v, _ := strings.Cut(part, "=")
		out[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return out
}

// threshold reads a gate's value: a duration for a latency, else a
// fraction or a percentage.
func threshold(m metric.Name, val string) (float64, error) {
	if m.Kind() == metric.Latency {
		d, err := time.ParseDuration(val)
		if err != nil {
			return 0, fmt.Errorf("%s is a latency: give a duration such as 2s or 500ms, not %q", m, val)
		}
		if d < 0 {
			return 0, fmt.Errorf("%s: a latency cannot be negative (%s)", m, val)
		}
		return d.Seconds(), nil
	}
	num, scale := val, 1.0
	if strings.HasSuffix(val, "%") {
		num, scale = strings.TrimSpace(strings.TrimSuffix(val, "%")), 100
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%s is a rate: give a fraction such as 0.9 or a percentage such as 90%%, not %q", m, val)
	}
	f /= scale
	if f < 0 || f > 1 {
		return 0, fmt.Errorf("%s is a rate: %s is outside 0–1 (0%%–100%%)", m, val)
	}
	return f, nil
}

// capital is s with its first letter upper case, to start a sentence.
func capital(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
