package termtext

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestPrintable(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text, with ünïcode and a tab\tand\nnewline", "plain text, with ünïcode and a tab\tand\nnewline"},
		{"\u001b[2J\u001b]0;pwned\u0007", `\x1b[2J\x1b]0;pwned\x07`},
		{"carriage\rreturn, backspace\b, DEL\x7f", `carriage\x0dreturn, backspace\x08, DEL\x7f`},
		{"C1 CSI \u009b2J", `C1 CSI \u009b2J`},
		{"bidi \u202egnp.exe", `bidi \u202egnp.exe`},
		{"bad UTF-8 \xff\xfe", `bad UTF-8 \xff\xfe`},
		{`a literal \x1b stays`, `a literal \x1b stays`},
	} {
		if got := Printable(tc.in); got != tc.want {
			t.Errorf("Printable(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestCount(t *testing.T) {
	for _, tt := range []struct {
		n    int
		noun string
		want string
	}{
		{0, "model", "0 models"},
		{1, "model", "1 model"},
		{1, "repeat", "1 repeat"},
		{2, "repeat", "2 repeats"},
		{-1, "point", "-1 points"},
	} {
		if got := Count(tt.n, tt.noun); got != tt.want {
			t.Errorf("Count(%d, %q) = %q, want %q", tt.n, tt.noun, got, tt.want)
		}
	}
	if got := Plural(1, "call was", "calls were"); got != "call was" {
		t.Errorf("Plural(1) = %q", got)
	}
	if got := Plural(2, "entry", "entries"); got != "entries" {
		t.Errorf("Plural(2) = %q", got)
	}
}

// TestExcerpt: a long text is cut after n characters (not bytes), so the
// message stays valid UTF-8, and a short one is left as it is.
func TestExcerpt(t *testing.T) {
	long := strings.Repeat("é", 250)
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 200, "short"},
		{long, 200, strings.Repeat("é", 200) + "…"},
		{"x" + long, 200, "x" + strings.Repeat("é", 199) + "…"},
		{"abcd", 4, "abcd"},
	} {
		if got := Excerpt(tc.in, tc.n); got != tc.want || !utf8.ValidString(got) {
			t.Errorf("Excerpt(%d bytes, %d) = %q", len(tc.in), tc.n, got)
		}
	}
}

// A duration reads as people write one: no zero units, measured ones
// rounded to what a reader can use.
func TestDuration(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{5 * time.Minute, "5m"},
		{time.Hour, "1h"},
		{time.Hour + 5*time.Minute, "1h5m"},
		{90 * time.Second, "1m30s"},
		{2*time.Minute + 400*time.Millisecond, "2m"},
		{1234567891 * time.Nanosecond, "1.2s"},
		{30 * time.Second, "30s"},
		{1500 * time.Microsecond, "2ms"},
		{250 * time.Millisecond, "250ms"},
		{80 * time.Microsecond, "80µs"},
	} {
		if got := Duration(c.d); got != c.want {
			t.Errorf("Duration(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}
