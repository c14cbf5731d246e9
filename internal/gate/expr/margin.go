package expr

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/toolgrade/toolgrade/internal/metric"
	"github.com/toolgrade/toolgrade/internal/srcpos"
)

// MarginForms says how a margin is written, for messages.
const MarginForms = "a difference of rates in points (5pts), as a percentage (5%) or as a fraction (0.05)"

// ParseMargin reads a non-inferiority margin as --margin, a suite's margin:
// and noninferior(METRIC, MARGIN) write it: 5pts (or 5 pts, 5pt), 5% or
// 0.05, all meaning five percentage points. A bare number of 1 or more is
// refused rather than guessed at (5 could be 5 points or 500%), as is a
// margin of 0 (nothing could be shown within it) or of 100 points or more
// (everything is). Its error says what is wrong, not with which value: the
// caller names the flag, key or gate.
func ParseMargin(s string) (float64, error) {
	v := strings.TrimSpace(s)
	num, scale, unit := v, 1.0, false
	for _, suf := range []string{"pts", "pt", "%"} {
		if strings.HasSuffix(strings.ToLower(v), suf) {
			num, scale, unit = strings.TrimSpace(v[:len(v)-len(suf)]), 100, true
			break
		}
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("give %s", MarginForms)
	}
	if !unit && f >= 1 {
		return 0, fmt.Errorf("a fraction is below 1; for points write %spts or %s%%", num, num)
	}
	f /= scale
	if f <= 0 || f >= 1 {
		return 0, errors.New("must be more than 0 and less than 100 points")
	}
	return f, nil
}

// niName is the function a non-inferiority gate is written with.
const niName = "noninferior"

// niGrammar ends the messages of a non-inferiority gate whose shape is
// wrong.
const niGrammar = "a non-inferiority gate is [MODEL[@VARIANT]:]noninferior(METRIC, MARGIN), such as noninferior(pass, 5pts)"

// nonInferior reports whether text is a non-inferiority gate (the function's
// name, after an optional scope and its colon, then an opening parenthesis),
// and if so parses it into p.g.
func (p *parser) nonInferior() (bool, error) {
	text := p.text
	at := strings.Index(text, niName)
	if at < 0 || !strings.HasPrefix(strings.TrimLeft(text[at+len(niName):], " \t"), "(") {
		return false, nil
	}
	scope := strings.TrimSpace(text[:at])
	if scope != "" && !strings.HasSuffix(scope, ":") {
		return false, nil
	}
	p.g = Gate{Expr: text}
	if scope != "" {
		if err := p.scope(strings.TrimSuffix(scope, ":")); err != nil {
			return true, err
		}
	}
	open := at + strings.Index(text[at:], "(")
	closeAt := strings.LastIndex(text, ")")
	if closeAt < open {
		return true, p.fail(len(text), "no closing parenthesis; %s", niGrammar)
	}
	if rest := strings.TrimSpace(text[closeAt+1:]); rest != "" {
		return true, p.fail(closeAt+1+leadingSpace(text[closeAt+1:]), "%q after the closing parenthesis: the gate holds when the candidate is shown not worse; %s", rest, niGrammar)
	}
	args := text[open+1 : closeAt]
	comma := strings.Index(args, ",")
	if comma < 0 {
		return true, p.fail(closeAt, "no margin: %s", niGrammar)
	}
	if err := p.niMetric(args[:comma], open+1); err != nil {
		return true, err
	}
	m := args[comma+1:]
	mAt := open + 1 + comma + 1 + leadingSpace(m)
	margin, err := ParseMargin(m)
	if err != nil {
		return true, p.fail(mAt, "margin %q: %s", strings.TrimSpace(m), err)
	}
	p.g.Margin = margin
	return true, nil
}

// niMetric reads the metric of noninferior(METRIC, ...), written from byte
// at of text: a rate that comparisons pair.
func (p *parser) niMetric(arg string, at int) error {
	name := strings.TrimSpace(arg)
	at += leadingSpace(arg)
	names := metric.Names(metric.Paired)
	if name == "" {
		return p.fail(at, "no metric: %s (rates: %s)", niGrammar, strings.Join(names, ", "))
	}
	m, ok := metric.Lookup(name)
	if ok && m.Kind == metric.Latency {
		return p.fail(at, "%s is a latency: noninferior judges a rate that comparisons pair (%s)", name, strings.Join(names, ", "))
	}
	if !ok || !m.Is(metric.Paired) {
		return p.fail(at, "%s", srcpos.Unknown("rate", name, names))
	}
	p.name, p.g.Metric = name, m.Name
	return nil
}
