package srcpos

import (
	"bytes"
	"fmt"
	"strings"
)

// yamlHint is what to add to yaml.v3's message msg about the character at
// off of data, to say what is wrong in a user's words; "" when the message
// says enough.
func yamlHint(data []byte, off int, msg string) string {
	switch c := data[off]; {
	case c == '\t' && (strings.Contains(msg, "tab character") || msg == "found character that cannot start any token"):
		return "; YAML indents with spaces, not tabs"
	case (c == '"' || c == '\'') && msg == "found unexpected end of stream":
		return fmt.Sprintf(" (this %c string is never closed)", c)
	case strings.HasPrefix(msg, "did not find expected ',' or"):
		if open := openFlows(data[:off]); len(open) > 0 {
			o := open[len(open)-1]
			p := Offset("", data, o)
			return fmt.Sprintf(" (is a , or %s missing? the %c at line %d, column %d is still open here)", msg[len(msg)-2:len(msg)-1], data[o], p.Line, p.Col)
		}
	case (msg == "did not find expected key" || msg == "did not find expected '-' indicator") && firstOnLine(data, off):
		switch found, dash := alignedWith(data, off); {
		case !found:
			return fmt.Sprintf("; this line is indented by %s, which lines up with no block above it", spaces(data, off))
		case dash && c != '-':
			return "; this line is indented as the items of the list above: indent it further to put it in the item, or begin a new item with \"- \""
		}
	case msg == "mapping values are not allowed in this context":
		before := data[bytes.LastIndexByte(data[:off], '\n')+1 : off]
		if bytes.Contains(before, []byte(": ")) {
			return "; quote a value that holds \": \""
		}
		return "; this line is indented more than the keys above it, so it reads as more of the value on the line before"
	}
	return ""
}

// spaces says how far the line of offset off is indented: "1 space", "4
// spaces".
func spaces(data []byte, off int) string {
	n := off - (bytes.LastIndexByte(data[:off], '\n') + 1)
	if n == 1 {
		return "1 space"
	}
	return fmt.Sprintf("%d spaces", n)
}

// alignedWith looks up the lines above the line of offset off (its first
// character) for the nearest block that starts at the same column: the first
// key or item of a line, or a key after a line's "- ". found is false when
// no block still open there starts at that column; dash is whether the one
// found is a list item.
func alignedWith(data []byte, off int) (found, dash bool) {
	start := bytes.LastIndexByte(data[:off], '\n') + 1
	col := off - start
	for end := start - 1; end > 0; {
		ls := bytes.LastIndexByte(data[:end], '\n') + 1
		line := data[ls:end]
		end = ls - 1
		text := bytes.TrimLeft(line, " ")
		if len(text) == 0 || text[0] == '#' {
			continue
		}
		indent := len(line) - len(text)
		// "- - key" starts a block at each item and at the key.
		// c stops at the line's end: a "- " with nothing after it starts no
		// block on this line.
		for c := indent; c <= col && c < len(line); {
			if c == col {
				return true, line[c] == '-'
			}
			if line[c] != '-' || c+1 >= len(line) || line[c+1] != ' ' {
				break
			}
			c += 2
			for c < len(line) && line[c] == ' ' {
				c++
			}
		}
		if indent < col {
			return false, false // a block that starts left of it holds it
		}
	}
	return false, false
}
