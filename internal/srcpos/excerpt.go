package srcpos

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// excerptWidth is how many characters of a source line an excerpt shows;
// a longer line is cut to a window around the column.
const excerptWidth = 100

// excerpt renders a source line under an error message, as compilers do:
//
//	18 | 	args: {name: menu.txt}
//	   | ^
//
// the caret under column col (1-based, in characters). The caret line copies
// the tabs before the column, so the caret sits under its character however
// a terminal expands tabs. Control characters show as U+FFFD, as invalid
// UTF-8 does.
func excerpt(line string, n, col int) string {
	runes := []rune(strings.TrimRight(line, "\r\n"))
	for i, r := range runes {
		// A control character would act on the terminal rather than show.
		if r != '\t' && unicode.IsControl(r) {
			runes[i] = utf8.RuneError
		}
	}
	col = min(max(col, 1), len(runes)+1)
	prefix, suffix := "", ""
	if len(runes) > excerptWidth {
		start := min(max(col-1-excerptWidth/2, 0), len(runes)-excerptWidth)
		end := start + excerptWidth
		if start > 0 {
			prefix = "…"
		}
		if end < len(runes) {
			suffix = "…"
		}
		runes, col = runes[start:end], col-start
	}
	var caret strings.Builder
	caret.WriteString(strings.Repeat(" ", utf8.RuneCountInString(prefix)))
	for _, r := range runes[:col-1] {
		if r == '\t' {
			caret.WriteByte('\t')
		} else {
			caret.WriteByte(' ')
		}
	}
	caret.WriteByte('^')
	num := strconv.Itoa(n)
	gutter := strings.Repeat(" ", max(5-len(num), 1))
	return "\n" + gutter + num + " | " + prefix + string(runes) + suffix +
		"\n" + gutter + strings.Repeat(" ", len(num)) + " | " + caret.String()
}
