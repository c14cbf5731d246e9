package termtext

import "testing"

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
