// Package termtext makes text that came from a model, a server or a suite
// safe to print: a leaf, so that gates and commands that print such text
// need not import the renderers.
package termtext

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Printable returns s made safe to print to a terminal, for text that came
// from a model or a server: control characters other than newline and tab
// (C0, DEL, C1), Unicode's bidirectional overrides and bytes that are not
// UTF-8 are written as escapes (ESC as \x1b, U+202E as \u202e), so the text
// cannot clear the screen, move the cursor, set the window title or reorder
// what is shown. Everything else is kept as it is.
func Printable(s string) string { return Escape(s, Unsafe) }

// Escape writes the runes of s for which unsafe holds, and bytes that are
// not UTF-8, as escapes (\x1b, \u202e); everything else is kept.
func Escape(s string, unsafe func(rune) bool) string {
	i := strings.IndexFunc(s, unsafe)
	if i < 0 && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[0])
		case r < 0x80 && unsafe(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafe(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[:n])
		}
		s = s[n:]
	}
	return b.String()
}

// Unsafe reports whether a terminal may act on r instead of showing it.
func Unsafe(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		// Bidirectional embeddings, overrides and isolates.
		return true
	}
	return false
}
