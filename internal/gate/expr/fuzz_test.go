package expr

import (
	"errors"
	"fmt"
	"go/ast"
	goparser "go/parser"
	"go/token"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/toolgrade/toolgrade/internal/metric"
)

// pads are the spaces a gate may be written after: ParseOne trims every
// one of them.
var pads = []string{" ", "\t", "\n", "\r\n", "\v", "\u00a0", "\u0085", "\u2003"}

// addGateSeeds seeds f with the expressions the docs show in backquotes
// and every string literal of this package's tests.
func addGateSeeds(f *testing.F) {
	docs, err := filepath.Glob("../../../docs/*.md")
	if err != nil || len(docs) == 0 {
		f.Fatalf("no docs: %v", err)
	}
	quoted := regexp.MustCompile("`([^`\n]*[<>][^`\n]*)`")
	for _, p := range docs {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		for _, m := range quoted.FindAllStringSubmatch(string(data), -1) {
			f.Add(m[1], uint8(0))
		}
	}
	fset := token.NewFileSet()
	file, err := goparser.ParseFile(fset, "expr_test.go", nil, 0)
	if err != nil {
		f.Fatal(err)
	}
	ast.Inspect(file, func(n ast.Node) bool {
		if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			if s, err := strconv.Unquote(lit.Value); err == nil {
				f.Add(s, uint8(len(s)))
			}
		}
		return true
	})
}

// FuzzParseOne checks that no expression makes ParseOne panic; that an
// error is a *SyntaxError whose offset points into the expression at what
// is wrong (a character that is not a space, the end of the expression,
// or the place right after an @); that spaces before an expression move
// its error by their length and change nothing else; and that a gate,
// printed back as an expression, parses to the same gate.
func FuzzParseOne(f *testing.F) {
	addGateSeeds(f)
	f.Fuzz(func(t *testing.T, expr string, pad uint8) {
		g, err := ParseOne(expr)
		p := pads[int(pad)%len(pads)]
		g2, err2 := ParseOne(p + expr)
		if err != nil {
			var se, se2 *SyntaxError
			if !errors.As(err, &se) || !errors.As(err2, &se2) {
				t.Fatalf("errors %T, %T are not *SyntaxError", err, err2)
			}
			checkOffset(t, expr, se)
			if se2.Offset != se.Offset+len(p) || se2.Msg != se.Msg {
				t.Fatalf("ParseOne(%q): %d %q; after %q: %d %q", expr, se.Offset, se.Msg, p, se2.Offset, se2.Msg)
			}
			return
		}
		if err2 != nil || g2 != g {
			t.Fatalf("ParseOne(%q) = %+v; after %q: %+v, %v", expr, g, p, g2, err2)
		}
		if again, err := ParseOne(g.Expr); err != nil || again != g {
			t.Fatalf("ParseOne(%q) = %+v; its Expr parses to %+v, %v", expr, g, again, err)
		}
		printed := format(g)
		back, err := ParseOne(printed)
		if err != nil {
			t.Fatalf("ParseOne(%q) = %+v, printed %q: %v", expr, g, printed, err)
		}
		if back.Expr = g.Expr; !sameThreshold(g, back) {
			t.Fatalf("threshold of %q: %v, printed %q: %v", expr, g.Threshold, printed, back.Threshold)
		}
		if back.Threshold = g.Threshold; back != g {
			t.Fatalf("ParseOne(%q) = %+v, printed %q: %+v", expr, g, printed, back)
		}
	})
}

// checkOffset checks that an error's offset is in expr, on a rune, and at a
// character that is not a space, at the end of the trimmed expression, or
// right after an @.
func checkOffset(t *testing.T, expr string, se *SyntaxError) {
	t.Helper()
	o := se.Offset
	// In a string that is not UTF-8, a byte that is not a rune's first is
	// still where a rune starts.
	if o < 0 || o > len(expr) || (o < len(expr) && utf8.ValidString(expr) && !utf8.RuneStart(expr[o])) {
		t.Fatalf("ParseOne(%q): offset %d is not in the expression", expr, o)
	}
	end := len(strings.TrimRightFunc(expr, unicode.IsSpace))
	r, _ := utf8.DecodeRuneInString(expr[o:])
	if o != end && unicode.IsSpace(r) && (o == 0 || expr[o-1] != '@') {
		t.Fatalf("ParseOne(%q): %q at offset %d is a space", expr, se.Msg, o)
	}
}

// format prints g as an expression, in the form the grammar gives it.
func format(g Gate) string {
	var b strings.Builder
	if g.Model != "" || g.Variant != "" {
		b.WriteString(g.Model)
		if g.Variant != "" {
			b.WriteString("@" + g.Variant)
		}
		b.WriteString(":")
	}
	if g.NonInferior() {
		fmt.Fprintf(&b, "noninferior(%s, %s)", g.Metric, strconv.FormatFloat(g.Margin, 'g', -1, 64))
		return b.String()
	}
	b.WriteString(string(g.Metric))
	if g.Point != "" {
		b.WriteString("@" + g.Point)
	}
	// Spaced: a point may end in = or !, which would join the comparison.
	b.WriteString(" " + string(g.Op) + " ")
	if g.Metric.Kind() == metric.Latency {
		b.WriteString(time.Duration(math.Round(g.Threshold * 1e9)).String())
	} else {
		b.WriteString(strconv.FormatFloat(g.Threshold, 'g', -1, 64))
	}
	return b.String()
}

// sameThreshold compares the thresholds of two gates: exactly for a rate;
// for a latency, which reads back through whole nanoseconds, to float64's
// precision.
func sameThreshold(a, b Gate) bool {
	if a.Metric.Kind() != metric.Latency {
		return a.Threshold == b.Threshold && a.Margin == b.Margin
	}
	return math.Abs(a.Threshold-b.Threshold) <= 1e-15*math.Max(1, math.Abs(a.Threshold))
}
